"""Turn the optimizer's layout into a :class:`~advisor.model.Plan`: partitions, times, scripts.

Consecutive areas of the same kind of use share a partition (one for the hot random data,
one for the WAL, one for the archive ...), each area followed by its growth headroom; the
partitions start on 1 MiB boundaries from the outer edge. Service times come from the same
model before (the current zone positions, or a stated baseline) and after.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from advisor.disk.media.build import DeviceModel
from advisor.engine.classify import Classified
from advisor.engine.optimizer import PlaceItem, Solution
from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.objects import object_scripts
from advisor.engine.scripts.oracle import oracle_scripts
from advisor.engine.scripts.postgres import postgres_scripts
from advisor.engine.scripts.quoting import label
from advisor.engine.scripts.sfdisk import align_up, sfdisk_script
from advisor.model import AreaPlacement, Plan, PlannedPartition, Script, ServiceTime
from advisor.units import MIB

MIN_SLOT_BYTES = 64 * MIB
"""Partitions are never planned smaller than this, or 1/256 of a small disk (WAL and temp
directories report small sizes but need room)."""

COLD_CLASSES = frozenset({"cold", "archive"})
"""Classes that ASM Intelligent Data Placement marks COLD whatever the partition order."""

_PARTITION_ROLE = {
    "random-read": "hot", "write-heavy": "hot", "scan": "scan", "wal": "wal", "temp": "temp",
    "archive": "archive", "cold": "cold", "control": "control",
}


Progress = Callable[[str, int, int], None]
"""Called with (phase, done, total) as a plan advances; phases repeat with growing *done*."""

PROGRESS_MIN_AREAS = 150
"""Plans of at least this many areas report their phases (a tier plan of 150 areas on six
devices takes seconds on a busy 2-core machine, benchmarks/plan_bench.py)."""


def progress_for(options: PlanOptions, areas: int) -> Progress | None:
    """The options' progress callback when a plan of *areas* areas may take long enough to need it."""
    return options.progress if areas >= PROGRESS_MIN_AREAS else None


@dataclass(frozen=True, slots=True)
class PlanOptions:
    """Choices that shape a plan: disks, headroom, DBMS for the scripts, where partitions mount."""

    disks: int = 1
    headroom: float = 0.3
    dbms: str | None = None
    mount_root: str = "/srv/advisor"
    device: str = "/dev/sdX"
    force: bool = False
    new_disks: bool = False  # plan onto new disks of the model (``advisor plan``), not the current ones
    target: tuple[DeviceModel, ...] = ()  # an inventory's devices: a tiered plan (``--target``)
    knapsack: bool = False  # lay out the IO-density knapsack baseline instead of the searched plan
    scripts: bool = True  # False: predictions only (a fleet ranking formats no SQL: a third of its time)
    min_gain: float = 0.05  # a plan predicting less is "no change worth making" (engine/worth.py)
    no_plan: str | None = None  # file sizes unknown: make no plan and say this (advisor.sizes.need)
    progress: Progress | None = field(default=None, compare=False)  # told each phase of a long plan
    in_place: bool = False  # stage the plan on the disk that holds the data (engine/stages.py)
    spare: str | None = None  # where the staged migration puts the disk's areas meanwhile
    spare_free_bytes: int | None = None  # its free space when the command could see it


