"""Disk maps: per disk, from the outer edge (0) to the inner edge (1), where each partition
and each database area (tablespace, WAL, temp, archive) sits, coloured by IO heat.

:func:`build_disk_maps` is pure (layout + files + heat → rows) so it is tested without a
terminal and reused by the report renderers; :func:`render_disk_maps` draws the rows with
rich. Heat is IO operations per second when two snapshots are given, otherwise each area's
share of all cumulative IO since the counters started.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from advisor.model import Device, DiskStat, DiskStatRate, FileIO, HostLayout, Location

if TYPE_CHECKING:
    from rich.console import RenderableType

AREA_KINDS = {"wal": "WAL", "redo": "redo", "archive": "archive", "fra": "FRA", "control": "control files"}


@dataclass(frozen=True, slots=True)
class MapRow:
    """One bar of a disk map: a partition or a database area, as fractions of the disk."""

    kind: str  # "partition" | "area"
    label: str
    start: float | None
    end: float | None
    mean: float | None = None
    io: float = 0.0  # ops/s (rates) or cumulative ops (shares)
    heat: float = 0.0  # io relative to the hottest row of the same kind on any disk (0..1)
    share: float | None = None  # share of all IO (cumulative mode)
    detail: str = ""
    placement_known: bool = True


@dataclass(frozen=True, slots=True)
class DiskMap:
    """Rows of one disk, partitions first (by start), then areas (by mean position)."""

    disk: Device
    partitions: tuple[MapRow, ...]
    areas: tuple[MapRow, ...]


@dataclass(frozen=True, slots=True)
class AuditMaps:
    """All disk maps plus the areas that could not be placed on any disk."""

    maps: tuple[DiskMap, ...]
    unplaced: tuple[MapRow, ...]
    heat_unit: str  # "IO/s" or "IO (cumulative)"
    interval_s: float | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)


def area_of(file: FileIO) -> str:
    """The area a file belongs to, as a DBA names it.

    >>> area_of(FileIO("x", "/p", "index", "fast", "db", 0, 0, None, 0, None))
    'tablespace fast'
    >>> area_of(FileIO("t", "/t", "temp", "pg_default", "", 0, 0, None, 0, None))
    'temp (pg_default)'
    """
    if file.kind in AREA_KINDS:
        return AREA_KINDS[file.kind]
    if file.kind == "temp":
        return f"temp ({file.tablespace})"
    return f"tablespace {file.tablespace}"


def file_io(files: Iterable[FileIO]) -> dict[str, float]:
    """Cumulative reads + writes per file_id (writes None counts as 0)."""
    return {f.file_id: float(f.reads + (f.writes or 0)) for f in files}


def file_io_rates(before: Iterable[FileIO], after: Iterable[FileIO], seconds: float) -> dict[str, float]:
    """IO operations per second per file_id; a counter that went backwards counts from 0.

    >>> a = [FileIO("1", "/p", "data", "t", "d", 0, 10, 5, 0, None)]
    >>> b = [FileIO("1", "/p", "data", "t", "d", 0, 30, 25, 0, None)]
    >>> file_io_rates(a, b, 10.0)
    {'1': 4.0}
    """
    old = file_io(before)
    rates = {}
    for file_id, now in file_io(after).items():
        then = old.get(file_id, 0.0)
        rates[file_id] = (now - then if now >= then else now) / seconds
    return rates


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


def build_disk_maps(layout: HostLayout, files: Sequence[FileIO], io_by_file: dict[str, float], *,
                    disk_rates: Sequence[DiskStatRate] | None = None, interval_s: float | None = None) -> AuditMaps:
    """Rows for every disk of *layout*: its partitions and the areas of *files* placed on it."""
    by_path = {loc.path: loc for loc in layout.locations}
    groups: dict[str, list[FileIO]] = {}
    for file in files:
        groups.setdefault(area_of(file), []).append(file)
    total_io = sum(io_by_file.values()) or 1.0
    cumulative = interval_s is None
    area_rows: dict[str | None, list[MapRow]] = {}
    unplaced: list[MapRow] = []
    for label, members in sorted(groups.items()):
        locations = [by_path[f.path] for f in members if f.path in by_path]
        io = sum(io_by_file.get(f.file_id, 0.0) for f in members)
        start, end, mean, known, reason = _union(locations)
        disks = {loc.disk for loc in locations if loc.disk is not None and loc.zone_start is not None}
        detail = f"{len(members)} file" + ("s" if len(members) != 1 else "")
        row = MapRow("area", label, start, end, mean, io, share=io / total_io if cumulative else None,
                     detail=detail if not reason else f"{detail}; {reason}", placement_known=known)
        if len(disks) == 1 and start is not None:
            area_rows.setdefault(disks.pop(), []).append(row)
        else:
            if len(disks) > 1:
                row = MapRow("area", label, None, None, None, io, share=row.share,
                             detail=f"{detail}; spread over disks {', '.join(sorted(disks))}", placement_known=False)
            unplaced.append(row)
    part_io = _partition_io(layout.diskstats if cumulative else None, disk_rates)
    hottest_area = max([r.io for rows in area_rows.values() for r in rows] + [r.io for r in unplaced] + [0.0]) or 1.0
    hottest_part = max([part_io.get(p.name, 0.0) for p in layout.partitions if p.name != p.disk] + [0.0]) or 1.0
    maps = []
    for device in layout.devices:
        size = device.size_bytes or 1
        disk_io = part_io.get(device.name, 0.0) or 1.0  # partitions' share of their own disk's IO
        parts = []
        for part in sorted((p for p in layout.partitions if p.disk == device.name), key=lambda p: p.start_bytes):
            io = part_io.get(part.name, 0.0)
            where = ", ".join(part.mountpoints) or "not mounted"
            misaligned = "" if part.aligned in (True, None) else "; misaligned"
            heat = io / (disk_io if part.name == part.disk else hottest_part)
            parts.append(MapRow("partition", part.name, part.start_bytes / size,
                                (part.start_bytes + part.size_bytes) / size, None, io, min(heat, 1.0),
                                min(io / disk_io, 1.0) if cumulative else None,
                                f"{part.fstype or '?'} {where}{misaligned}",
                                device.placement_known))
        areas = [_with_heat(r, r.io / hottest_area) for r in area_rows.get(device.name, [])]
        areas.sort(key=lambda r: r.mean if r.mean is not None else 2.0)
        maps.append(DiskMap(device, tuple(parts), tuple(areas)))
    unplaced = [_with_heat(r, r.io / hottest_area) for r in unplaced]
    return AuditMaps(tuple(maps), tuple(unplaced), "IO (cumulative)" if cumulative else "IO/s", interval_s,
                     layout.warnings)


def _with_heat(row: MapRow, heat: float) -> MapRow:
    from dataclasses import replace

    return replace(row, heat=heat)


def heat_style(heat: float) -> str:
    """Colour of a bar: cold blue → green → yellow → red (hottest).

    >>> heat_style(0.0), heat_style(0.95)
    ('blue', 'red')
    """
    for limit, style in ((0.05, "blue"), (0.3, "green"), (0.7, "yellow")):
        if heat < limit:
            return style
    return "red"


def _bar(start: float | None, end: float | None, width: int) -> str:
    """A bar of *width* cells with the [start, end) fraction filled (at least one cell).

    >>> _bar(0.0, 0.25, 8), _bar(0.5, 0.5, 4), _bar(None, None, 3)
    ('██      ', '  █ ', '   ')
    """
    if start is None or end is None:
        return " " * width
    lo = min(width - 1, max(0, int(start * width)))
    hi = max(lo + 1, min(width, round(end * width)))
    return " " * lo + "█" * (hi - lo) + " " * (width - hi)


def compact(value: float) -> str:
    """Short number for narrow columns.

    >>> compact(12.345), compact(4321.0), compact(12_500_000.0)
    ('12.3', '4.3k', '12.5M')
    """
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= limit:
            return f"{value / limit:.1f}{suffix}"
    return f"{value:.1f}"


LABEL_WIDTH = 18
FIXED_WIDTH = LABEL_WIDTH + 11 + 7 + 6 + 10  # label, zone, IO, share, column gaps


def render_disk_maps(result: AuditMaps, console_width: int = 100) -> list[RenderableType]:
    """Rich renderables: per disk a table of bars (outer edge left) and its notes; then unplaced areas."""
    from rich.box import SIMPLE_HEAD
    from rich.table import Table
    from rich.text import Text

    from advisor.render.locations import human_bytes

    width = max(16, console_width - FIXED_WIDTH)
    ruler = "outer 0" + " " * (width - 14) + "inner 1"
    out: list[RenderableType] = []
    for disk_map in result.maps:
        dev = disk_map.disk
        title = f"{dev.name}  {human_bytes(dev.size_bytes)}  {dev.model or dev.transport or ''}".rstrip()
        table = Table(title=title, title_justify="left", box=SIMPLE_HEAD, pad_edge=False)
        table.add_column("partition / area", no_wrap=True, overflow="ellipsis", max_width=LABEL_WIDTH)
        table.add_column(ruler, no_wrap=True)
        table.add_column("zone", no_wrap=True)
        table.add_column("IO/s" if result.interval_s else "IO", justify="right", no_wrap=True)
        table.add_column("share", justify="right", no_wrap=True)
        notes: list[str] = []
        if not dev.placement_known:
            notes.append(f"positions are not physical: {dev.reason}")
        for row in (*disk_map.partitions, *disk_map.areas):
            label = row.label if row.kind == "partition" else f" {row.label}"
            zone = f"{row.start:.3f}-{row.end:.3f}" if row.start is not None and row.end is not None else "-"
            share = f"{100 * row.share:.0f}%" if row.share is not None else "-"
            table.add_row(label, Text(_bar(row.start, row.end, width), style=heat_style(row.heat)), zone,
                          compact(row.io), share)
            notes.append(f"{row.label}: {row.detail}")
        out.append(table)
        out.append(Text("\n".join(notes), style="dim"))
    if result.unplaced:
        table = Table(title="areas with no known disk position", title_justify="left", box=SIMPLE_HEAD,
                      pad_edge=False)
        table.add_column("area", no_wrap=True)
        table.add_column(result.heat_unit, justify="right", no_wrap=True)
        table.add_column("why", overflow="fold")
        for row in result.unplaced:
            table.add_row(row.label, compact(row.io), row.detail)
        out.append(table)
    return out
