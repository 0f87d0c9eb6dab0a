"""Plain-text reports (AWR text and Statspack): sections, SQL*Plus grids and header facts.

A section starts with a title line ``<Title>  DB/Inst: <db>/<inst>  Snaps: <b>-<e>``. Inside,
SQL*Plus prints a header of one to three lines, a line of dashes whose runs are the columns,
and rows. Cells are cut at the dash runs, so an empty cell (no buffer waits, no single-block
reads) stays empty instead of shifting every later number one column left, and a row one
or two cells short at its end (Statspack leaves out an empty Av BufWt) keeps its figures in
place. Tablespace and file names take a line of their own with the numbers on the next one;
both layouts are accepted. A blank line between groups does not end a table (Statspack
prints one after each tablespace), a name line that starts blank belongs to the tablespace
above (SQL*Plus ``break on``), and a file name longer than its column, wrapped onto the
next line, is joined back. The quirks are listed in docs/report-quirks.md. What the sections
say (header facts, IO stats, events) is read from these grids by
:mod:`advisor.collectors.awr.text_report`.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field

from advisor.collectors.awr import numbers
from advisor.collectors.awr.sections import COLUMN_LABELS, column_key
from advisor.errors import BadInput

TITLE = re.compile(r"^(?P<title>\S.*?)\s+DB/Inst:\s*(?P<db>[^/\s]+)/(?P<inst>\S+)\s+Snaps:\s*(?P<b>\d+)-(?P<e>\d+)")
_DASHES = re.compile(r"^[-~ ]*-[-~ ]*$")


@dataclass
class Section:
    title: str
    first_line: int  # 1-based line number of the title
    lines: list[str]
    # the file line of each of *lines*: a machine-int array (8 bytes a line, not a 36-byte int object)
    line_numbers: array[int] = field(default_factory=lambda: array("q"))

    def line_of(self, index: int) -> int:
        """The 1-based file line of ``lines[index]`` (a section continued on a later page skips lines)."""
        if 0 <= index < len(self.line_numbers):
            return self.line_numbers[index]
        return self.first_line + index + 1


@dataclass
class Row:
    """A grid row: a label (tablespace/file or event name) and its cells by column key."""

    label: str
    cells: dict[str, str]
    line: int
    raw: list[str] = field(default_factory=list)  # cells in column order (headers may repeat)
    name_lines: list[str] = field(default_factory=list)  # the line(s) naming the row, as printed


@dataclass
class Grid:
    columns: list[str]  # column keys in order
    rows: list[Row] = field(default_factory=list)


READ_SECTIONS = frozenset({
    "File IO Stats", "Tablespace IO Stats", "IOStat by Filetype summary", "Wait Events", "Foreground Wait Events",
    "Background Wait Events", "Foreground Wait Class", "Wait Event Histogram", "File Read Histogram Stats",
})
"""The sections the importers read (with every "Segments by ..." section); the others' lines are not kept.
tests/oracle/test_awr_read_sections.py records what the parsers ask for and holds this list to it."""


def is_read(title: str) -> bool:
    """Whether a section titled *title* is read by an importer (its lines are kept)."""
    return title in READ_SECTIONS or title.lower().startswith("segments by ")


def sections(text: str) -> dict[str, Section]:
    """Sections by title; a title printed again is the same section continued on a new page.

    SQL*Plus starts each page of a long table with the section's title line, its notes and its
    column header again (after a form feed, dropped when the file is read): those repeated lines
    are skipped and the rows that follow join the section, so no row on a later page is lost.
    A section no importer reads (SQL text, Top Sessions, ...) is listed with no lines, so a big
    report does not hold its unread parts twice (once in the text, once as lines).
    """
    found: dict[str, Section] = {}
    current: Section | None = None
    keep = False  # whether current's lines are kept (is_read of its title)
    skip_to = -1
    start = 0  # where the line after the current one starts in *text*
    for number, line in enumerate(split_lines(text), start=1):
        start += len(line) + 1
        if number <= skip_to:
            continue
        match = TITLE.match(line)
        if match:
            title = match.group("title").strip()
            if title in found:  # the page header of a section continued on a new page
                current = found[title]
                keep = is_read(title)
                skip_to = _page_header_end(text, start, number, current)
                continue
            current = Section(title, number, [])
            keep = is_read(title)
            found[title] = current
            continue
        if current is not None and keep:
            current.lines.append(line)
            current.line_numbers.append(number)
    return found


def split_lines(text: str) -> Iterator[str]:
    """The lines of *text* as ``text.split("\n")`` gives them, one at a time (no list of every line)."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def _page_header_end(text: str, start: int, title_line: int, section: Section) -> int:
    """The last line of a repeated page header: the section's column rule printed again, if near.

    *start* is where the line after the title line (number *title_line*) starts in *text*.
    """
    rules = {line for line in section.lines if _DASHES.match(line)}
    end = title_line
    following = split_lines(text[start:text_end(text, start, 11)]) if start <= len(text) else iter(())
    for number, line in enumerate(following, start=title_line + 1):
        if TITLE.match(line):
            break
        if line in rules:
            end = number  # the last rule of the header (a name grid's rule comes before the figures' rule)
    return end


