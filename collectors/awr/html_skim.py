"""Find the tables of an AWR HTML page whose rows no importer reads, before the page is parsed.

The standard library's HTML parser tokenizes every tag and cell in Python, about 1.2 MiB/s,
and a big report is mostly the rows of sections nothing reads (SQL text, Top Sessions, ...):
a 64 MiB report took 51 s. A regular expression, at the speed of C, finds each table, the
heading above it and its ``summary``; a table whose rows :func:`rows_read` says are not read,
and which names no standard block size, has its rows handed to the parser as their newlines
only, so every line number the parser reports stays the page's own.

The skim is a guess the parser checks: the parser knows each table's heading and summary as
it reads them, and when a table the skim left out turns out to be one whose rows are read
(a heading the expression read differently), the page is parsed again whole
(:func:`advisor.collectors.awr.html.blocks`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_TOKEN = re.compile(r"<(/?)(h[123]|table)\b[^<>]{0,512}>", re.IGNORECASE)
"""A heading's or a table's opening or closing tag. A tag is read up to the next ``<`` at most, so
every character of the page is looked at a bounded number of times, whatever it holds: a hostile
report of tags that never close costs no more than a report (a tag the skim does not read as one
is left to the parser)."""
LONGEST_HEADING = 4096
"""A heading longer than this is not read by the skim (the parser's check covers what it then misjudges)."""
_SUMMARY = re.compile(r"""\bsummary\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_HEADER_CELL = re.compile(r"<th\b", re.IGNORECASE)
_ROW_END = re.compile(r"</tr\s*>", re.IGNORECASE)
KEPT_CELL = "Std Block Size"
"""A cell the page-wide block size is read from, in whichever table it is (html.py ``_header``)."""
SMALLEST_SKIPPED = 4096
"""Tables shorter than this are left to the parser: skimming them saves nothing worth a risk."""


@dataclass(frozen=True, slots=True)
class Skipped:
    """The rows of one table, handed to the parser as newlines: page offsets [start, end), and where
    the table's own tag is (line, column), as the parser's ``getpos`` will report it."""

    start: int
    end: int
    table_at: tuple[int, int]


def skipped_tables(page: str, rows_read: Callable[[str, str], bool]) -> list[Skipped]:
    """The tables of *page* whose rows are not read, in page order; *rows_read(heading, summary)* decides.

    Nothing of the page is copied but headings and table tags: a skipped table can be most of it."""
    found: list[Skipped] = []
    heading, heading_open = "", None  # the last heading; the open heading tag (level, where its text starts)
    table: re.Match[str] | None = None
    nested = False
    counted, line, line_start = 0, 1, 0  # lines counted up to the offset *counted*; where the last one starts
    for token in _TOKEN.finditer(page):
        closing, name = token.group(1), token.group(2).lower()
        if name != "table":
            if not closing:
                heading_open = (name, token.end())
            elif heading_open and heading_open[0] == name and token.start() - heading_open[1] <= LONGEST_HEADING:
                heading = " ".join(html.unescape(_TAG.sub("", page[heading_open[1]:token.start()])).split())
                heading_open = None
        elif not closing:
            nested = table is not None
            table = table or token
        elif table is not None:
            inside, stop, opening = table.end(), token.start(), table
            table = None
            if nested or stop - inside < SMALLEST_SKIPPED or rows_read(heading, _summary(opening.group(0))) or \
                    page.find(KEPT_CELL, inside, stop) >= 0:
                continue
            line += page.count("\n", counted, opening.start())
            line_start = max(line_start, page.rfind("\n", counted, opening.start()) + 1)
            counted = opening.start()
            found.append(Skipped(_header_row_end(page, inside, stop), stop, (line, opening.start() - line_start)))
    return found


def _summary(tag: str) -> str:
    found = _SUMMARY.search(tag)
    return html.unescape(next((g for g in found.groups() if g is not None), "")) if found else ""


def _header_row_end(page: str, inside: int, stop: int) -> int:
    """Offset just past the first row with a header cell of the table whose inside is page[inside:stop]
    (*inside* when it has none): the header is kept, as the parser would keep it; the rows after it go."""
    cell = _HEADER_CELL.search(page, inside, stop)
    row_end = _ROW_END.search(page, cell.end(), stop) if cell else None
    return row_end.end() if row_end else inside


def pieces(page: str, skipped: list[Skipped]) -> Iterator[str]:
    """*page* in the order the parser should read it: kept text as it is, each skipped span as its newlines."""
    position = 0
    for span in skipped:
        yield page[position:span.start]
        yield "\n" * page.count("\n", span.start, span.end)
        position = span.end
    yield page[position:]
