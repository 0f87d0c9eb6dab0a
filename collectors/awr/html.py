"""AWR HTML reports: header tables, File/Tablespace IO, IOStat by Filetype, waits.

The page is flattened into blocks (headings, tables with their ``summary``, text) with the
standard library's HTML parser, after :mod:`advisor.collectors.awr.html_skim` has found the
tables whose rows no importer reads, which the parser then sees as newlines only. A section
is the blocks between its ``<h3>`` and the next heading; its first table is the data, and "No
data exists for this section of the report." (12.2 to 19c, often) means an empty section.
Columns are mapped by header text, which differs by release (Av Reads/s vs Av Rds/s, 1-bk
columns from 11.2.0.4, % Opt Reads from 12.1, PDB Name from 12.2), never by position, except
IOStat by Filetype whose two "Reqs per sec" headers only differ by position.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser

from advisor.collectors.awr import numbers
from advisor.collectors.awr.html_skim import pieces, skipped_tables
from advisor.collectors.awr.sections import (
    COLUMN_LABELS,
    LOAD_PROFILE_ROWS,
    FiletypeRow,
    ReportData,
    TablespaceRow,
    block_size_from,
    column_key,
    file_figures,
    file_row,
    optional_section,
)
from advisor.errors import BadInput


@dataclass
class Block:
    kind: str  # "heading", "table", "text"
    text: str = ""
    summary: str = ""
    rows: list[list[str]] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    line: int = 0
    row_lines: list[int] = field(default_factory=list)  # the page line where each row ends


READ_HEADINGS = frozenset({
    "File IO Stats", "Tablespace IO Stats", "IOStat by Filetype summary", "Foreground Wait Events",
    "Background Wait Events", "Foreground Wait Class", "Wait Event Histogram",
    "Database Instances Included In Report", "IOStat by File Type", "Foreground Wait Classes",  # global reports
})
"""The sections whose table rows an importer reads (with every "Segments by ..." section).
tests/oracle/test_awr_read_sections.py records what the parsers ask for and holds this list to it."""
READ_SUMMARIES = ("information", "load profile")
"""Header tables found by their summary wherever they are (instance, host, snapshot information, load profile)."""


def rows_read(heading: str, summary: str) -> bool:
    """Whether the rows of a table under *heading* with *summary* are read (else kept only if naming a block size)."""
    return heading in READ_HEADINGS or heading.lower().startswith("segments by ") or \
        any(text in summary for text in READ_SUMMARIES)


class _Flatten(HTMLParser):
    """The page as blocks; rows of tables no importer reads (SQL text, Top Sessions, ...) are not kept,
    so a big report is not held a second time as cells."""

    def __init__(self, skipped_at: frozenset[tuple[int, int]] = frozenset()) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self._skipped_at = skipped_at  # where the tables whose rows the skim left out start (line, column)
        self.misread = False  # the skim left out the rows of a table whose rows are read
        self._heading_text = ""  # the last heading: the section the page is in
        self._rows_read = False
        self._table: Block | None = None
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._row_is_header = False
        self._heading: list[str] | None = None
        self._text: list[str] = []

    def _flush_text(self) -> None:
        text = " ".join("".join(self._text).split())
        if text:
            self.blocks.append(Block("text", text, line=self.getpos()[0]))
        self._text = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h1", "h2", "h3"):
            self._flush_text()
            self._heading = []
        elif tag == "table":
            self._flush_text()
            self._table = Block("table", summary=dict(attrs).get("summary") or "", line=self.getpos()[0])
            self._rows_read = rows_read(self._heading_text, self._table.summary)
            if self._rows_read and self.getpos() in self._skipped_at:
                self.misread = True
        elif tag == "tr" and self._table is not None:
            self._row, self._row_is_header = [], False
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
            self._row_is_header = self._row_is_header or tag == "th"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self._heading_text = " ".join("".join(self._heading).split())
            self.blocks.append(Block("heading", self._heading_text, line=self.getpos()[0]))
            self._heading = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).replace("\xa0", " ").split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            if self._row_is_header and not self._table.header:
                self._table.header = self._row
            elif self._rows_read or any(cell.startswith("Std Block Size") for cell in self._row[:-1]):
                self._table.rows.append(self._row)
                self._table.row_lines.append(self.getpos()[0])
            self._row = None
        elif tag == "table" and self._table is not None:
            self.blocks.append(self._table)
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._heading is not None:
            self._heading.append(data)
        elif self._table is None:
            self._text.append(data)

    def close(self) -> None:
        super().close()
        if self._row and self._table is not None:  # truncated inside a row: keep it so its length is checked
            self._table.rows.append(self._row + ([" ".join("".join(self._cell).split())] if self._cell else []))
        if self._table is not None:  # truncated inside a table: keep what was read
            self.blocks.append(self._table)
            self._table = None
        self._flush_text()


def _flattened(chunks: Iterable[str], skipped_at: frozenset[tuple[int, int]] = frozenset()) -> _Flatten:
    parser = _Flatten(skipped_at)
    for chunk in chunks:
        parser.feed(chunk)
    parser.close()
    return parser


def closed_markup(page: str) -> str:
    """*page* with every ``<`` after its last ``>`` written ``&lt;`` (text, as the parser reads it anyway).

    The standard library's parser (measured on Python 3.11.7) scans from each ``<`` of
    markup that never closes to the end of the page, then again from the next: 10,000 copies of
    ``<table x`` took 12 s, and a few MiB of them hours. Markup that closes anywhere later is read
    in one pass, so only the tail after the last ``>`` needs this: a page cut inside a tag
    (truncated) keeps that tag's text, as the parser gave it before."""
    last = page.rfind(">")
    if page.find("<", last + 1) < 0:
        return page
    return page[:last + 1] + page[last + 1:].replace("<", "&lt;")


