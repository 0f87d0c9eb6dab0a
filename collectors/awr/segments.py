"""The "Segments by ..." sections of AWR (HTML, text) and Statspack reports -> segment rates.

AWR prints, per statistic, the top N segments of the interval with the section's total and
"Captured Segments account for X% of Total" (AWR keeps only the top segments of each
snapshot). Columns by release: Owner, Tablespace Name, Object Name, Subobject Name,
Obj. Type (11.2), plus Obj# and Dataobj# (12.1+), plus PDB Name first in a CDB report (12.2+),
then the statistic and %Total. Statspack (level 7) prints Segments by Physical Reads with
"Pct Total" and no captured figure. A segment missing from one list has that figure unknown
(None), never zero, and the share the listed segments cover is kept per statistic in
``Workload.segment_coverages`` (``segment_coverage`` is the physical reads one). A dropped
object prints as ``** MISSING **``: its row is kept under its object number and named in a
warning.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from advisor.collectors.awr import numbers, text
from advisor.model import SegmentIO, SegmentRate, Workload
from advisor.rates.segments import segment_id, totals_rate, with_counters, without_files

if TYPE_CHECKING:
    from advisor.collectors.awr.html import Block
    from advisor.collectors.awr.sections import ReportData

STATISTICS = {
    "segments by physical reads": "physical_reads",
    "segments by physical read requests": "physical_read_requests",
    "segments by unoptimized reads": "unoptimized_read_requests",
    "segments by direct physical reads": "physical_reads_direct",
    "segments by physical writes": "physical_writes",
    "segments by physical write requests": "physical_write_requests",
    "segments by direct physical writes": "physical_writes_direct",
    "segments by table scans": "segment_scans",
}
_NAME_COLUMNS = {
    "Owner": "owner", "TablespaceName": "tablespace", "Tablespace": "tablespace", "ObjectName": "name",
    "SubobjectName": "subobject", "Obj.Type": "type", "ObjectType": "type", "Obj#": "obj", "Dataobj#": "dataobj",
    "PDBName": "container", "ContainerName": "container", "%Total": "pct", "PctTotal": "pct", "%ofTotal": "pct",
}
VALUE_HEADERS = {
    "physical_reads": ("PhysicalReads", "LogicalReads"),
    "physical_read_requests": ("PhysReadRequests", "PhysicalReadRequests", "PhysReadReqs"),
    "unoptimized_read_requests": ("UnOptimizedReads", "UnoptimizedReads", "UnOptimizedReadReqs"),
    "physical_reads_direct": ("DirectReads", "DirectPhysicalReads"),
    "physical_writes": ("PhysicalWrites",),
    "physical_write_requests": ("PhysWriteRequests", "PhysicalWriteRequests", "PhysWriteReqs"),
    "physical_writes_direct": ("DirectWrites", "DirectPhysicalWrites"),
    "segment_scans": ("TableScans", "SegmentScans"),
}
"""The header of each statistic's figure column, squashed (no blanks), as the releases print it."""
REQUIRED = ("owner", "name", "value")
MOST_IOS_PER_S = 1e8
"""More requests (or blocks) per second than this no server produces: beyond the fastest storage
systems by two orders of magnitude, so a figure above it over the interval is damage (10^22)."""
_TYPES = {"TABLE PART": "TABLE PARTITION", "INDEX PART": "INDEX PARTITION", "TABLE SUBPART": "TABLE SUBPARTITION",
          "INDEX SUBPART": "INDEX SUBPARTITION", "LOB": "LOBSEGMENT", "LOB PART": "LOB PARTITION"}
_TOTAL = re.compile(r"Total\s+[A-Za-z ]+?:\s*([\d,.]+)")
_CAPTURED = re.compile(r"Captured Segments account for\s+([\d.]+)\s*%")


@dataclass
class SegmentRow:
    """One printed row: names as printed, the statistic's value (None when unreadable)."""

    owner: str
    tablespace: str
    name: str
    subobject: str
    segment_type: str
    container: str
    object_id: int | None
    data_object_id: int | None
    value: float | None
    pct: float | None
    line: int

    @property
    def missing(self) -> bool:
        """A dropped object: AWR prints ``** MISSING **`` (or nothing) for its names."""
        return not self.name or "**" in self.name or "**" in self.owner


@dataclass
class SegmentTable:
    """One "Segments by ..." section."""

    statistic: str
    title: str
    total: float | None
    captured_pct: float | None
    rows: list[SegmentRow] = field(default_factory=list)


def _notes(lines: list[str], table: SegmentTable) -> None:
    for line in lines:
        if table.total is None and (match := _TOTAL.search(line)):
            try:
                table.total = numbers.number(match.group(1), where=f"{table.title}, its total")
            except ValueError:
                table.total = None
        if match := _CAPTURED.search(line):
            try:
                table.captured_pct = float(match.group(1))
            except ValueError:  # a damaged note ("9.0.0%"): the captured share stays unknown
                table.captured_pct = None


