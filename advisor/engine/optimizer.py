"""Choose the order of areas from the outer edge that minimises predicted service time.

Areas are laid out contiguously from the outer edge in the chosen order, each followed by
its growth headroom; the disk model predicts each area's mean service time with all areas'
streams interleaved on the one actuator (seek between bands, rotation, transfer at the
zone's rate), and the cost is the IO-weighted mean. Up to :data:`EXHAUSTIVE_MAX` areas every
permutation is tried; beyond that a greedy start (IO density, then IOPS) is improved by
pairwise swaps and single moves until no move helps (a local optimum, tested to stay within
2 % of the exhaustive optimum on random small instances).

With several disks, the WAL/redo stream gets an actuator of its own when that lowers the
predicted mean; the other areas are spread by IO load (largest first) within capacity.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from advisor.disk.physics import Band, DiskPhysics, ModelPhysics, Stream, weighted_mean_ms
from advisor.engine.order_cost import SplitCost, incremental_search, profile_times
from advisor.errors import BadInput

EXHAUSTIVE_MAX = 7
"""Largest number of areas searched exhaustively (7! = 5 040 orders; tests compare up to 8)."""

MAX_PASSES = 60
"""Upper bound on local-search passes; each pass is O(n^2) candidate moves."""

TAIL_SHARE = 0.005
"""Areas with less than 0.5 % of the IOs go to the inner end in IO-density order, outside the
search: they barely move the cost but would multiply its time on big databases."""

WIDE_SEARCH_MAX = 16
"""Above this many searched areas, moves are limited to a window of :data:`WINDOW` positions."""

WINDOW = 6

NARROW_SEARCH_MIN = 32
"""Above this many searched areas, the window narrows to :data:`NARROW` positions (bounded time)."""

NARROW = 4

EXACT_TIMES_MAX = 48
"""Most areas on one disk whose final times come from the exact predictor (about 0.5 s at 48)."""

SPLIT_MIN_TAIL = 8
"""With at least this many idle areas, the search folds them into profiles instead of re-costing them."""

INCREMENTAL_MIN = 8
"""With at least this many busy areas, candidates are costed incrementally (see order_cost)."""


@dataclass(frozen=True, slots=True)
class PlaceItem:
    """One area as the optimizer sees it.

    ``size_fraction`` is the data's share of the disk; ``slot_fraction`` adds growth headroom
    (the partition size). ``iops`` weighs the area's service time in the cost. ``visits`` is
    the WAL/redo's visits per IO (flushes per IO), None for areas that interleave at random.
    """

    name: str
    size_fraction: float
    slot_fraction: float
    iops: float
    block_bytes: int
    sequential: bool
    wal: bool = False
    visits: float | None = None


@dataclass(frozen=True, slots=True)
class DiskLayout:
    """Areas on one disk in order from the outer edge, with bands and predicted times."""

    disk: int
    order: tuple[PlaceItem, ...]
    bands: tuple[Band, ...]
    service_ms: tuple[float, ...]
    mean_ms: float

    @property
    def iops(self) -> float:
        """Total IOs per second on this actuator."""
        return sum(item.iops for item in self.order)


@dataclass(frozen=True, slots=True)
class Solution:
    """The chosen layout on every disk and the IO-weighted mean service time over all."""

    disks: tuple[DiskLayout, ...]
    mean_ms: float
    method: str


def bands_of(order: Sequence[PlaceItem]) -> list[Band]:
    """Data bands of areas laid out from the outer edge in *order*."""
    cursor = 0.0
    bands = []
    for item in order:
        bands.append((cursor, min(1.0, cursor + item.size_fraction)))
        cursor += item.slot_fraction
    return bands


def streams_of(order: Sequence[PlaceItem], bands: Sequence[Band]) -> list[Stream]:
    """The interleaved IO streams of *order* placed in *bands*."""
    total = sum(item.iops for item in order)
    return [
        (band, (item.iops / total) if total > 0 else 0.0, item.block_bytes, item.sequential)
        for item, band in zip(order, bands, strict=True)
    ]


def evaluate(physics: DiskPhysics, order: Sequence[PlaceItem], bands: Sequence[Band] | None = None) -> tuple[
    list[float], float
]:
    """Per-area service times and the IO-weighted mean for *order* (or explicit *bands*).

    The exact predictor integrates every pair of bands (O(n^2) integrals); beyond
    :data:`EXACT_TIMES_MAX` areas on one disk the fast predictor gives the times instead
    (within a few per cent of the exact one, tests), computed in O(n) through profiles.
    """
    if not order:
        return [], 0.0
    placed = list(bands) if bands is not None else bands_of(order)
    streams = streams_of(order, placed)
    if sum(s[1] for s in streams) <= 0:
        pairs = zip(order, placed, strict=True)
        times = [physics.mean_service_ms(b, i.block_bytes, not i.sequential) for i, b in pairs]
        return times, 0.0
    if len(order) > EXACT_TIMES_MAX and isinstance(physics, ModelPhysics):
        times = profile_times(physics, streams, visits_of(order))
    else:
        times = physics.mixed_service_ms(streams, visits_of(order))
    return list(times), weighted_mean_ms(streams, times)


def visits_of(order: Sequence[PlaceItem]) -> list[float | None] | None:
    """Visit rates of the items (None when no item has one: random interleaving)."""
    visits = [item.visits for item in order]
    return visits if any(v is not None for v in visits) else None


def _cost_fn(physics: DiskPhysics) -> Callable[[Sequence[PlaceItem]], float]:
    """The search's objective: IO-weighted mean of the fast approximation."""

    def cost(order: Sequence[PlaceItem]) -> float:
        streams = streams_of(order, bands_of(order))
        if not streams or sum(s[1] for s in streams) <= 0:
            return 0.0
        return weighted_mean_ms(streams, physics.fast_mixed_service_ms(streams, visits_of(order)))

    return cost


