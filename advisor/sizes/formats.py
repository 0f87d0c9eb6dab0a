"""Read a sizes file: the output of ``advisor sql show sizes`` as SQL*Plus or psql printed it.

Four shapes, told apart by their first lines (docs/awr-import.md#sizes):

- ``sqlplus-csv``: SQL*Plus 12.2+ ``SET MARKUP CSV ON`` (quoted upper-case headings);
- ``sqlplus-grid``: the plain SQL*Plus column grid of 11.2 (headings, a line of dashes per
  column, fixed-width columns; the headings repeat after each page break; a record wider
  than LINESIZE spans several lines, each with its own headings and dashes);
- ``psql-csv``: ``psql --csv`` (lower-case headings);
- ``psql-aligned``: psql's default output (``|`` between columns, ``(N rows)`` at the end).

A feedback line (``N rows selected.``, ``(N rows)``) must agree with the rows read; the
grid and aligned outputs must end with one, so a cut file is told from a complete one; a
``SET TIMING ON`` line (``Elapsed: 00:00:00.01``) may follow it. A UTF-8 byte order mark is
not text. Every row keeps its line number, for the one-line errors of
:mod:`advisor.sizes.merge`.

The file is read as a stream, a line at a time: only the rows the caller keeps (``keep``:
those that can match the workload) are held, so memory follows what matches, not the file.
Sizes are read as written: the decimal separator is decided from the file's own size cells
(:mod:`advisor.numerals`, as the report reader decides it), a size beyond what a database
file can be (:data:`MAX_FILE_BYTES`) or a fraction of a byte is refused with one line.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from advisor.errors import BadInput
from advisor.sizes.lines import Lines, open_lines
from advisor.sizes.numbers import SizeCells
from advisor.units import MIB

MAX_SIZES_FILE_BYTES = 256 * MIB
"""The largest sizes file read (`advisor sql show sizes` output, a line per file or tablespace)."""

MAX_ROWS_OF_A_KIND = 65_533
"""Rows of one kind a sizes file may hold: a database has at most 65,533 data files (Oracle's
``DB_FILES`` limit), and fewer tablespaces, redo members or control files; a file with more
rows of a kind is not one database's sizes (and is refused before it is read to the end)."""


@dataclass(frozen=True, slots=True)
class SizesQueryRow:
    """The columns of ``sql/oracle/sizes.v*.sql`` (and, without CONTAINER, of the PostgreSQL one),
    as text: a DBA runs the query by hand and advisor reads what SQL*Plus or psql printed."""

    db_name: str
    dbid: str
    taken_at: str
    kind: str
    tablespace: str | None
    file_name: str
    bytes: str
    container: str | None = None  # Oracle 12+: the PDB (CDB$ROOT for the root)


REQUIRED = ("kind", "file_name", "bytes")
"""Columns a sizes file cannot do without; the others of :class:`SizesQueryRow` are used when present."""

KINDS = frozenset({"datafile", "tempfile", "redo", "control", "fra", "tablespace", "wal", "temp"})
"""The KIND values the sizes queries print (Oracle's, then PostgreSQL's)."""

MAX_IDENTITIES = 16
"""Distinct (DB_NAME, DBID) pairs kept for the database check: a file of one database has one."""

_FEEDBACK = re.compile(r"^\s*(?:(\d+|no) rows? selected\.?|\((\d+) rows?\))\s*$", re.IGNORECASE)
_MOST_ROWS_DIGITS = 18  # a row count longer than this is no count of rows
_TIMING = re.compile(r"^\s*Elapsed:\s+[\d:.,]+\s*$")
_DASHES = re.compile(r"^-+(?: +-+)*\s*$")
_ALIGNED_RULE = re.compile(r"^-+(?:\+-+)*\s*$")


@dataclass(frozen=True, slots=True)
class SizeRow:
    """One row of a sizes file: a data/temp file, redo member, control file or FRA file type."""

    line: int
    kind: str  # datafile, tempfile, redo, control, fra; PostgreSQL: tablespace, wal, temp
    tablespace: str  # the FRA's file type for kind fra
    container: str
    file_name: str
    size_bytes: int
    unit: str  # as written ("" for a bare byte count)
    db_name: str
    dbid: str
    taken_at: str


@dataclass(frozen=True, slots=True)
class SizesTable:
    """The rows of one sizes file that were kept, and what the whole file said.

    ``row_count`` counts every row read; ``identities`` holds each distinct (line, DB_NAME,
    DBID) of the file, so rows that were not kept are still checked for their database;
    ``head`` describes the first row, for a message when nothing matches; ``containers`` is
    False when the file has no CONTAINER column (an 11.2 query, or psql).
    """

    path: str
    file_format: str
    rows: tuple[SizeRow, ...]
    row_count: int = 0
    identities: tuple[tuple[int, str, str], ...] = ()
    taken_at: str = ""
    head: str = ""
    containers: bool = True


