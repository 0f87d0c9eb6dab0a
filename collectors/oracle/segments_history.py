"""Per-segment IO between two stored snapshots: Statspack STATS$SEG_STAT or AWR DBA_HIST_SEG_STAT.

Statspack (snap level 7 and up) stores cumulative V$SEGSTAT values of the segments above its
thresholds at each snap, so the rate is end minus begin; a segment captured only at the end
snap is rated from zero, as sprepins.sql does (an upper bound, named in a warning). It keeps
blocks, not requests, so IOPS are upper bounds (``from_blocks``). AWR keeps the *_DELTA of the
top segments of each snapshot; the deltas of the snapshots in (begin, end] are summed as
awrrpt does. A segment outside a snapshot's top list has that snapshot's IO missing, so AWR
segment figures are lower bounds on busy-but-not-top segments and absent segments are unknown,
not cold. DBA_HIST_SEG_STAT is read only on the ``--awr`` path, which requires the user to
declare the Diagnostics Pack licence (see docs/oracle.md). A failure costs the segments only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from advisor.collectors.oracle import units
from advisor.collectors.oracle.connect import run_query
from advisor.collectors.oracle.rows import ContainersRow
from advisor.errors import AdvisorError
from advisor.model import SegmentIO, SegmentRate
from advisor.rates.segments import diff_segments, segment_id, totals_rate, with_counters


@dataclass(frozen=True, slots=True)
class SegmentNames:
    """The dictionary part every history row carries (STATS$SEG_STAT_OBJ / DBA_HIST_SEG_STAT_OBJ)."""

    snap_id: int
    ts_no: int
    obj_no: int
    dataobj_no: int
    owner: str | None
    object_name: str | None
    subobject_name: str | None
    object_type: str | None
    tablespace_name: str | None
    con_id: int = 0  # 12.1+ (AWR): the container of a CDB; 0 in a non-CDB


@dataclass(frozen=True, slots=True, kw_only=True)
class AwrSegStatRow(SegmentNames):
    """One row of ``awr_seg_stat``."""

    physical_reads_delta: int | None = None
    physical_read_requests_delta: int | None = None
    physical_reads_direct_delta: int | None = None
    physical_writes_delta: int | None = None
    physical_write_requests_delta: int | None = None
    physical_writes_direct_delta: int | None = None
    table_scans_delta: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StatspackSegStatRow(SegmentNames):
    """One row of ``statspack_seg_stat``."""

    physical_reads: int | None = None
    physical_writes: int | None = None
    direct_physical_reads: int | None = None
    direct_physical_writes: int | None = None


_AWR_COUNTERS = {
    "physical_reads": "physical_reads_delta", "physical_read_requests": "physical_read_requests_delta",
    "physical_reads_direct": "physical_reads_direct_delta", "physical_writes": "physical_writes_delta",
    "physical_write_requests": "physical_write_requests_delta",
    "physical_writes_direct": "physical_writes_direct_delta", "segment_scans": "table_scans_delta",
}
_STATSPACK_COUNTERS = {
    "physical_reads": "physical_reads", "physical_writes": "physical_writes",
    "physical_reads_direct": "direct_physical_reads", "physical_writes_direct": "direct_physical_writes",
}


def _segment(row: SegmentNames, containers: Mapping[int, str], block: int) -> SegmentIO:
    obj = units.count(row.obj_no)
    con_id = units.count(row.con_id)
    container = containers.get(con_id, containers[0] if con_id == 0 else f"con_id {con_id}")
    return SegmentIO(
        segment_id=segment_id(container, row.owner, row.object_name, row.subobject_name, obj),
        owner=str(row.owner or ""), name=str(row.object_name or ""),
        segment_type=str(row.object_type or ""), tablespace=str(row.tablespace_name or f"ts# {units.count(row.ts_no)}"),
        container=container, partition=row.subobject_name or None, block_size=block, object_id=obj,
        data_object_id=units.count(row.dataobj_no),
    )


def _summed(rows: list[Any], columns: Mapping[str, str], containers: Mapping[int, str],
            block: int) -> list[SegmentIO]:
    """One SegmentIO per segment with each counter summed over *rows* (None when every value is None)."""
    groups: dict[tuple[int, int, int], list[Any]] = defaultdict(list)
    for row in rows:
        groups[(units.count(row.con_id), units.count(row.obj_no), units.count(row.dataobj_no))].append(row)
    out = []
    for group in groups.values():
        counters: dict[str, int | None] = {}
        for field_name, column in columns.items():
            values = [getattr(r, column) for r in group if getattr(r, column) is not None]
            counters[field_name] = sum(units.count(v) for v in values) if values else None
        out.append(with_counters(_segment(group[0], containers, block), counters))
    return out


def _container_names(conn: Any, major: int, warnings: list[str]) -> dict[int, str]:
    """CON_ID -> PDB name from V$CONTAINERS (a CDB); unnamed ids stay ``con_id <n>`` with a warning."""
    try:
        return {units.count(r.con_id): str(r.name) for r in run_query(conn, ContainersRow, "containers", major)}
    except AdvisorError as exc:
        warnings.append(f"segment containers not named: {exc.one_line()}")
        return {}


def history_segments(conn: Any, source: str, major: int, binds: Mapping[str, Any], interval_s: float,
                     container: str, block: int) -> tuple[tuple[SegmentRate, ...], list[str]]:
    """Segment rates between the two snaps of *binds* from Statspack or AWR, and their warnings."""
    warnings: list[str] = []
    query = f"{source}_seg_stat"
    try:
        if source == "awr":
            awr = run_query(conn, AwrSegStatRow, query, major, binds)
        else:
            statspack = run_query(conn, StatspackSegStatRow, query, major, binds)
    except AdvisorError as exc:
        return (), [f"segment statistics not read: {exc.one_line()}"]
    containers = {0: container}
    if source == "awr":
        if any(units.count(r.con_id) for r in awr):
            containers |= _container_names(conn, major, warnings)
        totals = _summed(awr, _AWR_COUNTERS, containers, block)
        rates = tuple(totals_rate(s, interval_s) for s in totals)
        if rates:
            warnings.append("AWR keeps only the top segments of each snapshot: segment figures are sums of the "
                            "snapshots that captured them; segments absent are unknown, not cold")
        return rates, warnings
    begin, end = (binds["begin_snap"], binds["end_snap"])
    first = _summed([r for r in statspack if units.count(r.snap_id) == begin], _STATSPACK_COUNTERS, containers, block)
    last = _summed([r for r in statspack if units.count(r.snap_id) == end], _STATSPACK_COUNTERS, containers, block)
    if not last:
        return (), ["Statspack holds no segment statistics for these snaps (they need snap level 7 or higher)"]
    rates, changes = diff_segments(first, last, interval_s)
    return rates, [*warnings, *changes]