def exhaustive_order(physics: DiskPhysics, items: Sequence[PlaceItem]) -> tuple[list[PlaceItem], float]:
    """The best order by trying every permutation (small cases and tests)."""
    cost = _cost_fn(physics)
    best: list[PlaceItem] = list(items)
    best_cost = cost(best)
    for perm in itertools.permutations(items):
        value = cost(perm)
        if value < best_cost - 1e-12:
            best, best_cost = list(perm), value
    return best, best_cost


def io_density(item: PlaceItem) -> float:
    """IOs per second per share of the disk: the greedy start's ranking."""
    return item.iops / max(item.size_fraction, 1e-9)


def local_search(
    cost: Callable[[Sequence[PlaceItem]], float], start: Sequence[PlaceItem], window: int | None = None
) -> tuple[list[PlaceItem], float]:
    """Improve *start* by pairwise swaps and single moves (within *window*) until none helps."""
    order = list(start)
    current = cost(order)
    n = len(order)
    reach = window or n
    for _ in range(MAX_PASSES):
        improved = False
        for i in range(n):
            for j in range(i + 1, min(n, i + reach + 1)):
                swapped = order.copy()
                swapped[i], swapped[j] = swapped[j], swapped[i]
                value = cost(swapped)
                if value < current - 1e-12:
                    order, current, improved = swapped, value, True
        for i in range(n):
            for j in range(max(0, i - reach), min(n, i + reach + 1)):
                if i == j:
                    continue
                moved = order.copy()
                moved.insert(j, moved.pop(i))
                value = cost(moved)
                if value < current - 1e-12:
                    order, current, improved = moved, value, True
        if not improved:
            break
    return order, current


def _row(item: PlaceItem) -> tuple[float, float, float, int, bool, float | None]:
    return item.size_fraction, item.slot_fraction, item.iops, item.block_bytes, item.sequential, item.visits


