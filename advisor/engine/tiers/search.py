"""Tiered placement: which device (and, on rotating media, which zone) each area goes to.

The cost is the one the zone plan minimises, extended across devices: the IO-weighted mean
service time of every area, each predicted by its device's model with everything else placed
on that device (zone physics and seeks between bands on rotating media, a shared queue on
solid state and cloud volumes, band cleaning for random writes on SMR). Capacity includes
each area's growth headroom. Hard rules come first and each carries its reason: WAL/redo
never on SMR or a cloud HDD volume while another medium exists; SMR holds only archive and
cold areas; archive, FRA and backups go to SMR when there is one (on plain HDDs the zone
optimizer puts them at the inner edge).

The search starts from the classic object-placement baseline (rank by IO density per GB,
fill the fast tier, spread the rest; Canim et al., VLDB 2009) and improves it by moving and
swapping areas between devices while the predicted mean falls, so the result is never worse
than the baseline under the same model. :func:`marginal_curve` replays the search with the
fast tier cut to fractions of its size: what each GB of NVMe/SSD buys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from advisor.engine.planner import Progress
from advisor.engine.tiers.fit import Oversized, nothing_fits, split_oversized, too_small
from advisor.engine.tiers.targets import DevicePlacement, Evaluator, Target, TierItem
from advisor.errors import BadInput

SMR_MEDIA = frozenset({"smr-dm", "smr-hm"})
NO_WAL_MEDIA = frozenset({"smr-dm", "smr-hm", "cloud-hdd"})
SMR_CLASSES = frozenset({"archive", "cold"})
MAX_PASSES = 30
SEARCH_MOVABLE = 48
"""Busiest areas the search moves and swaps; the rest stay where the start put them."""
CURVE_MOVABLE = 16
"""The same for each cut-down fast tier of the marginal curve (five more searches)."""
CURVE_FRACTIONS = (0.0, 0.125, 0.25, 0.5, 0.75, 1.0)
INFEASIBLE = float("inf")
DP_CELLS = 1024
"""Resolution of the fast tier's capacity in the dynamic-programming knapsack."""


@dataclass(frozen=True)
class TierSolution:
    """Where every area goes, the predicted mean, and the rules that shaped it."""

    placements: tuple[DevicePlacement, ...]
    mean_ms: float
    rules: tuple[str, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)  # area → why it may not go elsewhere

    def device_of(self, area: str) -> str:
        """The target an area is placed on."""
        for p in self.placements:
            if any(i.name == area for i in p.items):
                return p.target.name
        raise KeyError(area)


def allowed(item: TierItem, target: Target, targets: Sequence[Target]) -> str | None:
    """Why *item* may not go on *target*, or None when it may."""
    media = {t.medium for t in targets}
    if item.cls == "wal" and target.medium in NO_WAL_MEDIA and media - NO_WAL_MEDIA:
        return f"WAL/redo never on {target.medium} while another medium exists (each commit waits for it)"
    if target.medium in SMR_MEDIA and item.cls not in SMR_CLASSES and media - SMR_MEDIA:
        return (f"{target.medium} holds only archive and cold areas: random writes fall to band-cleaning speed "
                "once its media cache fills")
    if item.cls == "archive" and target.medium not in SMR_MEDIA and media & SMR_MEDIA:
        return "archive, FRA and backups go to SMR (sequential, written once)"
    return None


Assignment = dict[str, int]


def _cost(evaluator: Evaluator, items: Sequence[TierItem], assignment: Assignment) -> float:
    groups: dict[int, list[TierItem]] = {i: [] for i in range(len(evaluator.targets))}
    for item in items:
        groups[assignment[item.name]].append(item)
    total_iops = sum(i.iops for i in items)
    weighted = 0.0
    for index, group in groups.items():
        value = evaluator.weighted(index, group)
        if value is None:
            return INFEASIBLE
        weighted += value
    return weighted / total_iops if total_iops > 0 else 0.0


def knapsack_baseline(evaluator: Evaluator, items: Sequence[TierItem]) -> Assignment | None:
    """IO density first into the fast tier; the rest spread by IOPS over the other devices."""
    return _fill(evaluator, items, sorted(items, key=lambda i: (-i.density, i.name)))