def _int(cell: str) -> int | None:
    try:
        found = numbers.number(cell, vote=False)  # an object number is an identifier: no say in the separator
    except ValueError:
        return None
    return None if found is None or not math.isfinite(found) else int(found)


def _row(cells: dict[str, str], line: int, statistic: str, warnings: list[str]) -> SegmentRow:
    value_cell = cells.get("value", "")
    try:
        value = numbers.number(value_cell, where=f"{statistic} line {line}, its figure column")
    except ValueError:
        value = None
    if value is not None and not math.isfinite(value):
        value = None
    name = cells.get("name", "")
    if value is None:
        warnings.append(f"{statistic} line {line}: {cells.get('owner', '')}.{name} has no readable figure "
                        f"({value_cell!r}); the row is kept with that figure unknown")
    try:
        pct = numbers.number(cells.get("pct"), where=f"{statistic} line {line}, column %Total")
    except ValueError:
        pct = None
    kind = cells.get("type", "").upper()
    return SegmentRow(
        owner=cells.get("owner", ""), tablespace=cells.get("tablespace", ""), name=name,
        subobject=cells.get("subobject", ""), segment_type=_TYPES.get(kind, kind), container=cells.get("container", ""),
        object_id=_int(cells.get("obj", "")), data_object_id=_int(cells.get("dataobj", "")), value=value, pct=pct,
        line=line,
    )


def _keys(headers: list[str], statistic: str, where: str, warnings: list[str]) -> list[str] | None:
    """Column keys by header name; None (with a warning) when a column advisor needs is absent.

    A column nobody knows is ignored (``other``), never taken for the figure: a removed or
    swapped column would otherwise turn names into figures and figures into names.
    """
    values = {v.lower() for v in VALUE_HEADERS[statistic]}
    keys = []
    for header in headers:
        squashed = "".join(header.split())
        keys.append(_NAME_COLUMNS.get(squashed) or ("value" if squashed.lower() in values else "other"))
    absent = [k for k in REQUIRED if keys.count(k) != 1]
    if absent:
        warnings.append(f"{where}: columns {', '.join(absent)} not found once each by header name (found "
                        f"{', '.join(h for h in headers if h) or 'no headers'}); the section is skipped")
        return None
    return keys


def html_sections(found: list[Block], data: ReportData) -> None:
    """Every "Segments by ..." section of a flattened AWR HTML page."""
    for index, block in enumerate(found):
        statistic = STATISTICS.get(block.text.lower()) if block.kind == "heading" else None
        if statistic is None:
            continue
        table = SegmentTable(statistic, block.text, None, None)
        notes = []
        for later in found[index + 1:]:
            if later.kind == "heading":
                break
            if later.kind == "text":
                notes.append(later.text)
                continue
            keys = _keys(later.header, statistic, f"{block.text} (HTML line {later.line})", data.warnings)
            if keys is None:
                break
            for number, cells in enumerate(later.rows, start=1):
                if len(cells) != len(keys):
                    data.warnings.append(f"{block.text} (HTML line {later.line}): row {number} has {len(cells)} "
                                         f"cells for {len(keys)} columns; skipped (truncated report?)")
                    continue
                table.rows.append(_row(dict(zip(keys, cells, strict=True)), later.line + number, block.text,
                                       data.warnings))
            break
        _notes(notes, table)
        data.segment_tables.append(table)


def text_sections(found: dict[str, text.Section], data: ReportData) -> None:
    """Every "Segments by ..." section of an AWR text or Statspack report."""
    for title, section in found.items():
        statistic = STATISTICS.get(title.lower())
        if statistic is None:
            continue
        table = SegmentTable(statistic, title, None, None)
        lines = section.lines
        _notes([line for line in lines if line.lstrip().startswith("->")], table)
        rule = next((i for i, line in enumerate(lines) if re.fullmatch(r"[- ]*-[- ]*", line)
                     and i + 1 < len(lines) and lines[i + 1].strip()), None)
        if rule is not None:
            ranges = text.spans(lines[rule])
            header_lines: list[str] = []
            index = rule - 1
            while index >= 0 and lines[index].strip() and not lines[index].lstrip().startswith("->"):
                header_lines.insert(0, lines[index])
                index -= 1
            headers = [" ".join(filter(None, (text._cut(h, ranges)[c] for h in header_lines)))
                       for c in range(len(ranges))]
            keys = _keys(headers, statistic, f"{title} line {section.line_of(rule - 1)}", data.warnings)
            for offset, line in enumerate(lines[rule + 1:] if keys is not None else [], start=rule + 2):
                if keys is None or not line.strip() or re.fullmatch(r"\s*-+\s*", line):
                    break
                cells = dict(zip(keys, text._cut(line, ranges), strict=True))
                table.rows.append(_row(cells, section.line_of(offset - 2), title, data.warnings))
        data.segment_tables.append(table)


def _segment_key(row: SegmentRow, container: str, statistic: str) -> str:
    """The segment id; a dropped object without Obj# (11.2) cannot be matched across sections."""
    if row.missing:
        return segment_id(container, None, None, None, row.object_id) if row.object_id is not None \
            else f"{container}:missing@{statistic}:line{row.line}"
    return segment_id(container, row.owner, row.name, row.subobject, row.object_id)