def text_end(text: str, start: int, count: int) -> int:
    """Where the *count* lines from *start* end in *text* (before their last line end)."""
    end = start - 1
    for _ in range(count):
        end = text.find("\n", end + 1)
        if end < 0:
            return len(text)
    return end


def spans(dash_line: str) -> list[tuple[int, int]]:
    """Column [start, end) ranges from the runs of a dash (or tilde) line."""
    return [(m.start(), m.end()) for m in re.finditer(r"[-~]+", dash_line)]


def _cut(line: str, ranges: list[tuple[int, int]]) -> list[str]:
    cells = []
    for index, (start, end) in enumerate(ranges):
        # right-aligned numbers may spill one character into the gap before the column
        begin = max(0, start - 1) if index else 0
        stop = ranges[index + 1][0] - 1 if index + 1 < len(ranges) else max(end, len(line))
        cells.append(line[begin:stop].strip())
    return cells


def grid(section: Section, label_columns: int = 1) -> Grid:
    """Parse the section's last SQL*Plus grid (header lines above its dash line, rows below).

    ``label_columns`` is how many leading columns hold text (event or class name) on rows that
    also carry numbers; rows whose cells are all text are name lines for the next number row.
    """
    # the column rule is the last dash line with a row or header right under it, or a rule at
    # the left margin with rows after blank lines: a section's closing rule (an indented line
    # of dashes) has nothing under it
    lines = section.lines

    def ruled(i: int) -> bool:
        if i + 1 < len(lines) and lines[i + 1].strip():
            return not _DASHES.match(lines[i + 1])
        below = next((line for line in lines[i + 1:i + 4] if line.strip()), "")
        return lines[i][:1] in "-~" and bool(below) and not _DASHES.match(below)

    dash_index = max((i for i, line in enumerate(lines) if _DASHES.match(line) and ruled(i)), default=None)
    if dash_index is None:
        raise BadInput(f"{section.title} (line {section.first_line}): no column header found (garbled report?)")
    ranges = spans(section.lines[dash_index])
    header_lines: list[str] = []
    index = dash_index - 1
    while index >= 0 and section.lines[index].strip() and not _DASHES.match(section.lines[index]):
        header_lines.insert(0, section.lines[index])
        index -= 1
    header_cells = [_cut(h, ranges) for h in header_lines]
    names = [" ".join(filter(None, (cells[c] for cells in header_cells))) for c in range(len(ranges))]
    result = Grid([column_key(n) for n in names])
    pending: list[str] = []  # the name line(s) waiting for their numbers
    pending_line = 0
    body = section.lines[dash_index + 1:]
    for offset, line in enumerate(body, start=dash_index + 2):
        number = section.line_of(offset - 1)
        if not line.strip():
            if pending:
                raise BadInput(f"{section.title} line {pending_line}: {pending[0].strip()!r} has no figures "
                               "(truncated report?)")
            after = offset - dash_index - 1
            if result.rows and not _rows_follow(body[after:after + 6], ranges):
                break  # a blank line between groups (break on the tablespace) does not end the grid
            continue
        if _DASHES.match(line):  # the section's closing rule
            break
        cells = _cut(line, ranges)
        kind = _line_kind(cells, label_columns)
        if kind == "numbers":
            result.rows.append(Row(" ".join(p.strip() for p in pending), dict(zip(result.columns, cells, strict=True)),
                                   number, cells, list(pending)))
            pending = []
        elif pending:  # a name too long for its column, wrapped onto the next line
            if len(pending) == 3:
                raise BadInput(f"{section.title} line {number}: {line.strip()!r} is not a row of numbers "
                               f"for {pending[0].strip()!r} (garbled report?)")
            pending.append(line)
        elif kind == "labelled":
            label = " ".join(cells[:label_columns]).strip()
            result.rows.append(Row(label, dict(zip(result.columns, cells, strict=True)), number, cells))
        else:
            pending, pending_line = [line], number
    if pending:
        raise BadInput(f"{section.title} line {pending_line}: {pending[0].strip()!r} has no figures "
                       "(truncated report?)")
    return result