def blocks(page: str) -> list[Block]:
    """The page's blocks; the rows of tables nothing reads are skimmed past, and the page is read again whole
    when the parser finds that the skim left out a table it reads (html_skim's docstring)."""
    page = closed_markup(page)
    skipped = skipped_tables(page, rows_read)
    parser = _flattened(pieces(page, skipped), frozenset(s.table_at for s in skipped))
    if parser.misread:
        parser = _flattened((page,))
    return parser.blocks


def section(found: list[Block], title: str) -> tuple[Block | None, bool]:
    """(first table, present) of the section headed *title*; (None, True) when it has no data."""
    for index, block in enumerate(found):
        if block.kind == "heading" and block.text == title:
            for later in found[index + 1:]:
                if later.kind == "heading":
                    break
                if later.kind == "text" and "No data exists for this section" in later.text:
                    return None, True
                if later.kind == "table":
                    return later, True
            return None, True
    return None, False


def _table_by_summary(found: list[Block], text: str) -> Block | None:
    return next((b for b in found if b.kind == "table" and text in b.summary), None)


def _number(cell: str, where: str, line: int, *, binary: bool = False, column: str = "",
            time_unit: str = "ms") -> float | None:
    if numbers.is_overflow(cell):
        numbers.note(f"{where} (HTML line {line}): a figure printed as {cell!r} overflowed its column; left unknown")
        return None
    place = f"{where} (HTML line {line})" + (f", column {column}" if column else "")
    try:
        return numbers.number(cell, binary=binary, where=place, time_unit=time_unit)
    except ValueError:
        raise numbers.refusal(cell, place, f"{where} (HTML line {line}): {cell!r} is not a number "
                                           "(garbled report?)") from None


def _keyed_rows(table: Block, where: str) -> list[dict[str, str]]:
    keys = [column_key(h) for h in table.header]
    out = []
    for row in table.rows:
        if len(row) != len(keys):
            raise BadInput(f"{where} (HTML line {table.line}): a row has {len(row)} cells for {len(keys)} columns "
                           "(truncated or garbled report?)")
        out.append(dict(zip(keys, row, strict=True)))
    return out


def _header(found: list[Block], data: ReportData) -> None:
    info = _table_by_summary(found, "database instance information")
    if info is None or not info.rows:
        raise BadInput("AWR HTML report without its database instance table (truncated or not an AWR report?)")
    cells = dict(zip([column_key(h) for h in info.header], info.rows[0], strict=False))
    data.db_name, data.dbid, data.release = cells.get("DBName", ""), cells.get("DBId", ""), cells.get("Release", "")
    data.rac = cells.get("RAC", "NO").upper() == "YES"
    data.cdb = cells.get("CDB", "NO").upper() == "YES"
    data.instance, data.inst_num = cells.get("Instance", ""), cells.get("Instnum", "")
    data.startup_time = cells.get("StartupTime", "")
    instance = next((b for b in found if b.kind == "table" and b is not info
                     and b.summary.endswith("instance information")), None)
    if not data.instance and instance is not None and instance.rows:
        more = dict(zip([column_key(h) for h in instance.header], instance.rows[0], strict=False))
        data.instance, data.inst_num = more.get("Instance", ""), more.get("InstNum", "")
        data.startup_time = more.get("StartupTime", "")
    host = _table_by_summary(found, "host information")
    if host is not None and host.rows:
        data.host = host.rows[0][0]
    snaps = _table_by_summary(found, "snapshot information")
    for row in snaps.rows if snaps else []:
        label = row[0].rstrip(":").strip()
        if label == "Begin Snap" and len(row) > 2:
            data.begin_snap, data.begin_time = row[1], row[2]
        elif label == "End Snap" and len(row) > 2:
            data.end_snap, data.end_time = row[1], row[2]
        elif label in ("Elapsed", "DB Time") and len(row) > 2:
            minutes = _number(row[2].replace("(mins)", ""), "snapshot information", snaps.line if snaps else 0,
                              column=label)
            if minutes is not None and label == "Elapsed":
                data.elapsed_s = minutes * 60
            elif minutes is not None:
                data.db_time_s = minutes * 60
    profile = _table_by_summary(found, "load profile")
    for row in profile.rows if profile else []:
        measure = LOAD_PROFILE_ROWS.get(row[0].strip()) if len(row) > 1 else None
        value = _number(row[1], "Load Profile", profile.line if profile else 0, column=row[0]) if measure else None
        if measure and value is not None:
            data.load_profile[measure] = value
    for block in found:
        for row in block.rows if block.kind == "table" else []:
            for index, cell in enumerate(row[:-1]):
                if cell.startswith("Std Block Size"):
                    data.block_size = block_size_from(row[index + 1])


