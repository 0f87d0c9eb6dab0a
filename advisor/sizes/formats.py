"""Read a sizes file: the output of ``advisor sql show sizes`` as SQL*Plus or psql printed it.

Four shapes, told apart by their first lines (docs/awr-import.md#sizes):

- ``sqlplus-csv``: SQL*Plus 12.2+ ``SET MARKUP CSV ON`` (quoted upper-case headings);
- ``sqlplus-grid``: the plain SQL*Plus column grid of 11.2 (headings, a line of dashes per
  column, fixed-width columns; the headings repeat after each page break; a record wider
  than LINESIZE spans several lines, each with its own headings and dashes);
- ``psql-csv``: ``psql --csv`` (lower-case headings);
- ``psql-aligned``: psql's default output (``|`` between columns, ``(N rows)`` at the end).

A feedback line (``N rows selected.``, ``(N rows)``) must agree with the rows read; the
grid and aligned outputs must end with one, so a cut file is told from a complete one. Every
row keeps its line number, for the one-line errors of :mod:`advisor.sizes.merge`.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from advisor.errors import BadInput
from advisor.model.jsonio import read_regular_file
from advisor.units import GIB, KIB, MIB, TIB

MAX_SIZES_FILE_BYTES = 256 * MIB
"""The largest sizes file read (`advisor sql show sizes` output, a line per segment or relation)."""


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

_FEEDBACK = re.compile(r"^\s*(?:(\d+|no) rows? selected\.?|\((\d+) rows?\))\s*$", re.IGNORECASE)
_PROMPT = re.compile(r"^SQL> ")
_DASHES = re.compile(r"^-+(?: +-+)*\s*$")
_ALIGNED_RULE = re.compile(r"^-+(?:\+-+)*\s*$")
_SIZE = re.compile(r"^([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)$")
_UNITS = {"": 1, "b": 1, "bytes": 1, "byte": 1, "k": KIB, "kb": KIB, "kib": KIB, "m": MIB, "mb": MIB,
          "mib": MIB, "g": GIB, "gb": GIB, "gib": GIB, "t": TIB, "tb": TIB, "tib": TIB}
"""Binary multiples, as pg_size_pretty and SQL*Plus users mean them (``12 MB`` = 12 MiB)."""


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
    """Every row of one sizes file and the shape it was printed in."""

    path: str
    file_format: str
    rows: tuple[SizeRow, ...]


def read_sizes(path: Path) -> SizesTable:
    """Parse *path*; any damage is one :class:`BadInput` line naming the file and line."""
    text = read_regular_file(path, MAX_SIZES_FILE_BYTES, "sizes file").decode("utf-8", errors="replace")
    # a SPOOL started at the prompt also holds the typed commands ("SQL> @sizes", "SQL> spool off")
    lines = ["" if _PROMPT.match(line) else line for line in text.replace("\f", "\n").splitlines()]
    content = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if len(content) < 2:
        raise BadInput(f"{path}: no sizes in it (expected the output of `advisor sql show sizes`)")
    first, second = content[0][1], content[1][1]
    if "|" in first and _ALIGNED_RULE.match(second.strip()):
        fmt, records = "psql-aligned", _aligned(path, content)
    elif _DASHES.match(second.strip()) and "," not in second:
        fmt, records = "sqlplus-grid", _grid(path, lines)
    else:
        fmt, records = ("sqlplus-csv" if first.lstrip().startswith('"') else "psql-csv"), _csv(path, content)
    return SizesTable(str(path), fmt, _rows(path, records))


Record = tuple[int, dict[str, str]]


def _footer(path: Path, line_no: int, line: str, count: int) -> None:
    match = _FEEDBACK.match(line)
    assert match is not None
    said = match.group(1) or match.group(2)
    expected = 0 if said.lower() == "no" else int(said)
    if expected != count:
        raise BadInput(f"{path} line {line_no}: says {expected} rows but {count} were read (truncated or edited file)")


def _csv(path: Path, content: list[tuple[int, str]]) -> list[Record]:
    header = [h.strip().lower() for h in next(csv.reader([content[0][1]]))]
    records: list[Record] = []
    for index, (line_no, line) in enumerate(content[1:], start=1):
        if _FEEDBACK.match(line):
            _footer(path, line_no, line, len(records))
            if index != len(content) - 1:
                raise BadInput(f"{path} line {line_no}: rows after the feedback line")
            break
        try:
            cells = next(csv.reader([line], strict=True))
        except csv.Error:
            raise BadInput(f"{path} line {line_no}: unreadable CSV row (an unclosed quote: truncated?)") from None
        if len(cells) != len(header):
            raise BadInput(f"{path} line {line_no}: {len(cells)} fields where the heading has {len(header)} "
                           "(truncated or wrapped row)")
        records.append((line_no, dict(zip(header, (c.strip() for c in cells), strict=True))))
    return records


def _aligned(path: Path, content: list[tuple[int, str]]) -> list[Record]:
    header = [h.strip().lower() for h in content[0][1].split("|")]
    records: list[Record] = []
    for line_no, line in content[2:]:
        if _FEEDBACK.match(line):
            _footer(path, line_no, line, len(records))
            return records
        cells = [c.strip() for c in line.split("|")]
        if len(cells) != len(header):
            raise BadInput(f"{path} line {line_no}: {len(cells)} columns where the heading has {len(header)} "
                           "(a '|' in a value, or a wrapped row: use psql --csv)")
        records.append((line_no, dict(zip(header, cells, strict=True))))
    raise BadInput(f"{path}: no '(N rows)' line at the end: the file is truncated")


def _spans(dashes: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]


def _grid(path: Path, lines: list[str]) -> list[Record]:
    """The SQL*Plus grid: a heading block of (names, dashes) pairs, then records of as many lines."""
    index = 0
    while not lines[index].strip():
        index += 1
    block: list[tuple[list[str], list[tuple[int, int]]]] = []
    while index + 1 < len(lines) and lines[index].strip() and _DASHES.match(lines[index + 1].strip()):
        spans = _spans(lines[index + 1])
        names = [lines[index][a:b].strip().lower() for a, b in spans]
        block.append((names, spans))
        index += 2
    heading = [(lines[i], lines[i + 1]) for i in range(index - 2 * len(block), index, 2)]
    records: list[Record] = []
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        if _FEEDBACK.match(line):
            _footer(path, index + 1, line, len(records))
            return records
        if [(lines[index + 2 * k], lines[index + 2 * k + 1]) for k in range(len(block))
                if index + 2 * k + 1 < len(lines)] == heading:
            index += 2 * len(block)  # a page break repeats the headings
            continue
        record: dict[str, str] = {}
        for k, (names, spans) in enumerate(block):
            if index + k >= len(lines) or (k and not lines[index + k].strip()):
                raise BadInput(f"{path} line {index + 1}: the record ends after {k} of its {len(block)} lines "
                               "(truncated)")
            part = lines[index + k]
            if len(part.rstrip()) > spans[-1][1]:
                raise BadInput(f"{path} line {index + k + 1}: text beyond the last column (a value wrapped "
                               "in its column: SET LINESIZE wider, see `advisor sql show sizes`)")
            record.update({name: part[a:b].strip() for name, (a, b) in zip(names, spans, strict=True)})
        records.append((index + 1, record))
        index += len(block)
    raise BadInput(f"{path}: no 'N rows selected.' line at the end: the file is truncated "
                   "(or FEEDBACK was off: run the query with SET FEEDBACK ON)")


def _rows(path: Path, records: list[Record]) -> tuple[SizeRow, ...]:
    if not records:
        raise BadInput(f"{path}: no rows (the query returned nothing?)")
    missing = [c for c in REQUIRED if c not in records[0][1]]
    if missing:
        raise BadInput(f"{path}: no column {', '.join(missing).upper()} (expected the output of "
                       "`advisor sql show sizes`)")
    rows = []
    first_unit: tuple[int, str, str] | None = None  # line, unit, the cell as written
    for line_no, cells in records:
        kind = cells["kind"].lower()
        if not kind:
            raise BadInput(f"{path} line {line_no}: KIND is empty (truncated row?)")
        size, unit = _size(path, line_no, cells["bytes"])
        if first_unit is None:
            first_unit = (line_no, unit, cells["bytes"].strip())
        elif unit != first_unit[1]:
            raise BadInput(f"{path} line {line_no}: size {cells['bytes'].strip()!r} and line {first_unit[0]}'s "
                           f"{first_unit[2]!r} are in different units; give every size in one unit "
                           "(the query prints bytes)")
        rows.append(SizeRow(line_no, kind, cells.get("tablespace", ""), cells.get("container", ""),
                            cells["file_name"], size, unit, cells.get("db_name", ""), cells.get("dbid", ""),
                            cells.get("taken_at", "")))
    return tuple(rows)


def _size(path: Path, line_no: int, text: str) -> tuple[int, str]:
    """A size cell: bytes, SQL*Plus's ``3.4360E+10`` when a number overflowed NUMWIDTH, or ``12 MB``."""
    match = _SIZE.match(text.strip().replace(",", ""))
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _UNITS:
        what = "empty" if not text.strip() else f"{text.strip()!r}, not a size"
        raise BadInput(f"{path} line {line_no}: BYTES is {what} (truncated row?)")
    canonical = {"b": "", "bytes": "", "byte": "", "kb": "k", "kib": "k", "mb": "m", "mib": "m", "gb": "g",
                 "gib": "g", "tb": "t", "tib": "t"}.get(unit, unit)
    return int(float(match.group(1)) * _UNITS[unit]), canonical