def heuristic_order(physics: DiskPhysics, items: Sequence[PlaceItem]) -> tuple[list[PlaceItem], float]:
    """Greedy starts (IO density, IOPS) improved by local search; the better result wins.

    With the model's physics the search runs on :class:`~advisor.engine.order_cost.SplitCost`
    (idle tail folded into profiles) and evaluates each candidate incrementally; the costs
    are those of :func:`_cost_fn` (tests compare them).
    """
    cost = _cost_fn(physics)
    total = sum(i.iops for i in items)
    active = [i for i in items if i.iops > 0 and i.iops >= TAIL_SHARE * total]
    # little or no IO: inner end in density order, out of everyone's way
    chosen = {id(i) for i in active}
    idle = sorted((i for i in items if id(i) not in chosen), key=lambda i: (-io_density(i), i.name))
    starts = [sorted(active, key=lambda i: (-io_density(i), i.name))]
    if len(active) <= WIDE_SEARCH_MAX:
        starts.append(sorted(active, key=lambda i: (-i.iops, i.name)))
    window = None if len(active) <= WIDE_SEARCH_MAX else WINDOW if len(active) <= NARROW_SEARCH_MIN else NARROW
    best: list[PlaceItem] | None = None
    best_cost = float("inf")
    if isinstance(physics, ModelPhysics) and (len(active) >= INCREMENTAL_MIN or len(idle) >= SPLIT_MIN_TAIL):
        split = SplitCost(physics, [_row(i) for i in active], [_row(i) for i in idle])
        position = {id(item): n for n, item in enumerate(active)}
        for start in starts:
            indices, value = incremental_search(split, [position[id(i)] for i in start], window, MAX_PASSES)
            if value < best_cost:
                best, best_cost = [active[n] for n in indices], value
        return (best or []) + idle, best_cost
    for start in starts:
        order, value = local_search(lambda o: cost(list(o) + idle), start, window)
        if value < best_cost:
            best, best_cost = order, value
    result = (best or []) + idle
    return result, cost(result)


def order_disk(physics: DiskPhysics, items: Sequence[PlaceItem], disk: int = 0) -> tuple[DiskLayout, str]:
    """Best order of *items* on one disk, exhaustive when small."""
    if sum(i.slot_fraction for i in items) > 1.0 + 1e-9:
        need = sum(i.slot_fraction for i in items)
        raise BadInput(f"the areas need {need:.0%} of the disk with headroom: use a bigger disk or more --disks")
    if len(items) <= EXHAUSTIVE_MAX:
        order, _ = exhaustive_order(physics, items)
        method = "exhaustive"
    else:
        order, _ = heuristic_order(physics, items)
        method = "greedy+local"
    bands = bands_of(order)
    times, mean = evaluate(physics, order, bands)
    return DiskLayout(disk, tuple(order), tuple(bands), tuple(times), mean), method


def _spread(items: Sequence[PlaceItem], bins: int) -> list[list[PlaceItem]] | None:
    """Largest IO load first onto the least loaded disk that has room (LPT)."""
    if bins <= 0:
        return None if items else []
    disks: list[list[PlaceItem]] = [[] for _ in range(bins)]
    load = [0.0] * bins
    room = [1.0] * bins
    for item in sorted(items, key=lambda i: (-i.iops, -i.slot_fraction, i.name)):
        fits = [d for d in range(bins) if room[d] + 1e-9 >= item.slot_fraction]
        if not fits:
            return None
        target = min(fits, key=lambda d: (load[d], -room[d]))
        disks[target].append(item)
        load[target] += item.iops
        room[target] -= item.slot_fraction
    return disks


def _combine(physics: DiskPhysics, groups: Sequence[Sequence[PlaceItem]]) -> Solution:
    layouts = []
    methods = set()
    for number, group in enumerate(groups):
        layout, method = order_disk(physics, group, number)
        layouts.append(layout)
        methods.add(method)
    total = sum(layout.iops for layout in layouts)
    mean = sum(layout.mean_ms * layout.iops for layout in layouts) / total if total > 0 else 0.0
    return Solution(tuple(layouts), mean, "+".join(sorted(methods)))


def optimise(physics: DiskPhysics, items: Sequence[PlaceItem], disks: int = 1) -> Solution:
    """Place *items* on *disks* identical disks, minimising the IO-weighted mean service time."""
    if disks < 1:
        raise BadInput("--disks must be at least 1")
    if disks == 1:
        return _combine(physics, [items])
    candidates: list[Solution] = []
    shared = _spread(items, disks)
    if shared is not None:
        candidates.append(_combine(physics, shared))
    wal = [i for i in items if i.wal]
    rest = [i for i in items if not i.wal]
    if wal and rest:
        others = _spread(rest, disks - 1)
        if others is not None and sum(i.slot_fraction for i in wal) <= 1.0:
            own = _combine(physics, [wal, *others])
            candidates.append(Solution(own.disks, own.mean_ms, own.method + ", WAL on its own actuator"))
    if not candidates:
        raise BadInput(f"the areas do not fit on {disks} disk(s) with the requested headroom")
    return min(candidates, key=lambda s: s.mean_ms)