def _line_kind(cells: list[str], label_columns: int) -> str:
    """"numbers" (a row of figures, perhaps with a garbled cell), "labelled" (name then figures) or "text".

    A line most of whose cells are figures is a row of figures even when one cell is not: the
    reader then names that cell, instead of taking the row for a file name.
    """
    filled = [c for c in cells if c]
    figures = sum(numbers.is_number(c) for c in filled)
    if filled and (figures == len(filled) or (figures >= 2 and figures * 2 > len(filled)
                                               and not cells[0][:1].isalpha())):
        return "numbers"
    rest = cells[label_columns:]
    if any(rest) and all(numbers.is_number(c) for c in rest if c) and not numbers.is_number(cells[0]):
        return "labelled"
    return "text"


def _rows_follow(after_blank: list[str], ranges: list[tuple[int, int]]) -> bool:
    """Whether the grid goes on after a blank line: a name line then figures, or figures."""
    lines = [line for line in after_blank if line.strip()]
    if not lines or _DASHES.match(lines[0]) or TITLE.match(lines[0]):
        return False
    if _line_kind(_cut(lines[0], ranges), 1) != "text":
        return True
    return any(_line_kind(_cut(line, ranges), 0) == "numbers" for line in lines[1:3])


def value(row: Row, key: str, where: str, *, binary: bool = False, time_unit: str = "") -> float | None:
    """A numeric cell of *row*, BadInput naming the section and line when it is not a number."""
    cell = row.cells.get(key)
    if numbers.is_overflow(cell):
        label = " ".join(row.label.split()) or "a row"
        numbers.note(f"{where} line {row.line}: {label}: {COLUMN_LABELS.get(key, key)} printed as {cell!r} "
                     "(the figure overflowed its column); left unknown")
        return None
    place = f"{where} line {row.line}, column {COLUMN_LABELS.get(key, key)}"
    try:
        return numbers.number(cell, binary=binary, where=place, time_unit=time_unit or TIME_UNIT.get(key, "ms"))
    except ValueError:
        raise numbers.refusal(cell, place, f"{where} line {row.line}: {cell!r} under {key} is not a number "
                                           "(garbled report?)") from None


TIME_UNIT = {"total_s": "s"}
"""Columns that count time in another unit than milliseconds: a suffixed cell there is converted to it."""


def file_grid_rows(table: Grid, where: str = "File IO Stats") -> list[tuple[str, str, Row]]:
    """(tablespace, filename, row) for File IO style grids whose name line is 'TS  /path'.

    SQL*Plus prints a tablespace once per group when the report breaks on it (the next files'
    lines start blank: they belong to the tablespace above), and wraps a file name longer than
    its column onto the following line(s), which are joined back.
    """
    out: list[tuple[str, str, Row]] = []
    for row in table.rows:
        first = row.name_lines[0] if row.name_lines else row.label
        wrapped = "".join(line.strip() for line in row.name_lines[1:])
        if first[:1].isspace() and first.strip() and out:
            tablespace, filename = out[-1][0], first.strip() + wrapped
        else:
            parts = first.split(None, 1)
            if len(parts) != 2:
                raise BadInput(f"{where} line {row.line - len(row.name_lines or [1])}: expected "
                               f"'TABLESPACE  FILENAME', found {first.strip()!r}")
            tablespace, filename = parts[0], parts[1].strip() + wrapped
        out.append((tablespace, filename, row))
    return out


def name_width(section: Section) -> int | None:
    """The width of the Filename column ("Tablespace  Filename" over its dashes), when printed."""
    for index, line in enumerate(section.lines[:-1]):
        if line.startswith("Tablespace") and "Filename" in line and _DASHES.match(section.lines[index + 1]):
            runs = spans(section.lines[index + 1])
            return runs[1][1] - runs[1][0] if len(runs) > 1 else None
    return None