Record = tuple[int, dict[str, str]]
Keep = Callable[[str, str, str], bool]
"""Whether a row (KIND, TABLESPACE, FILE_NAME) can matter to the caller; the others are only counted."""


def read_sizes(path: Path, keep: Keep | None = None) -> SizesTable:
    """Parse *path*, keeping the rows *keep* accepts (all without it); damage is one BadInput line."""
    with open_lines(path, MAX_SIZES_FILE_BYTES, "sizes file") as lines:
        first, second = lines.content(0), lines.content(1)
        if first is None or second is None:
            raise BadInput(f"{path}: no sizes in it (expected the output of `advisor sql show sizes`)")
        if "|" in first[1] and _ALIGNED_RULE.match(second[1].strip()):
            fmt, records = "psql-aligned", _aligned(path, lines)
        elif _DASHES.match(second[1].strip()) and "," not in second[1]:
            fmt, records = "sqlplus-grid", _grid(path, lines)
        else:
            fmt = "sqlplus-csv" if first[1].lstrip().startswith('"') else "psql-csv"
            records = _csv(path, lines)
        return _rows(path, fmt, records, keep)


def _footer(path: Path, line_no: int, line: str, count: int) -> None:
    match = _FEEDBACK.match(line)
    assert match is not None
    said = match.group(1) or match.group(2)
    if len(said) > _MOST_ROWS_DIGITS:
        raise BadInput(f"{path} line {line_no}: says {said[:_MOST_ROWS_DIGITS]}... rows but {count} were read "
                       "(truncated or edited file)")
    expected = 0 if said.lower() == "no" else int(said)
    if expected != count:
        raise BadInput(f"{path} line {line_no}: says {expected} rows but {count} were read (truncated or edited file)")


def _after_feedback(path: Path, lines: Lines) -> None:
    """What may follow the feedback line: blank lines and SET TIMING ON's ``Elapsed:``, nothing else."""
    while (line := lines.next()) is not None:
        if line[1].strip() and not _TIMING.match(line[1]):
            raise BadInput(f"{path} line {line[0]}: rows after the feedback line")


def _csv(path: Path, lines: Lines) -> Iterator[Record]:
    header_line = lines.next_content()
    assert header_line is not None
    header = [h.strip().lower() for h in next(csv.reader([header_line[1]]))]
    count = 0
    while (item := lines.next_content()) is not None:
        line_no, line = item
        if _FEEDBACK.match(line):
            _footer(path, line_no, line, count)
            _after_feedback(path, lines)
            return
        try:
            cells = next(csv.reader([line], strict=True))
        except csv.Error:
            raise BadInput(f"{path} line {line_no}: unreadable CSV row (an unclosed quote: truncated?)") from None
        if len(cells) != len(header):
            raise BadInput(f"{path} line {line_no}: {len(cells)} fields where the heading has {len(header)} "
                           "(truncated or wrapped row)")
        count += 1
        yield line_no, dict(zip(header, (c.strip() for c in cells), strict=True))


def _aligned(path: Path, lines: Lines) -> Iterator[Record]:
    header_line, _rule = lines.next_content(), lines.next_content()  # read_sizes saw both
    assert header_line is not None
    header = [h.strip().lower() for h in header_line[1].split("|")]
    count = 0
    while (item := lines.next_content()) is not None:
        line_no, line = item
        if _FEEDBACK.match(line):
            _footer(path, line_no, line, count)
            _after_feedback(path, lines)
            return
        cells = [c.strip() for c in line.split("|")]
        if len(cells) != len(header):
            raise BadInput(f"{path} line {line_no}: {len(cells)} columns where the heading has {len(header)} "
                           "(a '|' in a value, or a wrapped row: use psql --csv)")
        count += 1
        yield line_no, dict(zip(header, cells, strict=True))
    raise BadInput(f"{path}: no '(N rows)' line at the end: the file is truncated")


def _spans(dashes: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]


