"""Live per-segment IO: GV$SEGSTAT named from the dictionary, and the files of the top segments.

V$SEGSTAT needs no management pack. Its counters are cumulative since instance startup and
per instance, so RAC rows are summed per segment (CON_ID, OBJ#, DATAOBJ#); a new DATAOBJ#
(truncate, move) is a new segment incarnation whose counters started again, which the workload
diff detects. A segment whose object was dropped since keeps its counters under
``<container>:obj#<n>``. The files holding a segment's extents come from DBA_EXTENTS (CDB_EXTENTS
from 12.1), asked for the top segments only, one statement each under the session's call
timeout; a lookup that times out or is refused leaves the remaining segments on "their
tablespace's files" (empty ``file_ids``) and says so. Nothing here is fatal to the sample:
the file-level collection stands without segments.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from advisor.collectors.oracle import mapping, server, units
from advisor.collectors.oracle.connect import run_query
from advisor.errors import AdvisorError
from advisor.model import FileIO, SegmentIO
from advisor.rates.segments import segment_id, without_files

if TYPE_CHECKING:
    from advisor.collectors.oracle.live import LiveSample
    from advisor.collectors.oracle.rows import LiveRows

TOP_SEGMENTS = 20  # segments whose extents are looked up (by read + write requests)
DEFAULT_BUDGET_MS = 30_000  # all lookups together, when the session has no call timeout
STATISTICS = {  # V$SEGSTAT name -> SegmentIO field, in the order build_segments unpacks them
    "physical reads": "physical_reads", "physical read requests": "physical_read_requests",
    "physical reads direct": "physical_reads_direct", "physical writes": "physical_writes",
    "physical write requests": "physical_write_requests", "physical writes direct": "physical_writes_direct",
    "segment scans": "segment_scans",
}


@dataclass(frozen=True, slots=True)
class SegmentStatRow:
    """One row of ``segment_stat``: the fields are the query's column aliases."""

    inst_id: int
    ts_no: int
    obj_no: int
    dataobj_no: int
    statistic_name: str
    value: int
    owner: str | None
    object_name: str | None
    subobject_name: str | None
    object_type: str | None
    segment_type: str | None
    bytes: int | None
    blocks: int | None
    index_table_owner: str | None
    index_table: str | None
    lob_table: str | None
    lob_column: str | None
    con_id: int = 0


@dataclass(frozen=True, slots=True)
class ExtentRow:
    """One row of ``segment_extents``."""

    file_id: int
    bytes: int


def _parent(first: SegmentStatRow, kind: str) -> str | None:
    if kind.startswith("INDEX") and first.index_table:
        return f"{first.index_table_owner or first.owner}.{first.index_table}"
    if kind.startswith("LOB") and first.lob_table:
        return f"{first.owner}.{first.lob_table}"
    return None


def build_segments(rows: Sequence[Mapping[str, Any]], catalog: mapping.Catalog,
                   block_size: int) -> tuple[list[SegmentIO], list[str]]:
    """One SegmentIO per segment incarnation, counters summed over instances; warnings for dropped objects.

    The rows come one per statistic: only the first row of each segment is typed
    (:class:`SegmentStatRow`), the others only add their value (100,000 segments are 700,000 rows).
    """
    groups: dict[tuple[int, int, int], tuple[Mapping[str, Any], list[int]]] = {}
    slots = {name: index for index, name in enumerate(STATISTICS)}
    for row in rows:
        key = (row.get("con_id") or 0, row["obj_no"], row["dataobj_no"])
        entry = groups.get(key)
        if entry is None:
            # V$SEGSTAT has every statistic for every segment; the query leaves out the zeros
            entry = groups[key] = (row, [0] * len(STATISTICS))
        slot = slots.get(row["statistic_name"])
        if slot is not None:
            entry[1][slot] += int(row["value"])  # value > 0 in the query: never NULL
    segments, dropped = [], []
    for (con_id, obj, dataobj), (raw, values) in groups.items():
        first = SegmentStatRow(**raw)
        container = catalog.container(units.count(con_id))
        kind = str(first.segment_type or first.object_type or "")
        ident = segment_id(container, first.owner, first.object_name, first.subobject_name, obj)
        if first.object_name is None:
            dropped.append(ident)
        blocks = units.count(first.blocks) if first.blocks else 0
        reads, read_requests, reads_direct, writes, write_requests, writes_direct, scans = values
        segments.append(SegmentIO(
            segment_id=ident, owner=str(first.owner or ""), name=str(first.object_name or ""), segment_type=kind,
            tablespace=catalog.tablespace(units.count(first.ts_no), units.count(con_id)), container=container,
            partition=first.subobject_name or None, parent=_parent(first, kind),
            size_bytes=None if first.bytes is None else units.count(first.bytes),
            block_size=units.count(first.bytes) // blocks if blocks else block_size, object_id=units.count(obj),
            data_object_id=units.count(dataobj), physical_reads=reads, physical_read_requests=read_requests,
            physical_reads_direct=reads_direct, physical_writes=writes, physical_write_requests=write_requests,
            physical_writes_direct=writes_direct, segment_scans=scans,
        ))
    warnings = []
    if dropped:
        more = f" and {len(dropped) - 5} more" if len(dropped) > 5 else ""
        warnings.append(f"segments of objects dropped since instance startup (no dictionary entry) kept under their "
                        f"object numbers: {', '.join(sorted(dropped)[:5])}{more}")
    return sorted(segments, key=lambda s: s.segment_id), warnings


