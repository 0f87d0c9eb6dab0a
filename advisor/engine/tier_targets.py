"""What the tier search places and on what: areas as items, devices as targets, predicted times.

:class:`Evaluator` answers one question many times: how long does each area's IO take when
these areas share this device? Rotating media order the areas with the zone optimizer
(heuristic while searching, exhaustive when small for the final answer) and add the SMR
write penalty; solid state and cloud volumes ask their flat model. Answers are cached by the
set of areas, so the search pays once per distinct device load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from advisor.disk.media import Load
from advisor.disk.media.build import DeviceModel
from advisor.engine.classify import Classified
from advisor.engine.optimizer import PlaceItem, bands_of, evaluate, heuristic_order, order_disk
from advisor.engine.physics import Band
from advisor.engine.scripts.sfdisk import MIB, align_up
from advisor.model.inventory import SOLID_STATE_MEDIA, instance_names

MIN_SLOT_BYTES = 64 * MIB
"""No area gets less room than this on a device (WAL and temp directories report small sizes)."""


@dataclass(frozen=True, slots=True)
class TierItem:
    """One area as the tier planner sees it."""

    name: str
    cls: str
    size_bytes: int
    slot_bytes: int
    read_iops: float
    write_iops: float
    block_bytes: int
    sequential: bool
    visits: float | None

    @property
    def iops(self) -> float:
        """Reads and writes per second."""
        return self.read_iops + self.write_iops

    @property
    def density(self) -> float:
        """IOs per second per GB: the knapsack baseline's ranking."""
        return self.iops / max(self.size_bytes / 1e9, 1e-6)


@dataclass(frozen=True, slots=True)
class Target:
    """One device instance of the inventory (a ``count = 4`` entry is four targets)."""

    name: str
    model: DeviceModel
    capacity_bytes: int

    @property
    def medium(self) -> str:
        """The device's medium."""
        return self.model.medium

    @property
    def fast(self) -> bool:
        """Solid state: the tier the knapsack baseline fills first."""
        return self.medium in SOLID_STATE_MEDIA


@dataclass(frozen=True, slots=True)
class DevicePlacement:
    """The areas on one target, in order from its start (outer edge), with predicted times."""

    target: Target
    items: tuple[TierItem, ...]
    bands: tuple[Band, ...]
    times_ms: tuple[float, ...]
    method: str

    @property
    def iops(self) -> float:
        """All IOs per second on this target."""
        return sum(i.iops for i in self.items)

    @property
    def mean_ms(self) -> float:
        """IO-weighted mean service time on this target."""
        total = self.iops
        return sum(i.iops * t for i, t in zip(self.items, self.times_ms, strict=True)) / total if total > 0 else 0.0

    @property
    def used_bytes(self) -> int:
        """Space the areas take with their headroom."""
        return sum(i.slot_bytes for i in self.items)


def tier_items(classified: Sequence[Classified], headroom: float) -> list[TierItem]:
    """Planner items from classified areas: sizes with headroom, rates, IO size, pattern."""
    out = []
    for c in classified:
        size = max(c.area.size_bytes, MIB)
        slot = align_up(max(int(size * (1.0 + headroom)), MIN_SLOT_BYTES))
        out.append(TierItem(c.area.name, c.cls, size, slot, c.area.read_iops, c.area.write_iops,
                            c.area.mean_io_bytes, c.sequential, c.area.visits_per_io))
    return out


def targets_of(models: Sequence[DeviceModel]) -> list[Target]:
    """Expand each inventory entry into ``count`` targets (``hdd-1`` … ``hdd-4``)."""
    out = []
    for m in models:
        for name in instance_names(m.device):  # the inventory refused names that collide
            out.append(Target(name, m, m.device.capacity_bytes))
    return out


class Evaluator:
    """Predicted times of a set of areas on one target, cached by the set."""

    def __init__(self, targets: Sequence[Target]) -> None:
        self.targets = list(targets)
        self._cache: dict[tuple[int, frozenset[str]], DevicePlacement | None] = {}
        self.unplaced: TierItem | None = None  # the area the last fill found no room for

    def place(self, index: int, items: Sequence[TierItem], exact: bool = False) -> DevicePlacement | None:
        """The best arrangement of *items* on target *index*, or None when it cannot carry them."""
        key = (index, frozenset(i.name for i in items))
        if not exact and key in self._cache:
            return self._cache[key]
        result = self._place(self.targets[index], list(items), exact)
        if not exact:
            self._cache[key] = result
        return result

    def _place(self, target: Target, items: list[TierItem], exact: bool) -> DevicePlacement | None:
        if sum(i.slot_bytes for i in items) > target.capacity_bytes:
            return None
        if not items:
            return DevicePlacement(target, (), (), (), "empty")
        model = target.model
        if model.zoned is not None:
            physics = model.zoned
            place = [PlaceItem(i.name, i.size_bytes / target.capacity_bytes, i.slot_bytes / target.capacity_bytes,
                               i.iops, i.block_bytes, i.sequential, i.cls == "wal", i.visits) for i in items]
            if exact:
                layout, method = order_disk(physics, place)
                order, bands, times = list(layout.order), list(layout.bands), list(layout.service_ms)
            else:
                order, _ = heuristic_order(physics, place)
                bands = bands_of(order)
                times, _ = evaluate(physics, order, bands)
                method = "greedy+local"
            by_name = {i.name: i for i in items}
            placed = [by_name[p.name] for p in order]
            if model.smr is not None:
                adjusted = _smr_times(model, placed, times)
                if adjusted is None:
                    return None
                times = adjusted
            return DevicePlacement(target, tuple(placed), tuple(bands), tuple(times), method)
        assert model.flat is not None
        loads = [Load(i.name, i.read_iops, i.write_iops, i.block_bytes, i.sequential) for i in items]
        flat_times = model.flat.times_ms(loads)
        if flat_times is None:
            return None
        cursor = 0.0
        bands = []
        for i in items:
            width = i.slot_bytes / target.capacity_bytes
            bands.append((cursor, cursor + width))
            cursor += width
        return DevicePlacement(target, tuple(items), tuple(bands), tuple(flat_times), model.flat.name)


def _smr_times(model: DeviceModel, items: Sequence[TierItem], times: Sequence[float]) -> list[float] | None:
    assert model.smr is not None
    random_writes = [i for i in items if not i.sequential and i.write_iops > 0]
    rate = sum(i.write_iops for i in random_writes)
    block = max((i.block_bytes for i in random_writes), default=8192)
    out = []
    for item, ms in zip(items, times, strict=True):
        if item.sequential or item.write_iops <= 0 or item.iops <= 0:
            out.append(ms)
            continue
        write_ms = model.smr.write_ms(rate, block, ms)
        if write_ms is None:
            return None
        out.append((item.read_iops * ms + item.write_iops * write_ms) / item.iops)
    return out