def _grid(path: Path, lines: Lines) -> Iterator[Record]:
    """The SQL*Plus grid: a heading block of (names, dashes) pairs, then records of as many lines.

    Every turn of the loop takes at least one line or ends, so no file keeps it going for ever.
    """
    while (blank := lines.peek(0)) is not None and not blank[1].strip():
        lines.take(1)
    block: list[tuple[list[str], list[tuple[int, int]]]] = []
    heading: list[str] = []
    while ((top := lines.peek(0)) is not None and top[1].strip() and (under := lines.peek(1)) is not None
           and _DASHES.match(under[1].strip())):
        spans = _spans(under[1])
        block.append(([top[1][a:b].strip().lower() for a, b in spans], spans))
        heading += [top[1], under[1]]
        lines.take(2)
    if not block:
        where = top[0] if top is not None else "?"
        raise BadInput(f"{path} line {where}: the column headings are not directly above their line of dashes "
                       "(an edited file?); give the file as SQL*Plus spooled it")
    count = 0
    while (item := lines.peek(0)) is not None:
        line_no, line = item
        if not line.strip():
            lines.take(1)
            continue
        if _FEEDBACK.match(line):
            _footer(path, line_no, line, count)
            return  # what follows (SET TIMING ON's Elapsed:, the prompt) is not the query's
        if all((ahead := lines.peek(k)) is not None and ahead[1] == text for k, text in enumerate(heading)):
            lines.take(len(heading))  # a page break repeats the headings
            continue
        record: dict[str, str] = {}
        for k, (names, spans) in enumerate(block):
            part = lines.peek(k)
            if part is None or (k and not part[1].strip()):
                raise BadInput(f"{path} line {line_no}: the record ends after {k} of its {len(block)} lines "
                               "(truncated)")
            if len(part[1].rstrip()) > spans[-1][1]:
                raise BadInput(f"{path} line {part[0]}: text beyond the last column (a value wrapped "
                               "in its column: SET LINESIZE wider, see `advisor sql show sizes`)")
            record.update({name: part[1][a:b].strip() for name, (a, b) in zip(names, spans, strict=True)})
        lines.take(len(block))
        count += 1
        yield line_no, record
    raise BadInput(f"{path}: no 'N rows selected.' line at the end: the file is truncated "
                   "(or FEEDBACK was off: run the query with SET FEEDBACK ON)")


def _rows(path: Path, fmt: str, records: Iterator[Record], keep: Keep | None) -> SizesTable:
    """The kept rows, each size read once the whole file has said how it writes numbers."""
    cells = SizeCells(str(path))
    kept: list[tuple[int, dict[str, str]]] = []
    per_kind: dict[str, int] = {}
    identities: dict[tuple[str, str], int] = {}
    count, head, taken, containers = 0, "", "", True
    for line_no, record in records:
        if not count:
            missing = [c for c in REQUIRED if c not in record]
            if missing:
                raise BadInput(f"{path}: no column {', '.join(missing).upper()} (expected the output of "
                               "`advisor sql show sizes`)")
            containers = "container" in record
            head = (f"line {line_no}: {record['kind'].lower()} {record.get('tablespace') or '-'} "
                    f"{record['file_name'] or '-'}")
        count += 1
        kind = record["kind"].lower()
        if not kind:
            raise BadInput(f"{path} line {line_no}: KIND is empty (truncated row?)")
        if kind not in KINDS:
            raise BadInput(f"{path} line {line_no}: KIND {kind!r} is not one the sizes query prints")
        per_kind[kind] = per_kind.get(kind, 0) + 1
        if per_kind[kind] > MAX_ROWS_OF_A_KIND:
            raise BadInput(f"{path} line {line_no}: more than {MAX_ROWS_OF_A_KIND:,} rows of kind {kind} "
                           "(a database has at most 65,533 data files); not one database's sizes")
        cells.vote(line_no, record["bytes"])
        identity = (record.get("db_name", ""), record.get("dbid", ""))
        if identity not in identities:
            if len(identities) == MAX_IDENTITIES:
                raise BadInput(f"{path} line {line_no}: rows of more than {MAX_IDENTITIES} databases; "
                               "give the output of the sizes query run on the one database the workload is of")
            identities[identity] = line_no
        taken = taken or record.get("taken_at", "")
        if keep is None or keep(kind, record.get("tablespace", ""), record["file_name"]):
            kept.append((line_no, record))
    if not count:
        raise BadInput(f"{path}: no rows (the query returned nothing?)")
    rows = tuple(_row(line_no, record, cells) for line_no, record in kept)
    return SizesTable(str(path), fmt, rows, count, tuple((n, db, dbid) for (db, dbid), n in identities.items()),
                      taken, head, containers)


def _row(line_no: int, cells: dict[str, str], sizes: SizeCells) -> SizeRow:
    size, unit = sizes.read(line_no, cells["bytes"])
    return SizeRow(line_no, cells["kind"].lower(), cells.get("tablespace", ""), cells.get("container", ""),
                   cells["file_name"], size, unit, cells.get("db_name", ""), cells.get("dbid", ""),
                   cells.get("taken_at", ""))

