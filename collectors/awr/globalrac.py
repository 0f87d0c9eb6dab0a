"""Global RAC reports (awrgrpt.sql, HTML): one workload of the database, each instance's share kept.

A global report covers every instance of a RAC database over the same snapshots. It prints no
per-file or per-tablespace figures; what a placement can use is per instance and file type:
"IOStat by File Type" (an ``I#`` column, the instance number printed on its first row only,
service times with unit suffixes such as ``2.72ms`` and ``588.48us``), the instances' elapsed
time and DB time ("Database Instances Included In Report"), and the foreground IO wait
("Foreground Wait Classes"). The builder sums the instances into one row per file type.
Sections the import does not need (Global Activity Load Profile, IO Profile (Global), IOStat by
Function, Time Model, the Exadata cell and flash sections) are not read, so a layout change
there never refuses the report; the Exadata sections are only noted as present.
"""

from __future__ import annotations

import datetime as dt
import re

from advisor.collectors.awr.html import Block, _keyed_rows, _number, _row_line, _table_by_summary, blocks, section
from advisor.collectors.awr.sections import FiletypeRow, InstanceRow, ReportData, column_key
from advisor.errors import BadInput

INSTANCES_TITLE = "Database Instances Included In Report"
FILETYPE_TITLE = "IOStat by File Type"
WAIT_CLASS_TITLE = "Foreground Wait Classes"
EXADATA_MARKERS = ("Exadata", "Cell Server", "Smart Scan", "Flash Cache")
"""Headings that only an Exadata report prints (the storage cells' own statistics)."""
TOTAL_ROWS = ("SUM", "TOTAL", "AVG", "STD")
GLOBAL_FILETYPE_CELLS = ("Reads: Data", "Reqs per sec", "Data per sec", "Writes: Data", "Reqs per sec",
                         "Data per sec", "Small Read", "Large Read")
"""The IOStat by File Type columns after I# and Filetype Name, by position (two share a header)."""


def exadata(found: list[Block]) -> bool:
    """Whether the report prints Exadata storage cell sections (headings only an Exadata system has)."""
    return any(b.kind == "heading" and any(m in b.text for m in EXADATA_MARKERS) for b in found)


def _instance_number(cell: str, where: str, line: int) -> int | None:
    """An ``I#`` cell: the instance number, None when blank (the row continues the instance above)."""
    text = cell.strip()
    if not text:
        return None
    if not text.isdigit() or len(text) > 4:
        raise BadInput(f"{where} (HTML line {line}): I# {text!r} is not an instance number (garbled report?)")
    return int(text)


def _inst(cells: dict[str, str]) -> str:
    """The instance number cell, headed ``I#`` (19c) or ``Inst#``/``Inst Num`` in other releases."""
    return next((cells[key] for key in ("I#", "Inst#", "InstNum", "Instnum") if key in cells), "")


def _report_time(text: str) -> str:
    for pattern in ("%d-%b-%y %H:%M:%S", "%d-%b-%y %H:%M"):
        try:
            return dt.datetime.strptime(text.strip(), pattern).strftime("%d-%b-%y %H:%M:%S")
        except ValueError:
            continue
    return text.strip()


def _instances(found: list[Block], data: ReportData) -> None:
    table, _ = section(found, INSTANCES_TITLE)
    if table is None:
        raise BadInput(f"{data.path}: global RAC report without '{INSTANCES_TITLE}' (truncated report?)")
    for index, cells in enumerate(_keyed_rows(table, INSTANCES_TITLE)):
        line = _row_line(table, index)
        number = _instance_number(_inst(cells), INSTANCES_TITLE, line)
        if number is None:
            continue  # a Sum/Avg line under the instances
        elapsed = _number(cells.get("ElapsedTime(min)", ""), INSTANCES_TITLE, line, column="Elapsed Time(min)")
        db_time = _number(cells.get("DBtime(min)", ""), INSTANCES_TITLE, line, column="DB time(min)")
        data.instances.append(InstanceRow(
            number, cells.get("Instance", ""), cells.get("Host", ""), _report_time(cells.get("BeginSnapTime", "")),
            _report_time(cells.get("EndSnapTime", "")), None if elapsed is None else elapsed * 60,
            None if db_time is None else db_time * 60))
        if not data.release:
            data.release = cells.get("Release", "")
        if not data.startup_time:
            data.startup_time = cells.get("Startup", "")
    if not data.instances:
        raise BadInput(f"{data.path}: '{INSTANCES_TITLE}' lists no instance (truncated report?)")


