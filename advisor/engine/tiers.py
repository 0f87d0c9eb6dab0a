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

from advisor.engine.tier_targets import DevicePlacement, Evaluator, Target, TierItem
from advisor.errors import BadInput

SMR_MEDIA = frozenset({"smr-dm", "smr-hm"})
NO_WAL_MEDIA = frozenset({"smr-dm", "smr-hm", "cloud-hdd"})
SMR_CLASSES = frozenset({"archive", "cold"})
MAX_PASSES = 30
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
        placed = evaluator.place(index, group)
        if placed is None:
            return INFEASIBLE
        weighted += placed.mean_ms * placed.iops
    return weighted / total_iops if total_iops > 0 else 0.0


def _fits(evaluator: Evaluator, items: Sequence[TierItem], assignment: Assignment, index: int, item: TierItem) -> bool:
    used = sum(i.slot_bytes for i in items if assignment.get(i.name) == index)
    return used + item.slot_bytes <= evaluator.targets[index].capacity_bytes


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
    best = [0.0] * (DP_CELLS + 1)
    chosen: list[list[int]] = [[] for _ in range(DP_CELLS + 1)]
    for index, item in enumerate(candidates):
        weight = -(-item.slot_bytes // unit)
        for room in range(DP_CELLS, weight - 1, -1):
            value = best[room - weight] + item.iops
            if value > best[room] + 1e-12:
                best[room] = value
                chosen[room] = chosen[room - weight] + [index]
    picked = [candidates[i] for i in chosen[max(range(DP_CELLS + 1), key=lambda r: best[r])]]
    others = [i for i in items if i not in picked]
    return _fill(evaluator, items, sorted(picked, key=lambda i: (-i.iops, i.name)) + others, only=picked)


def _fill(
    evaluator: Evaluator, items: Sequence[TierItem], ranked: Sequence[TierItem],
    only: Sequence[TierItem] | None = None,
) -> Assignment | None:
    """Fast tier in *ranked* order (only *only* when given), the rest spread by IOPS."""
    targets = evaluator.targets
    fast = [n for n, t in enumerate(targets) if t.fast]
    slow = [n for n, t in enumerate(targets) if not t.fast]
    assignment: Assignment = {}
    rest: list[TierItem] = []
    for item in ranked:
        spot = next((n for n in fast if allowed(item, targets[n], targets) is None
                     and _fits(evaluator, items, assignment, n, item)), None)
        if spot is None or item.iops <= 0 or (only is not None and item not in only):
            rest.append(item)
        else:
            assignment[item.name] = spot
    load = dict.fromkeys(slow, 0.0)
    for item in sorted(rest, key=lambda i: (-i.iops, -i.slot_bytes, i.name)):
        options = [n for n in slow if allowed(item, targets[n], targets) is None
                   and _fits(evaluator, items, assignment, n, item)]
        if not options:
            options = [n for n in fast if allowed(item, targets[n], targets) is None
                       and _fits(evaluator, items, assignment, n, item)]
        if not options:
            evaluator.unplaced = item
            return None
        carried = [n for n in options
                   if evaluator.place(n, [i for i in items if assignment.get(i.name) == n] + [item]) is not None]
        spot = min(carried or options, key=lambda n: (load.get(n, 0.0), n))
        assignment[item.name] = spot
        load[spot] = load.get(spot, 0.0) + item.iops
    return assignment


def improve(evaluator: Evaluator, items: Sequence[TierItem], start: Assignment) -> tuple[Assignment, float]:
    """Move and swap areas between targets while the predicted mean falls (never worse than *start*)."""
    targets = evaluator.targets
    current = dict(start)
    cost = _cost(evaluator, items, current)
    ranked = sorted(items, key=lambda i: (-i.iops, i.name))
    for _ in range(MAX_PASSES):
        improved = False
        for item in ranked:
            for n in range(len(targets)):
                if n == current[item.name] or allowed(item, targets[n], targets) is not None:
                    continue
                if not _fits(evaluator, items, current, n, item):
                    continue
                trial = {**current, item.name: n}
                value = _cost(evaluator, items, trial)
                if value < cost - 1e-9:
                    current, cost, improved = trial, value, True
        for a_pos, a in enumerate(ranked):
            for b in ranked[a_pos + 1:]:
                na, nb = current[a.name], current[b.name]
                if na == nb or allowed(a, targets[nb], targets) or allowed(b, targets[na], targets):
                    continue
                trial = {**current, a.name: nb, b.name: na}
                value = _cost(evaluator, items, trial)
                if value < cost - 1e-9:
                    current, cost, improved = trial, value, True
        if not improved:
            break
    return current, cost


def solve(evaluator: Evaluator, items: Sequence[TierItem], assignment: Assignment) -> TierSolution:
    """The final arrangement of an assignment: exact zone orders, times, rules in force."""
    placements = []
    for index, target in enumerate(evaluator.targets):
        group = [i for i in items if assignment[i.name] == index]
        placed = evaluator.place(index, group, exact=True)
        if placed is None:
            raise BadInput(f"device {target.name!r} cannot carry the areas planned for it")
        placements.append(placed)
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


def _smr_refusal(target: Target, group: Sequence[TierItem]) -> BadInput | None:
    """Why an SMR device refuses *group*: its random writes (not its IOPS); None when that is not the cause."""
    smr = target.model.smr
    random = [i for i in group if not i.sequential and i.write_iops > 0]
    if smr is None or not random:
        return None
    rate = sum(i.write_iops for i in random)
    why = ("host-managed SMR takes no random writes" if smr.host_managed
           else f"more than its band cleaning sustains ({smr.cleaning_iops:,.0f}/s)")
    return BadInput(f"device {target.name!r} ({target.medium}) cannot take {rate:,.0f} random writes/s of "
                    f"{', '.join(i.name for i in random)}: {why}; nothing planned",
                    hint="add a CMR hdd or solid-state device for areas written at random")


def too_small(items: Sequence[TierItem], evaluator: Evaluator, assignment: Assignment | None) -> BadInput:
    """The error for an inventory that cannot hold the database: the shortfall, or what does not fit where."""
    targets = evaluator.targets
    need = sum(i.slot_bytes for i in items)
    have = sum(t.capacity_bytes for t in targets)
    if need > have:
        return BadInput(f"the inventory holds {have / 1e9:,.1f} GB but the areas need {need / 1e9:,.1f} GB with "
                        f"headroom: {(need - have) / 1e9:,.1f} GB short; nothing planned",
                        hint="add devices or lower headroom")
    if assignment is None and evaluator.unplaced is not None:
        item = evaluator.unplaced
        refusals = [r for r in (_smr_refusal(t, [item]) for t in targets) if r is not None]
        if refusals and len(refusals) == len(targets):
            return refusals[0]  # every device is SMR and the area is written at random
        return BadInput(f"area {item.name!r} ({item.slot_bytes / 1e9:,.1f} GB with headroom, {item.iops:,.0f} IO/s) "
                        "fits on no device of the inventory under its rules; nothing planned",
                        hint="add a device with room for it, or check the media of the inventory")
    for index, target in enumerate(targets):
        group = [i for i in items if assignment is not None and assignment.get(i.name) == index]
        if evaluator.place(index, group) is None:
            refused = _smr_refusal(target, group)
            if refused is not None:
                return refused
            load = sum(i.iops for i in group)
            return BadInput(f"device {target.name!r} ({target.medium}) cannot carry {load:,.0f} IO/s of "
                            f"{', '.join(i.name for i in group)} (over its IOPS or throughput ceiling); "
                            "nothing planned",
                            hint="add devices of a faster medium, or more volumes")
    return BadInput("the areas do not fit the inventory under its rules; nothing planned",
                    hint="add devices, or check the media of the inventory")


@dataclass(frozen=True)
class TierResult:
    """Our plan, the knapsack baseline under the same model, and the fast tier's marginal curve."""

    solution: TierSolution
    baseline: TierSolution
    curve: tuple[tuple[int, float | None], ...]  # (fast-tier bytes, predicted mean ms)


def _search(evaluator: Evaluator, items: Sequence[TierItem], start: Assignment) -> tuple[Assignment, float]:
    """The better of the searches from *start* (the density baseline) and from the IOPS knapsack."""
    ours, cost = improve(evaluator, items, start)
    second = knapsack_by_iops(evaluator, items)
    if second is not None and _cost(evaluator, items, second) < INFEASIBLE:
        other, other_cost = improve(evaluator, items, second)
        if other_cost < cost - 1e-9:
            return other, other_cost
    return ours, cost


def plan_tiers(items: Sequence[TierItem], targets: Sequence[Target], with_curve: bool = True) -> TierResult:
    """Place *items* on *targets*: baseline, improvement, and the marginal curve of the fast tier."""
    evaluator = Evaluator(targets)
    start = knapsack_baseline(evaluator, items)
    if start is None or _cost(evaluator, items, start) == INFEASIBLE:
        raise too_small(items, evaluator, start)
    baseline = solve(evaluator, items, start)
    ours, cost = _search(evaluator, items, start)
    solution = solve(evaluator, items, ours)
    if solution.mean_ms > baseline.mean_ms:  # the exact zone orders can reorder the two: keep the better
        solution = baseline
    curve = marginal_curve(items, targets, cost) if with_curve else ()
    return TierResult(solution, baseline, curve)


def marginal_curve(items: Sequence[TierItem], targets: Sequence[Target],
                   full_cost: float) -> tuple[tuple[int, float | None], ...]:
    """Predicted mean with the fast tier cut to fractions of its size (None where nothing fits).

    *full_cost* is the search's result with the whole fast tier: that point is not searched again.
    """
    fast_total = sum(t.capacity_bytes for t in targets if t.fast)
    if fast_total == 0:
        return ()
    points: list[tuple[int, float | None]] = []
    for fraction in CURVE_FRACTIONS:
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
        points.append((int(fast_total * fraction), _search(evaluator, items, start)[1]))
    return tuple(points)
