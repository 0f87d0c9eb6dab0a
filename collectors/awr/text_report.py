"""What an AWR text or Statspack report says, read section by section from its SQL*Plus grids.

:mod:`advisor.collectors.awr.text` finds the sections and cuts their grids into rows; this
module turns them into the report's figures: the header facts (DB id, instance, release,
snaps, elapsed and DB time, block size, the Load Profile's IO requests), File and Tablespace
IO Stats, IOStat by Filetype, the wait events and classes. Statspack reads the same sections
with :mod:`advisor.collectors.awr.statspack`.
"""

from __future__ import annotations

import re
from itertools import islice

from advisor.collectors.awr import numbers
from advisor.collectors.awr.sections import (
    LOAD_PROFILE_ROWS,
    ReportData,
    block_size_from,
    column_key,
    optional_section,
)
from advisor.collectors.awr.text import (
    _DASHES,
    TITLE,
    Row,
    Section,
    _cut,
    file_grid_rows,
    grid,
    name_width,
    sections,
    spans,
    split_lines,
    value,
)
from advisor.errors import BadInput


def header_facts(text: str, data: ReportData) -> None:
    """DB id, instance, release, RAC, snaps, times, elapsed, DB time and block size from the header."""
    window: list[str] = []  # a line and the two after it: the report is not split into a list of lines
    for following in split_lines(text):
        window.append(following)
        if len(window) < 3:
            continue
        line = window[0]
        if "DB Id" in line and "Release" in line:
            ranges = spans(window[1])
            heads = [column_key(c) for c in _cut(line, ranges)]
            cells = dict(zip(heads, _cut(window[2], ranges), strict=True))
            data.db_name = data.db_name or cells.get("DBName", "") or cells.get("Database", "")
            data.dbid = cells.get("DBId", "")
            data.instance = cells.get("Instance", "")
            data.inst_num = cells.get("InstNum", "")
            data.startup_time = cells.get("StartupTime", "")
            data.release = cells.get("Release", "")
            data.rac = cells.get("RAC", "NO").upper() == "YES"
            break
        del window[0]
    lines = list(islice(split_lines(text), 80))  # the header's own lines
    for index, line in enumerate(lines[:60]):
        if line.startswith("Host Name") and index + 2 < len(lines) and _DASHES.match(lines[index + 1]):
            tokens = lines[index + 2].split()
            data.host = tokens[0] if tokens else ""
    for line in lines[:80]:
        if match := re.match(r"^\s*Begin Snap:\s+(\d+)\s+(\d\d-\w{3}-\d\d \d\d:\d\d:\d\d)", line):
            data.begin_snap, data.begin_time = match.groups()
        elif match := re.match(r"^\s*End Snap:\s+(\d+)\s+(\d\d-\w{3}-\d\d \d\d:\d\d:\d\d)", line):
            data.end_snap, data.end_time = match.groups()
        elif match := re.match(r"^\s*Elapsed:\s+(\S+)\s+\(mins\)", line):
            data.elapsed_s = _minutes(match.group(1), "Elapsed")
        elif match := re.match(r"^\s*DB [Tt]ime:\s+(\S+)\s+\(mins\)", line):
            data.db_time_s = _minutes(match.group(1), "DB Time")
        if match := re.search(r"Std Block Size:\s+(\S+)", line):
            data.block_size = block_size_from(match.group(1))
        if (match := re.match(r"^\s*((?:Read|Write) IO requests:)\s+(\S+)", line)) \
                and match.group(1) in LOAD_PROFILE_ROWS:
            try:
                per_s = numbers.number(match.group(2), where=f"Load Profile, {match.group(1).rstrip(':')}")
            except ValueError:
                data.warnings.append(f"Load Profile: {match.group(1)} {match.group(2)!r} is not a number; the files "
                                     "are not checked against it")
                per_s = None
            if per_s is not None:
                data.load_profile[LOAD_PROFILE_ROWS[match.group(1)]] = per_s
    # the first section title (what sections() would start with), found without sectioning the whole report
    first_title = next((line for line in split_lines(text) if TITLE.match(line)), None)
    if first_title is not None:
        match = TITLE.match(first_title)
        if match:
            data.db_name = data.db_name or match.group("db")
            data.instance = data.instance or match.group("inst")


def _minutes(cell: str, label: str) -> float | None:
    """A header figure in minutes, as seconds; BadInput naming it when it is not a number."""
    try:
        minutes = numbers.number(cell, where=f"the report header, {label}")
    except ValueError:
        raise BadInput(f"report header: {label} {cell!r} is not a number of minutes") from None
    return None if minutes is None else minutes * 60


def events(found: dict[str, Section], titles: tuple[str, ...], data: ReportData) -> None:
    """Wait events (waits, total seconds) from the named sections."""
    for title in titles:
        if title not in found:
            continue
        table = grid(found[title])
        for row in table.rows:
            waits = value(row, "waits", title)
            seconds = value(row, "total_s", title)
            if row.label and waits is not None and seconds is not None:
                data.events.setdefault(row.label, (waits, seconds))