def _requests(segment: SegmentIO) -> int:
    reads = segment.physical_read_requests if segment.physical_read_requests is not None else segment.physical_reads
    writes = segment.physical_write_requests if segment.physical_write_requests is not None \
        else segment.physical_writes
    return (reads or 0) + (writes or 0)


def attach_extents(conn: Any, major: int, segments: list[SegmentIO], files: Sequence[FileIO],
                   con_ids: Mapping[str, int], top: int | None = None) -> tuple[list[SegmentIO], list[str]]:
    """The files holding the extents of the *top* (default TOP_SEGMENTS) busiest named segments, one call each.

    Each call runs under the session's call timeout, and all of them together within one such
    timeout (``conn.call_timeout``), so twenty slow lookups cannot add up to minutes.
    """
    budget_s = (getattr(conn, "call_timeout", 0) or DEFAULT_BUDGET_MS) / 1000
    started = time.monotonic()
    data_ids = {int(f.file_id.split(":")[1]): f.file_id for f in files if f.file_id.startswith("data:")}
    busiest = sorted((s for s in segments if s.name), key=_requests, reverse=True)[:top or TOP_SEGMENTS]
    found: dict[str, tuple[str, ...]] = {}
    warnings = []
    for index, segment in enumerate(busiest):
        if index and time.monotonic() - started > budget_s:
            warnings.append(f"segment files: DBA_EXTENTS lookups stopped after {budget_s:g} s (the statement "
                            f"timeout); {len(busiest) - index} of the top {len(busiest)} segments are placed by "
                            "their tablespace's files only")
            break
        binds: dict[str, Any] = {"owner": segment.owner, "segment_name": segment.name,
                                 "partition_name": segment.partition}
        if major >= 12:
            binds["con_id"] = con_ids.get(segment.container, 0)
        try:
            extents = run_query(conn, ExtentRow, "segment_extents", major, binds)
        except AdvisorError as exc:
            left = len(busiest) - index
            warnings.append(f"segment files: {exc.one_line()}; {left} of the top {len(busiest)} segments are placed "
                            "by their tablespace's files only")
            break
        per_file: dict[str, int] = defaultdict(int)
        for extent in extents:
            number = units.count(extent.file_id)
            per_file[data_ids.get(number, f"data:{number}")] += units.count(extent.bytes)
        found[segment.segment_id] = tuple(sorted(per_file, key=lambda k: -per_file[k]))
    result = [replace(s, file_ids=found[s.segment_id]) if s.segment_id in found else s for s in segments]
    return result, warnings


def unmapped(segments: Sequence[SegmentIO], files: Sequence[FileIO]) -> list[str]:
    """A warning for segments whose tablespace has no data file among *files*."""
    lonely = without_files(segments, {(f.tablespace, f.container) for f in files})
    if not lonely:
        return []
    return [f"segments in tablespaces with no visible data file: {', '.join(lonely)}; their disk location is unknown"]


def add_live_segments(conn: Any, rows: LiveRows, sample: LiveSample) -> None:
    """Read GV$SEGSTAT and the top segments' files into *sample*; a failure is a warning, never fatal."""
    major = units.version_num(str(getattr(conn, "version", "") or "0")) // 10000
    catalog = mapping.Catalog(sample.server.name, rows.containers, rows.tablespace, rows.tablespace_contents)
    block = int(server.parameters(rows.parameter).get("db_block_size") or 8192)
    try:
        stat_rows = run_query(conn, dict, "segment_stat", major)  # 700,000 rows for 100,000 segments
    except AdvisorError as exc:
        sample.warnings.append(f"segment statistics not collected: {exc.one_line()}")
        return
    segments, warnings = build_segments(stat_rows, catalog, block)
    con_ids = {name: con_id for con_id, name in catalog.containers.items()}
    segments, more = attach_extents(conn, major, segments, sample.files, con_ids)
    sample.segments = segments
    data_files = [f for f in sample.files if f.kind in ("data", "undo")]
    sample.warnings.extend(warnings + more + unmapped(segments, data_files))