def place_items(classified: Sequence[Classified], capacity_bytes: int, headroom: float) -> list[PlaceItem]:
    """Optimizer items: sizes as fractions of the disk, headroom for growth, IO weights."""
    items = []
    floor = max(MIB, min(MIN_SLOT_BYTES, capacity_bytes // 256))
    for c in classified:
        size = max(c.area.size_bytes, MIB)
        slot = align_up(max(int(size * (1.0 + headroom)), floor))
        items.append(PlaceItem(
            name=c.area.name,
            size_fraction=size / capacity_bytes,
            slot_fraction=slot / capacity_bytes,
            iops=c.area.iops,
            block_bytes=c.area.mean_io_bytes,
            sequential=c.sequential,
            wal=c.cls == "wal",
            visits=c.area.visits_per_io,
        ))
    return items


def _partitions(
    solution: Solution, roles: Mapping[str, str], capacities: Sequence[int], disk_names: Sequence[str]
) -> tuple[list[PlannedPartition], dict[str, PlannedPartition]]:
    parts: list[PlannedPartition] = []
    of_area: dict[str, PlannedPartition] = {}
    for layout in solution.disks:
        disk_name = disk_names[layout.disk] if layout.disk < len(disk_names) else f"disk{layout.disk + 1}"
        capacity_bytes = capacities[min(layout.disk, len(capacities) - 1)]
        runs: list[tuple[str, list[PlaceItem]]] = []
        for item in layout.order:
            role = roles.get(item.name, "data")
            if runs and runs[-1][0] == role:
                runs[-1][1].append(item)
            else:
                runs.append((role, [item]))
        cursor = MIB
        for number, (role, members) in enumerate(runs, start=1):
            size = sum(align_up(int(m.slot_fraction * capacity_bytes)) for m in members)
            size = min(size, max(MIB, capacity_bytes - cursor - MIB))
            part = PlannedPartition(
                disk=disk_name, number=number, start_fraction=cursor / capacity_bytes,
                end_fraction=(cursor + size) / capacity_bytes, size_bytes=size,
                areas=tuple(m.name for m in members), label=label(f"{role}{number}"), start_bytes=cursor,
            )
            parts.append(part)
            for m in members:
                of_area[m.name] = part
            cursor += size
    return _unique_labels(parts, of_area)


def _unique_labels(
    parts: list[PlannedPartition], of_area: dict[str, PlannedPartition]
) -> tuple[list[PlannedPartition], dict[str, PlannedPartition]]:
    """Prefix a label with its disk where two disks would otherwise share it (and a mount point)."""
    seen: dict[str, set[str]] = {}
    for part in parts:
        seen.setdefault(part.label, set()).add(part.disk)
    clashing = {name for name, disks in seen.items() if len(disks) > 1}
    if not clashing:
        return parts, of_area
    renamed = {id(p): replace(p, label=label(f"{p.disk}-{p.label}")) if p.label in clashing else p for p in parts}
    return [renamed[id(p)] for p in parts], {area: renamed[id(p)] for area, p in of_area.items()}


def build_plan(
    classified: Sequence[Classified],
    solution: Solution,
    before: Mapping[str, float],
    before_label: Mapping[str, str | None],
    capacities: Sequence[int],
    options: PlanOptions,
    disk_names: Sequence[str],
    settings: Mapping[str, str],
    dbms: str,
    version_num: int,
    notes: Sequence[str] = (),
) -> Plan:
    """Assemble the plan document from an optimised solution and the current times."""
    by_name = {c.area.name: c for c in classified}
    roles = {c.area.name: _PARTITION_ROLE.get(c.cls, "data") for c in classified}
    parts, of_area = _partitions(solution, roles, capacities, disk_names)
    placements, times, moves = [], [], []
    for layout in solution.disks:
        for item, band, ms in zip(layout.order, layout.bands, layout.service_ms, strict=True):
            c = by_name[item.name]
            part = of_area[item.name]
            placements.append(AreaPlacement(
                area=item.name, kind=c.cls, size_bytes=c.area.size_bytes, current=before_label.get(item.name),
                target=part.label, zone_start=round(band[0], 6), zone_end=round(band[1], 6),
            ))
            times.append(ServiceTime(item.name, round(item.iops, 3), round(before.get(item.name, ms), 4), round(ms, 4)))
            moves.append(Move(c.area, c.cls, part.label, f"{options.mount_root.rstrip('/')}/{part.label}",
                              hot=c.cls not in COLD_CLASSES and part.start_fraction < 0.5))
    total = sum(t.iops for t in times)
    before_ms = sum(t.before_ms * t.iops for t in times) / total if total > 0 else 0.0
    after_ms = sum(t.after_ms * t.iops for t in times) / total if total > 0 else 0.0
    gain = (before_ms - after_ms) / before_ms if before_ms > 0 else 0.0
    scripts: list[Script] = []
    if options.scripts:
        for disk_name in dict.fromkeys(p.disk for p in parts):
            scripts.append(sfdisk_script([p for p in parts if p.disk == disk_name], options.device,
                                         disk_name=disk_name))
        if dbms == "oracle":
            scripts += oracle_scripts(moves, version_num // 10000)
        else:
            scripts += postgres_scripts(moves, settings)
        scripts += object_scripts(moves, dbms, version_num)
    return Plan(
        partitions=tuple(parts), placements=tuple(placements), service_times=tuple(times),
        predicted_before_ms=round(before_ms, 4), predicted_after_ms=round(after_ms, 4), predicted_gain=round(gain, 4),
        scripts=tuple(scripts), method=solution.method, notes=tuple(notes),
    )