def _io(found: list[Block], data: ReportData) -> None:
    table, present = section(found, "File IO Stats")
    if present and table is None:
        data.empty_sections.append("File IO Stats")
    data.file_io_absent = not present
    if table is not None:
        for index, cells in enumerate(_keyed_rows(table, "File IO Stats")):
            line = _row_line(table, index)
            try:
                values = file_figures(
                    [k for k in cells if k not in ("tablespace", "filename", "pdb")],
                    lambda k: _number(cells[k], "File IO Stats", line,  # noqa: B023 - called here
                                      column=COLUMN_LABELS.get(k, k)),
                    f"{cells.get('filename', '')} ({cells.get('tablespace', '')})", data.warnings)
            except BadInput as exc:  # one unreadable row: the others stand, and the reconciliation shows the gap
                data.warnings.append(f"{exc.message}; {cells.get('filename', '')} ({cells.get('tablespace', '')}) "
                                     "is left out")
                data.left_out.append(cells.get("filename", ""))
                continue
            overflowed = [key for key, cell in cells.items() if numbers.is_overflow(cell)]
            data.files.append(file_row(cells.get("tablespace", ""), cells.get("filename", ""), values,
                                       cells.get("pdb") or None, line, "File IO Stats", overflowed))
    table, present = section(found, "Tablespace IO Stats")
    if present and table is None:
        data.empty_sections.append("Tablespace IO Stats")
    if table is not None:
        for index, cells in enumerate(_keyed_rows(table, "Tablespace IO Stats")):
            line = _row_line(table, index)
            values = {k: _number(v, "Tablespace IO Stats", line, column=COLUMN_LABELS.get(k, k))
                      for k, v in cells.items() if k not in ("tablespace", "pdb")}
            data.tablespaces.append(TablespaceRow(cells.get("tablespace", ""), values, cells.get("pdb") or None, line))


def _row_line(table: Block, index: int) -> int:
    """The page line of a table's row (its table's line when the row was cut off mid-way)."""
    return table.row_lines[index] if index < len(table.row_lines) else table.line


def _filetypes(found: list[Block], data: ReportData) -> None:
    table, _ = section(found, "IOStat by Filetype summary")
    for row in table.rows if table else []:
        if len(row) < 9 or row[0].upper().startswith("TOTAL"):
            continue
        v = [_number(c, "IOStat by Filetype summary", table.line if table else 0, binary=i in (1, 3, 4, 6),
                     column=(table.header[i] if table and i < len(table.header) else ""))
             for i, c in enumerate(row[1:9], start=1)]
        data.filetypes.append(FiletypeRow(row[0], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]))


def _waits(found: list[Block], data: ReportData) -> None:
    for title in ("Foreground Wait Events", "Background Wait Events"):
        table, _ = section(found, title)
        for cells in _keyed_rows(table, title) if table else []:
            waits = _number(cells.get("waits", ""), title, table.line, column="Waits") if table else None
            seconds = _number(cells.get("total_s", ""), title, table.line, column="Total Wait Time",
                              time_unit="s") if table else None
            if waits is not None and seconds is not None:
                data.events.setdefault(cells.get("event", ""), (waits, seconds))
    table, _ = section(found, "Foreground Wait Class")
    for cells in _keyed_rows(table, "Foreground Wait Class") if table else []:
        seconds = _number(cells.get("total_s", ""), "Foreground Wait Class", table.line if table else 0,
                          column="Total Wait Time", time_unit="s")
        if seconds is not None:
            data.wait_classes[cells.get("wait_class", "")] = seconds


EXADATA_NOTE = ("Exadata: the report has storage cell sections; the cells place the data on their own disks and "
                "flash, so zone placement does not apply. The IO shares and latencies still show which files and "
                "tablespaces load the storage")


def read_awr_html(page: str, path: str) -> ReportData:
    """An AWR HTML report (awrrpt.sql with report type 'html')."""
    from advisor.collectors.awr import histograms, segments

    data = ReportData(kind="awr-html", path=path)
    found = blocks(page)
    _header(found, data)
    _io(found, data)
    _filetypes(found, data)
    _waits(found, data)
    optional_section(data, "Wait Event Histogram", lambda: histograms.from_html(found, data))
    segments.html_sections(found, data)
    from advisor.collectors.awr.globalrac import exadata

    if exadata(found):
        data.exadata = True
        data.warnings.append(EXADATA_NOTE)
    if "End of Report" not in page[-2000:]:
        data.warnings.append("the report has no 'End of Report' line: it may be truncated")
    return data
