"""Disk maps for ``advisor audit``: per disk, from the outer edge (0) to the inner edge (1),
where each partition and each database area sits, and how much of the IO it takes.

Built from a :class:`~advisor.model.Workload` (two snapshots diffed, or one snapshot as a
diff against a zero baseline, :func:`advisor.rates.workload.since_start`; :func:`audit_workload`
chooses), so counters become rates in one place and a counter that went backwards is
treated by the workload's rule. Areas are the engine's
(:func:`advisor.engine.areas.area_key`). Heat is IO per second over an interval, or each
area's share of all IO since the counters started (*cumulative*). Renderers only draw the
rows (:mod:`advisor.render.diskmap`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from advisor.engine.areas import area_key
from advisor.engine.calibrate import calibrate_reads
from advisor.errors import BadInput
from advisor.model import (
    AuditMaps,
    AuditReport,
    DiskMap,
    DiskStat,
    DiskStatRate,
    FileRate,
    HostLayout,
    Location,
    MapRow,
    Snapshot,
    Workload,
)

if TYPE_CHECKING:
    from advisor.engine.advise import Models


def area_label(rate: FileRate) -> str:
    """The engine's area of a file, as a DBA names it on a map.

    >>> from advisor.model import FileRate
    >>> def rate(kind: str, tablespace: str) -> FileRate:
    ...     return FileRate("1", "/p", kind, tablespace, "db", 0, 0.0, None, 0.0, None, *[None] * 5)
    >>> area_label(rate("index", "fast")), area_label(rate("temp", "pg_default")), area_label(rate("redo", ""))
    ('tablespace fast', 'temp (pg_default)', 'redo')
    """
    kind, name = area_key(rate)
    if kind in ("tablespace", "undo"):
        return f"{kind} {name}"
    if kind == "temp":
        return f"temp ({name})"
    return name


def file_io(workload: Workload, cumulative: bool) -> dict[str, float]:
    """Reads + writes per file: per second, or (*cumulative*) as counts over the interval."""
    scale = workload.interval_s if cumulative else 1.0
    io = {r.file_id: (r.read_iops + (r.write_iops or 0.0)) * scale for r in workload.rates}
    return {k: float(round(v)) for k, v in io.items()} if cumulative else io


def _union(locations: Sequence[Location]) -> tuple[float | None, float | None, float | None, bool, str]:
    placed = [loc for loc in locations if loc.zone_start is not None and loc.zone_end is not None]
    known = all(loc.placement_known for loc in locations) and bool(placed)
    reasons = sorted({loc.reason for loc in locations if loc.reason and not loc.placement_known})
    if not placed:
        return None, None, None, False, "; ".join(reasons) or "no data blocks"
    weights = [max(loc.size_bytes, 1) for loc in placed]
    mean = sum((loc.zone_mean or 0.0) * w for loc, w in zip(placed, weights, strict=True)) / sum(weights)
    start = min(loc.zone_start for loc in placed if loc.zone_start is not None)
    end = max(loc.zone_end for loc in placed if loc.zone_end is not None)
    return start, end, mean, known, "; ".join(reasons)


def _partition_io(stats: Sequence[DiskStat] | None, rates: Sequence[DiskStatRate] | None) -> dict[str, float]:
    if rates:
        return {r.name: r.r_s + r.w_s for r in rates}
    return {s.name: float(s.reads + s.writes) for s in stats or ()}


def _area_rows(layout: HostLayout, rates: Sequence[FileRate],
               io_by_file: dict[str, float]) -> tuple[dict[str, list[MapRow]], list[MapRow]]:
    """Area rows per disk, and those with no single disk; share = the area's part of all the
    database's IO (over an interval as well as since the start: the same ratio of the same counters)."""
    by_path = {loc.path: loc for loc in layout.locations}
    groups: dict[str, list[FileRate]] = {}
    for rate in rates:
        groups.setdefault(area_label(rate), []).append(rate)
    total_io = sum(io_by_file.values()) or 1.0
    on_disk: dict[str, list[MapRow]] = {}
    unplaced: list[MapRow] = []
    for label, members in sorted(groups.items()):
        locations = [by_path[f.path] for f in members if f.path in by_path]
        io = sum(io_by_file.get(f.file_id, 0.0) for f in members)
        start, end, mean, known, reason = _union(locations)
        disks = {loc.disk for loc in locations if loc.disk is not None and loc.zone_start is not None}
        detail = f"{len(members)} file" + ("s" if len(members) != 1 else "")
        row = MapRow("area", label, start, end, mean, io, share=io / total_io,
                     detail=detail if not reason else f"{detail}; {reason}", placement_known=known)
        if len(disks) == 1 and start is not None:
            on_disk.setdefault(disks.pop(), []).append(row)
            continue
        if len(disks) > 1:
            row = MapRow("area", label, None, None, None, io, share=row.share,
                         detail=f"{detail}; spread over disks {', '.join(sorted(disks))}", placement_known=False)
        unplaced.append(row)
    return on_disk, unplaced