def report_segments(data: ReportData, block: int, interval_s: float,
                    unreadable: set[tuple[str, str]]) -> tuple[list[SegmentIO], dict[str, float], list[str]]:
    """Interval totals per segment from every section, the share each list covers, and warnings.

    (segment id, statistic) pairs whose printed figure could not be kept go into *unreadable*.
    """
    warnings: list[str] = []
    merged: dict[str, SegmentIO] = {}
    coverages: dict[str, float] = {}
    missing: list[str] = []
    for table in data.segment_tables:
        if not table.rows:
            warnings.append(f"{table.title}: no segments listed")
            continue
        listed = _listed_share(table)
        if listed is not None:
            coverages[table.statistic] = listed
        if table.captured_pct is not None:
            coverages[f"{table.statistic}:captured"] = table.captured_pct / 100
        for row in table.rows:
            container = row.container or data.db_name
            key = _segment_key(row, container, table.statistic)
            if row.missing and key not in merged:
                missing.append(f"{table.title} line {row.line}")
            value = None if row.value is None else int(round(row.value))
            if value is not None and (value < 0 or value > MOST_IOS_PER_S * interval_s):
                warnings.append(f"{table.title} line {row.line}: {row.owner}.{row.name} {row.value:,.0f} is more than "
                                f"any server does in {interval_s:,.0f} s" if value > 0 else
                                f"{table.title} line {row.line}: {row.owner}.{row.name} {row.value:,.0f} is negative")
                warnings[-1] += "; the figure is dropped (unknown)"
                value = None
            if value is None:
                unreadable.add((key, table.statistic))
            current = merged.get(key) or SegmentIO(
                segment_id=key, owner="" if row.missing else row.owner,
                name="" if row.missing else row.name, segment_type=row.segment_type,
                tablespace=row.tablespace, container=container, partition=row.subobject or None,
                block_size=block, object_id=row.object_id, data_object_id=row.data_object_id,
            )
            merged[key] = with_counters(current, {table.statistic: value})
    if missing:
        warnings.append(f"segments of dropped objects (** MISSING ** in the report) kept under their object "
                        f"numbers: {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}")
    partial = [s for s in merged.values() if any(getattr(s, t.statistic) is None for t in data.segment_tables)]
    if partial and len(data.segment_tables) > 1:
        warnings.append(f"{len(partial)} of {len(merged)} segments are absent from some lists (top N only): "
                        "those figures are unknown, not zero")
    warnings += _unmapped_tablespaces(data, merged.values())
    return list(merged.values()), coverages, warnings


def _listed_share(table: SegmentTable) -> float | None:
    shares = [r.pct for r in table.rows if r.pct is not None]
    if len(shares) == len(table.rows):
        return round(min(1.0, sum(shares) / 100), 4)
    values = [r.value for r in table.rows if r.value is not None]
    if table.total and len(values) == len(table.rows):
        return round(min(1.0, sum(values) / table.total), 4)
    return None


def _unmapped_tablespaces(data: ReportData, segments: Iterable[SegmentIO]) -> list[str]:
    if not data.files:
        return ["segments: the report has no per-file figures, so segments are tied to tablespaces only"] \
            if data.segment_tables else []
    lonely = without_files(segments, {(f.tablespace, f.pdb or data.db_name) for f in data.files})
    if not lonely:
        return []
    return [f"segments in tablespaces with no file in File IO Stats: {', '.join(lonely)}; their disk location "
            "is unknown"]


def _unknown_stays_unknown(rate: SegmentRate, unreadable: set[tuple[str, str]]) -> SegmentRate:
    """A request rate the report printed but advisor could not read stays unknown.

    The rate builder falls back to blocks when a source has no request counter (Statspack);
    a listed request figure that was unreadable is not that case.
    """
    changes: dict[str, object] = {}
    for statistic, rate_field in (("physical_read_requests", "read_iops"), ("physical_write_requests", "write_iops")):
        if (rate.segment_id, statistic) in unreadable and getattr(rate, rate_field) is not None:
            changes[rate_field] = None
    if changes:
        changes["from_blocks"] = False
        return replace(rate, **changes)  # type: ignore[arg-type]
    return rate


def with_segments(workload: Workload, data: ReportData) -> Workload:
    """*workload* plus the report's segment rates, coverage figures and warnings."""
    if not data.segment_tables:
        return workload
    block = data.block_size or 8192
    unreadable: set[tuple[str, str]] = set()
    totals, coverages, warnings = report_segments(data, block, workload.interval_s, unreadable)
    rates = tuple(_unknown_stays_unknown(totals_rate(segment, workload.interval_s), unreadable)
                  for segment in totals)
    coverage = coverages.get("physical_reads", coverages.get("physical_read_requests"))
    return replace(workload, segments=rates, segment_coverage=coverage, segment_coverages=coverages,
                   warnings=workload.warnings + tuple(warnings))