def _filetypes(found: list[Block], data: ReportData) -> None:
    table, present = section(found, FILETYPE_TITLE)
    if table is None:
        if present:
            data.empty_sections.append(FILETYPE_TITLE)
        return
    instance: int | None = None
    for index, row in enumerate(table.rows):
        line = _row_line(table, index)
        if len(row) != 2 + len(GLOBAL_FILETYPE_CELLS):
            raise BadInput(f"{FILETYPE_TITLE} (HTML line {line}): a row has {len(row)} cells for "
                           f"{2 + len(GLOBAL_FILETYPE_CELLS)} columns (truncated or garbled report?)")
        if row[0].strip().upper() in TOTAL_ROWS or row[1].strip().upper() in TOTAL_ROWS:
            continue  # the database's sum: recomputed from the instances, never counted twice
        instance = _instance_number(row[0], FILETYPE_TITLE, line) or instance
        if instance is None:
            raise BadInput(f"{FILETYPE_TITLE} (HTML line {line}): {row[1]!r} has no instance number (I#)")
        v = [_number(cell, FILETYPE_TITLE, line, binary=i in (0, 2, 3, 5), column=GLOBAL_FILETYPE_CELLS[i])
             for i, cell in enumerate(row[2:])]
        data.filetypes.append(FiletypeRow(row[1], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], instance))


def _wait_classes(found: list[Block], data: ReportData) -> None:
    """Per instance the foreground User I/O and System I/O seconds ("Foreground Wait Classes")."""
    table, _ = section(found, WAIT_CLASS_TITLE)
    if table is None:
        return
    by_number = {i.number: i for i in data.instances}
    keys = [column_key(h) for h in table.header]
    io_columns = [k for k in keys if k.startswith(("UserI/O", "SysI/O", "SystemI/O"))]
    for index, cells in enumerate(_keyed_rows(table, WAIT_CLASS_TITLE)):
        line = _row_line(table, index)
        number = _instance_number(_inst(cells), WAIT_CLASS_TITLE, line) \
            if _inst(cells).strip().upper() not in TOTAL_ROWS else None
        if number is None or number not in by_number or not io_columns:
            continue
        seconds = [_number(cells[k], WAIT_CLASS_TITLE, line, column=k, time_unit="s") for k in io_columns]
        by_number[number].io_wait_s = None if any(s is None for s in seconds) else sum(s or 0.0 for s in seconds)


def _header(found: list[Block], data: ReportData, page_head: str) -> None:
    info = _table_by_summary(found, "database information") or _table_by_summary(found, "instance information")
    if info is None or not info.rows:
        raise BadInput(f"{data.path}: global RAC report without its database table (truncated report?)")
    cells = dict(zip([column_key(h) for h in info.header], info.rows[0], strict=False))
    data.db_name, data.dbid = cells.get("DBName", ""), cells.get("DBId", "")
    data.release = cells.get("Release", "")
    data.cdb = cells.get("CDB", "NO").upper() == "YES"
    data.rac = True
    if snaps := re.search(r"Snaps:\s*(\d+)\s*-\s*(\d+)", page_head):
        data.begin_snap, data.end_snap = snaps.groups()


def read_awr_global(page: str, path: str) -> ReportData:
    """A global RAC report (awrgrpt.sql with report type 'html')."""
    data = ReportData(kind="awr-global", path=path)
    found = blocks(page)
    _header(found, data, page[:4096])
    _instances(found, data)
    _filetypes(found, data)
    _wait_classes(found, data)
    data.exadata = exadata(found)
    longest = max(data.instances, key=lambda i: i.elapsed_s or 0.0)
    data.elapsed_s, data.begin_time, data.end_time = longest.elapsed_s, longest.begin_time, longest.end_time
    data.instance = ",".join(i.name for i in data.instances)
    data.host = ",".join(dict.fromkeys(i.host for i in data.instances if i.host))
    known = [i.db_time_s for i in data.instances]
    data.db_time_s = None if any(t is None for t in known) else sum(t or 0.0 for t in known)
    waits = [i.io_wait_s for i in data.instances]
    if waits and all(w is not None for w in waits):
        data.wait_classes = {"User I/O": sum(w or 0.0 for w in waits)}
    if "End of Report" not in page[-2000:]:
        data.warnings.append("the report has no 'End of Report' line: it may be truncated")
    return data