def build_audit_maps(workload: Workload, *, cumulative: bool = False, cache_kept: bool = True) -> AuditMaps:
    """Rows for every disk of the workload's layout: its partitions and the areas placed on it.

    *cumulative* reads the workload as counters since they started (one snapshot): heat is
    each area's share of all IO, partitions take the kernel's cumulative diskstats. The
    areas' IO is the calibrated rates' (:func:`advisor.engine.calibrate.calibrate_reads`, with
    *cache_kept* as ``--cache``), the figures the report's tables and findings use, so a map
    never shows buffer misses the page cache served beside an Areas table without them.
    """
    layout = workload.layout
    if layout is None:
        return AuditMaps((), (), "IO (cumulative)" if cumulative else "IO/s")
    workload = replace(workload, rates=calibrate_reads(workload, cache_kept).rates)
    io_by_file = file_io(workload, cumulative)
    area_rows, unplaced = _area_rows(layout, workload.rates, io_by_file)
    part_io = _partition_io(layout.diskstats if cumulative else None, workload.diskstats)
    hottest_area = max([r.io for rows in area_rows.values() for r in rows] + [r.io for r in unplaced] + [0.0]) or 1.0
    hottest_part = max([part_io.get(p.name, 0.0) for p in layout.partitions if p.name != p.disk] + [0.0]) or 1.0
    maps = []
    for device in layout.devices:
        size = device.size_bytes or 1
        disk_io = part_io.get(device.name, 0.0) or 1.0  # partitions' share of their own disk's IO
        measured = part_io.get(device.name, 0.0) > 0  # no IO counted on the disk: a share means nothing
        parts = []
        for part in sorted((p for p in layout.partitions if p.disk == device.name), key=lambda p: p.start_bytes):
            io = part_io.get(part.name, 0.0)
            where = ", ".join(part.mountpoints) or "not mounted"
            misaligned = "" if part.aligned in (True, None) else "; misaligned"
            heat = io / (disk_io if part.name == part.disk else hottest_part)
            parts.append(MapRow("partition", part.name, part.start_bytes / size,
                                (part.start_bytes + part.size_bytes) / size, None, io, min(heat, 1.0),
                                min(io / disk_io, 1.0) if measured and part.name in part_io else None,
                                f"{part.fstype or '?'} {where}{misaligned}",
                                device.placement_known))
        areas = [replace(r, heat=r.io / hottest_area) for r in area_rows.get(device.name, [])]
        areas.sort(key=lambda r: r.mean if r.mean is not None else 2.0)
        maps.append(DiskMap(device, tuple(parts), tuple(areas)))
    return AuditMaps(tuple(maps), tuple(replace(r, heat=r.io / hottest_area) for r in unplaced),
                     "IO (cumulative)" if cumulative else "IO/s", None if cumulative else workload.interval_s,
                     layout.warnings)


def audit_workload(snapshots: Sequence[Snapshot]) -> Workload:
    """The workload an audit judges: the rates of the first and last snapshot (resets accepted
    as warnings, another server refused), or of one snapshot since the server started.

    Raises :class:`BadInput` when the last snapshot has no host layout (nothing to map), with
    what the host collector said.
    """
    from advisor.rates.workload import diff, since_start

    if not snapshots:
        raise BadInput("no snapshot to audit")
    last = snapshots[-1]
    if last.layout is None:
        runs = "; ".join(f"{r.name}: {r.status} {r.reason or ''}".strip() for r in last.runs if r.name == "host")
        raise BadInput(f"the snapshot has no host layout ({runs or 'host collector did not run'})",
                       hint="collect on the database host")
    if len(snapshots) == 1:
        return since_start(last)
    return diff(snapshots[0], last, allow_reset=True, always_refuse=("identity",))


def build_audit(snapshots: Sequence[Snapshot], models: Models) -> AuditReport:
    """Disk maps of the last snapshot (heat from the pair when there are two, else each area's
    share since the counters started) and the findings for the layout as it is under *models*."""
    from advisor.engine.advise import audit_findings

    workload = audit_workload(snapshots)
    maps = build_audit_maps(workload, cumulative=len(snapshots) == 1)
    return AuditReport(snapshots[-1].server, snapshots[-1].taken_at, maps, tuple(audit_findings(workload, models)))
