"""What the tier search places and on what: areas as items, devices as targets, predicted times.

:class:`Evaluator` answers one question many times: how long does each area's IO take when
these areas share this device? While searching, a rotating device is estimated from its
busiest areas (:func:`_quick_weighted`); for the plan, the zone optimizer orders every area
on it (exhaustive when small). SMR adds its write penalty; solid state and cloud volumes ask
their flat model. Answers are cached by the set of areas, so the search pays once per
distinct device load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from advisor.disk.media import SATURATION, Load
from advisor.disk.media.build import DeviceModel
from advisor.disk.physics import Band, weighted_mean_ms
from advisor.engine.classify import Classified
from advisor.engine.optimizer import (
    TAIL_SHARE,
    PlaceItem,
    bands_of,
    order_disk,
    streams_of,
    visits_of,
)
from advisor.engine.scripts.sfdisk import align_up
from advisor.model.inventory import SOLID_STATE_MEDIA, instance_names
from advisor.units import DISK_GB, MIB

MIN_SLOT_BYTES = 64 * MIB
"""No area gets less room than this on a device (WAL and temp directories report small sizes)."""

SEARCH_ACTIVE_MAX = 12
"""Busiest areas of a rotating device costed against each other while the tier search runs."""


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
    iops: float = field(init=False)  # reads + writes per second, computed once (the search reads it often)

    def __post_init__(self) -> None:
        object.__setattr__(self, "iops", self.read_iops + self.write_iops)

    @property
    def density(self) -> float:
        """IOs per second per GB: the knapsack baseline's ranking."""
        return self.iops / max(self.size_bytes / DISK_GB, 1e-6)


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

    iops: float = field(init=False)  # all IOs per second on this target
    mean_ms: float = field(init=False)  # IO-weighted mean service time on this target

    def __post_init__(self) -> None:
        total = sum(i.iops for i in self.items)
        weighted = sum(i.iops * t for i, t in zip(self.items, self.times_ms, strict=True))
        object.__setattr__(self, "iops", total)
        object.__setattr__(self, "mean_ms", weighted / total if total > 0 else 0.0)

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
    """Predicted times of a set of areas on one target, cached by the set.

    The search asks :meth:`weighted`, which costs a rotating device by its busiest areas
    only (:func:`_quick_weighted`): a full order search per candidate load made a 150-area
    plan take minutes. :meth:`place` arranges every area with the zone optimizer
    (exhaustive when small) for the plan itself.
    """

    def __init__(self, targets: Sequence[Target]) -> None:
        self.targets = list(targets)
        self._placed: dict[tuple[int, frozenset[str]], DevicePlacement | None] = {}
        self._weights: dict[tuple[int, frozenset[str]], float | None] = {}
        self._loads: dict[str, Load] = {}
        self.unplaced: TierItem | None = None  # the area the last fill found no room for

    def place(self, index: int, items: Sequence[TierItem]) -> DevicePlacement | None:
        """The arrangement of *items* on target *index* for the plan, or None when it cannot carry them."""
        key = (index, frozenset(i.name for i in items))
        if key not in self._placed:
            self._placed[key] = self._place(self.targets[index], list(items))
        return self._placed[key]

    def weighted(self, index: int, items: Sequence[TierItem]) -> float | None:
        """The search's figure for *items* on target *index*: IOPS x mean ms (None: cannot carry them).

        Solid state and cloud volumes: their model, exactly. Rotating media: the estimate of
        :func:`_quick_weighted` (the busiest areas costed against each other), cached by the set.
        """
        key = (index, frozenset(i.name for i in items))
        if key in self._weights:
            return self._weights[key]
        target = self.targets[index]
        result: float | None
        if sum(i.slot_bytes for i in items) > target.capacity_bytes:
            result = None
        elif not items:
            result = 0.0
        elif target.model.zoned is not None:
            result = _quick_weighted(target, items)
        else:
            assert target.model.flat is not None
            times = target.model.flat.times_ms([self._load(i) for i in items])
            result = None if times is None else sum(i.iops * t for i, t in zip(items, times, strict=True))
        self._weights[key] = result
        return result

    def _load(self, item: TierItem) -> Load:
        load = self._loads.get(item.name)
        if load is None:
            load = self._loads[item.name] = _load(item)
        return load

    def carries(self, index: int, items: Sequence[TierItem], room_checked: bool = False) -> bool:
        """Whether target *index* can hold and serve *items* at all (room, ceilings, SMR cleaning): no times.

        *room_checked*: the caller already knows they fit its capacity (it keeps the sum).
        """
        target = self.targets[index]
        if not room_checked and sum(i.slot_bytes for i in items) > target.capacity_bytes:
            return False
        model = target.model
        if model.zoned is not None:
            return model.smr is None or _smr_times(model, items, [1.0] * len(items)) is not None
        assert model.flat is not None
        return model.flat.utilisation([self._load(i) for i in items]) < SATURATION

    def _place(self, target: Target, items: list[TierItem]) -> DevicePlacement | None:
        if sum(i.slot_bytes for i in items) > target.capacity_bytes:
            return None
        if not items:
            return DevicePlacement(target, (), (), (), "empty")
        model = target.model
        if model.zoned is not None:
            physics = model.zoned
            place = [PlaceItem(i.name, i.size_bytes / target.capacity_bytes, i.slot_bytes / target.capacity_bytes,
                               i.iops, i.block_bytes, i.sequential, i.cls == "wal", i.visits) for i in items]
            layout, method = order_disk(physics, place)
            order, bands, times = list(layout.order), list(layout.bands), list(layout.service_ms)
            by_name = {i.name: i for i in items}
            placed = [by_name[p.name] for p in order]
            if model.smr is not None:
                adjusted = _smr_times(model, placed, times)
                if adjusted is None:
                    return None
                times = adjusted
            return DevicePlacement(target, tuple(placed), tuple(bands), tuple(times), method)
        assert model.flat is not None
        loads = [_load(i) for i in items]
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


def _load(item: TierItem) -> Load:
    return Load(item.name, item.read_iops, item.write_iops, item.block_bytes, item.sequential)


def _quick_weighted(target: Target, items: Sequence[TierItem]) -> float | None:
    """The search's estimate for a rotating device: IOPS x mean ms, or None when it cannot keep up.

    The busiest :data:`SEARCH_ACTIVE_MAX` areas are laid out by IO density from the outer
    edge and costed against each other with the fast predictor; the others (behind them)
    are given their mean. Enough to rank candidate loads; never shown (the final plan is
    costed over every area by the zone optimizer).
    """
    model = target.model
    assert model.zoned is not None
    total = sum(i.iops for i in items)
    busy = sorted((i for i in items if i.iops > 0 and i.iops >= TAIL_SHARE * total),
                  key=lambda i: (-i.iops, i.name))[:SEARCH_ACTIVE_MAX]
    if not busy:
        return 0.0
    capacity = target.capacity_bytes
    busy.sort(key=lambda i: (-i.iops / max(i.size_bytes, 1), i.name))
    place = [PlaceItem(i.name, i.size_bytes / capacity, i.slot_bytes / capacity, i.iops, i.block_bytes,
                       i.sequential, i.cls == "wal", i.visits) for i in busy]
    streams = streams_of(place, bands_of(place))
    mean = weighted_mean_ms(streams, model.zoned.fast_mixed_service_ms(streams, visits_of(place)))
    if model.smr is None:
        return mean * total
    times = _smr_times(model, items, [mean] * len(items))
    return None if times is None else sum(i.iops * t for i, t in zip(items, times, strict=True))


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