def knapsack_by_iops(evaluator: Evaluator, items: Sequence[TierItem]) -> Assignment | None:
    """The fast-tier set that holds the most IOPS (0/1 knapsack by dynamic programming).

    A second start for the search: greedy density can fill the fast tier with small
    objects and leave one large hot object outside, which no single move or swap repairs.
    """
    targets = evaluator.targets
    capacity = sum(t.capacity_bytes for t in targets if t.fast)
    candidates = [i for i in items if i.iops > 0 and any(
        t.fast and allowed(i, t, targets) is None for t in targets)]
    if capacity <= 0 or not candidates:
        return None
    unit = max(1, capacity // DP_CELLS)
    best = np.zeros(DP_CELLS + 1)
    took = np.zeros((len(candidates), DP_CELLS + 1), dtype=bool)
    for index, item in enumerate(candidates):
        weight = -(-item.slot_bytes // unit)
        if weight > DP_CELLS:
            continue
        value = np.concatenate((np.full(weight, -np.inf), best[:DP_CELLS + 1 - weight] + item.iops))
        took[index] = value > best + 1e-12
        best = np.where(took[index], value, best)
    room = int(np.argmax(best))
    picked = []
    for index in range(len(candidates) - 1, -1, -1):  # walk the table back from the best cell
        if took[index, room]:
            picked.append(candidates[index])
            room -= -(-candidates[index].slot_bytes // unit)
    picked.reverse()
    names = {i.name for i in picked}
    others = [i for i in items if i.name not in names]
    return _fill(evaluator, items, sorted(picked, key=lambda i: (-i.iops, i.name)) + others, only=names)


def _fill(
    evaluator: Evaluator, items: Sequence[TierItem], ranked: Sequence[TierItem],
    only: set[str] | None = None,
) -> Assignment | None:
    """Fast tier in *ranked* order (only *only* when given), the rest spread by IOPS.

    Each step checks the device can carry what it would then hold (room, IOPS and
    throughput ceilings, SMR cleaning), so a fast tier is never filled past its ceiling.
    """
    targets = evaluator.targets
    fast = [n for n, t in enumerate(targets) if t.fast]
    slow = [n for n, t in enumerate(targets) if not t.fast]
    groups: list[list[TierItem]] = [[] for _ in targets]
    used = [0] * len(targets)
    assignment: Assignment = {}

    rules: dict[tuple[str, int], bool] = {}

    def fits(n: int, item: TierItem) -> bool:
        key = (item.cls, n)
        if key not in rules:
            rules[key] = allowed(item, targets[n], targets) is None
        return rules[key] and used[n] + item.slot_bytes <= targets[n].capacity_bytes

    def put(n: int, item: TierItem) -> None:
        assignment[item.name] = n
        groups[n].append(item)
        used[n] += item.slot_bytes

    rest: list[TierItem] = []
    for item in ranked:
        wanted = item.iops > 0 and (only is None or item.name in only)
        spot = next((n for n in fast if fits(n, item) and evaluator.carries(n, groups[n] + [item], True)), None) \
            if wanted else None
        if spot is None:
            rest.append(item)
        else:
            put(spot, item)
    load = dict.fromkeys(slow, 0.0)
    for item in sorted(rest, key=lambda i: (-i.iops, -i.slot_bytes, i.name)):
        options = [n for n in slow if fits(n, item)] or [n for n in fast if fits(n, item)]
        if not options:
            evaluator.unplaced = item
            return None
        carried = [n for n in options if evaluator.carries(n, groups[n] + [item], True)]
        spot = min(carried or options, key=lambda n: (load.get(n, 0.0), n))
        put(spot, item)
        load[spot] = load.get(spot, 0.0) + item.iops
    return assignment


class _Search:
    """The state of :func:`improve`: groups per device and each device's IO-weighted time."""

    def __init__(self, evaluator: Evaluator, items: Sequence[TierItem], start: Assignment) -> None:
        self.evaluator = evaluator
        targets = evaluator.targets
        self.current = dict(start)
        self.groups: list[list[TierItem]] = [[] for _ in targets]
        for item in items:
            self.groups[start[item.name]].append(item)
        self.used = [sum(i.slot_bytes for i in g) for g in self.groups]
        self.weighted = [self._weighted(n, g) for n, g in enumerate(self.groups)]
        self.total = sum(i.iops for i in items)
        by_class = {c: [allowed(i, t, targets) is None for t in targets] for c, i in {i.cls: i for i in items}.items()}
        self.ok = {i.name: by_class[i.cls] for i in items}

    def _weighted(self, index: int, group: list[TierItem]) -> float:
        value = self.evaluator.weighted(index, group)
        return INFEASIBLE if value is None else value

    def cost(self) -> float:
        """The IO-weighted mean over every device."""
        return sum(self.weighted) / self.total if self.total > 0 else 0.0

    def room(self, n: int, incoming: TierItem, outgoing: TierItem | None = None) -> bool:
        """Whether *incoming* fits on device *n* once *outgoing* (if any) has left it."""
        freed = outgoing.slot_bytes if outgoing is not None else 0
        return self.used[n] - freed + incoming.slot_bytes <= self.evaluator.targets[n].capacity_bytes

    def try_change(self, moves: list[tuple[TierItem, int]]) -> bool:
        """Apply *moves* (item, new device) when they lower the mean; say whether they did."""
        touched = {self.current[i.name] for i, _ in moves} | {n for _, n in moves}
        leaving = {i.name for i, _ in moves}
        trial = {n: [i for i in self.groups[n] if i.name not in leaving] + [i for i, m in moves if m == n]
                 for n in touched}
        values = {n: self._weighted(n, g) for n, g in trial.items()}
        before = sum(self.weighted[n] for n in touched)
        after = sum(values.values())
        if not after < before - 1e-9 * max(self.total, 1.0):
            return False
        for item, n in moves:
            self.used[self.current[item.name]] -= item.slot_bytes
            self.used[n] += item.slot_bytes
            self.current[item.name] = n
        for n, g in trial.items():
            self.groups[n], self.weighted[n] = g, values[n]
        return True


def improve(evaluator: Evaluator, items: Sequence[TierItem], start: Assignment,
            movable: int | None = None) -> tuple[Assignment, float]:
    """Move and swap areas between targets while the predicted mean falls (never worse than *start*).

    Only the :data:`SEARCH_MOVABLE` busiest areas move (the others keep the start's device:
    they carry too little IO to pay for the search), and each candidate re-costs only the
    two devices it touches, so one pass is O(m x devices + m^2) device evaluations.
    """
    state = _Search(evaluator, items, start)
    if state.cost() == INFEASIBLE:
        return dict(start), INFEASIBLE
    ranked = sorted(items, key=lambda i: (-i.iops, i.name))[:movable or SEARCH_MOVABLE]
    devices = range(len(evaluator.targets))
    for _ in range(MAX_PASSES):
        improved = False
        for item in ranked:
            for n in devices:
                if n != state.current[item.name] and state.ok[item.name][n] and state.room(n, item):
                    improved |= state.try_change([(item, n)])
        for a_pos, a in enumerate(ranked):
            for b in ranked[a_pos + 1:]:
                na, nb = state.current[a.name], state.current[b.name]
                if na == nb or not state.ok[a.name][nb] or not state.ok[b.name][na]:
                    continue
                if state.room(nb, a, b) and state.room(na, b, a):
                    improved |= state.try_change([(a, nb), (b, na)])
        if not improved:
            break
    return state.current, state.cost()


def solve(evaluator: Evaluator, items: Sequence[TierItem], assignment: Assignment,
          progress: Progress | None = None, phase: str = "device orders") -> TierSolution:
    """The final arrangement of an assignment: exact zone orders, times, rules in force."""
    placements = []
    for index, target in enumerate(evaluator.targets):
        if progress is not None:
            progress(phase, index, len(evaluator.targets))
        group = [i for i in items if assignment[i.name] == index]
        placed = evaluator.place(index, group)
        if placed is None:
            raise BadInput(f"device {target.name!r} cannot carry the areas planned for it")
        placements.append(placed)
    if progress is not None:
        progress(phase, len(evaluator.targets), len(evaluator.targets))
    total = sum(p.iops for p in placements)
    mean = sum(p.mean_ms * p.iops for p in placements) / total if total > 0 else 0.0
    reasons: dict[str, str] = {}
    rules: list[str] = []
    for item in items:
        for target in evaluator.targets:
            why = allowed(item, target, evaluator.targets)
            if why is not None:
                reasons.setdefault(item.name, f"not on {target.name}: {why}")
                if why not in rules:
                    rules.append(why)
    return TierSolution(tuple(placements), mean, tuple(rules), reasons)


@dataclass(frozen=True)
class TierResult:
    """Our plan, the knapsack baseline under the same model, and the fast tier's marginal curve."""

    solution: TierSolution
    baseline: TierSolution
    curve: tuple[tuple[int, float | None], ...]  # (fast-tier bytes, predicted mean ms)
    oversized: tuple[Oversized, ...] = ()  # areas no single device can take: not planned


def _search(evaluator: Evaluator, items: Sequence[TierItem], start: Assignment,
            movable: int | None = None) -> tuple[Assignment, float]:
    """The better of the searches from *start* (the density baseline) and from the IOPS knapsack."""
    ours, cost = improve(evaluator, items, start, movable)
    second = knapsack_by_iops(evaluator, items)
    if second is not None and _cost(evaluator, items, second) < INFEASIBLE:
        other, other_cost = improve(evaluator, items, second, movable)
        if other_cost < cost - 1e-9:
            return other, other_cost
    return ours, cost


def plan_tiers(items: Sequence[TierItem], targets: Sequence[Target], with_curve: bool = True,
               with_baseline: bool = True, movable: int | None = None,
               progress: Progress | None = None) -> TierResult:
    """Place *items* on *targets*: baseline, improvement, and the marginal curve of the fast tier.

    Areas that no single device can take (:mod:`advisor.engine.tiers.fit`) are left out and
    returned in ``oversized``; when that is every area, BadInput names the biggest shortfall.

    Without *with_baseline* the baseline is not laid out (``baseline`` is the plan itself):
    for a comparison point that only needs the plan's times.
    """
    evaluator = Evaluator(targets)
    if sum(i.slot_bytes for i in items) > sum(t.capacity_bytes for t in targets):
        raise too_small(items, evaluator, None)  # the inventory cannot hold the database at all
    items, oversized = split_oversized(items, targets)
    if not items:
        raise nothing_fits(oversized)
    start = knapsack_baseline(evaluator, items)
    if start is None or _cost(evaluator, items, start) == INFEASIBLE:
        raise too_small(items, evaluator, start)
    if progress is not None:
        progress("tier search", 0, 1)
    ours, cost = _search(evaluator, items, start, movable)
    if progress is not None:
        progress("tier search", 1, 1)
    solution = solve(evaluator, items, ours, progress)
    baseline = solve(evaluator, items, start, progress, "baseline orders") if with_baseline else solution
    if solution.mean_ms > baseline.mean_ms:  # the exact zone orders can reorder the two: keep the better
        solution = baseline
    curve = marginal_curve(items, targets, cost, progress) if with_curve else ()
    return TierResult(solution, baseline, curve, tuple(oversized))


def marginal_curve(items: Sequence[TierItem], targets: Sequence[Target], full_cost: float,
                   progress: Progress | None = None) -> tuple[tuple[int, float | None], ...]:
    """Predicted mean with the fast tier cut to fractions of its size (None where nothing fits).

    *full_cost* is the search's result with the whole fast tier: that point is not searched again.
    """
    fast_total = sum(t.capacity_bytes for t in targets if t.fast)
    if fast_total == 0:
        return ()
    points: list[tuple[int, float | None]] = []
    for step, fraction in enumerate(CURVE_FRACTIONS):
        if progress is not None:
            progress("fast-tier curve", step, len(CURVE_FRACTIONS))
        if fraction == 1.0:
            points.append((fast_total, full_cost))
            continue
        cut = [Target(t.name, t.model, int(t.capacity_bytes * fraction)) if t.fast else t for t in targets]
        cut = [t for t in cut if t.capacity_bytes > 0]
        if not cut:
            continue
        evaluator = Evaluator(cut)
        start = knapsack_baseline(evaluator, items)
        if start is None or _cost(evaluator, items, start) == INFEASIBLE:
            points.append((int(fast_total * fraction), None))
            continue
        points.append((int(fast_total * fraction), _search(evaluator, items, start, CURVE_MOVABLE)[1]))
    if progress is not None:
        progress("fast-tier curve", len(CURVE_FRACTIONS), len(CURVE_FRACTIONS))
    return tuple(points)