def io_sections(found: dict[str, Section], data: ReportData) -> None:
    """File IO Stats (source of truth) and Tablespace IO Stats of a text report."""
    from advisor.collectors.awr.sections import TablespaceRow, file_figures, file_row

    data.file_io_absent = "File IO Stats" not in found
    if "File IO Stats" in found:
        section = found["File IO Stats"]
        if _no_data(section):
            data.empty_sections.append("File IO Stats")
        else:
            width, seen = name_width(section), set[str]()
            for tablespace, filename, row in file_grid_rows(grid(section)):
                try:
                    cells = file_figures([k for k in row.cells if k != "max_read_bucket"],
                                         lambda key: value(row, key, "File IO Stats"),  # noqa: B023 - called here
                                         f"{filename} ({tablespace})", data.warnings)
                except BadInput as exc:  # one unreadable row: the others stand, and the gap shows
                    data.warnings.append(f"{exc.message}; {filename} ({tablespace}) is left out")
                    data.left_out.append(filename)
                    continue
                if width and len(filename) == width:  # longer: wrapped and joined; exactly: perhaps cut
                    filename = _truncated(filename, tablespace, row.line, seen, data)
                seen.add(filename)
                overflowed = [key for key, cell in row.cells.items() if numbers.is_overflow(cell)]
                data.files.append(file_row(tablespace, filename, cells, None, row.line, "File IO Stats", overflowed))
    if "Tablespace IO Stats" in found:
        section = found["Tablespace IO Stats"]
        if _no_data(section):
            data.empty_sections.append("Tablespace IO Stats")
        else:
            for row in grid(section).rows:
                try:
                    cells = {key: value(row, key, "Tablespace IO Stats") for key in row.cells}
                except BadInput as exc:  # the files stand; only this tablespace goes unchecked
                    data.warnings.append(f"{exc.message}; {row.label} is not checked against its files")
                    continue
                data.tablespaces.append(TablespaceRow(row.label, cells, None, row.line))


def _truncated(filename: str, tablespace: str, line: int, seen: set[str], data: ReportData) -> str:
    """A file name that fills its column was probably cut; two such cut names stay two files."""
    name = filename
    if name in seen:
        name = next(f"{filename} [{n}]" for n in range(2, 10_000) if f"{filename} [{n}]" not in seen)
    data.warnings.append(f"File IO Stats line {line}: the name of a {tablespace} file fills its column and may be "
                         f"cut short ({filename!r})" + (f"; kept as {name!r}, apart from the file of the same "
                                                        "printed name" if name != filename else ""))
    return name


def _no_data(section: Section) -> bool:
    return any("No data exists for this section" in line for line in section.lines[:8])


FILETYPE_CELLS = ("Reads: Data", "Reads: Reqs per sec", "Reads: Data per sec", "Writes: Data",
                  "Writes: Reqs per sec", "Writes: Data per sec", "Small Read", "Large Read")
"""The IOStat by Filetype summary columns advisor reads, by position (two share a header)."""


def filetype_section(found: dict[str, Section], data: ReportData) -> None:
    """IOStat by Filetype summary: columns by position (two 'Reqs per sec' headers)."""
    from advisor.collectors.awr.sections import FiletypeRow

    title = "IOStat by Filetype summary"
    if title not in found or _no_data(found[title]):
        return
    table = grid(found[title])
    for row in table.rows:
        raw = row.raw
        if len(raw) < 9 or not row.label or row.label.upper().startswith("TOTAL"):
            continue
        v: list[float | None] = [None]
        for index, name in enumerate(FILETYPE_CELLS, start=1):
            v.append(value(Row(row.label, {name: raw[index]}, row.line), name, title, binary=index in (1, 3, 4, 6)))
        data.filetypes.append(FiletypeRow(row.label, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]))


def wait_classes(found: dict[str, Section], data: ReportData) -> None:
    """Foreground Wait Class: total seconds per class."""
    title = "Foreground Wait Class"
    if title not in found:
        return
    for row in grid(found[title]).rows:
        seconds = value(row, "total_s", title)
        if row.label and seconds is not None:
            data.wait_classes[row.label] = seconds


def read_awr_text(text: str, path: str) -> ReportData:
    """An AWR text report (awrrpt.sql with report type 'text')."""
    from advisor.collectors.awr import histograms, segments

    data = ReportData(kind="awr-text", path=path)
    header_facts(text, data)
    found = sections(text)
    io_sections(found, data)
    filetype_section(found, data)
    events(found, ("Foreground Wait Events", "Background Wait Events"), data)
    wait_classes(found, data)
    optional_section(data, "Wait Event Histogram", lambda: histograms.from_text(found, data))
    segments.text_sections(found, data)
    return data
