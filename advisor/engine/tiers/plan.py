"""A tiered plan as a :class:`~advisor.model.Plan`: partitions per device, moves, scripts.

The tier search (:mod:`advisor.engine.tiers.search`) decides which device and zone each area gets;
this module states it in the plan document every renderer already draws, plus the tier
section (devices with their media and model sources, the assignment next to the knapsack
baseline's, the rules with reasons, the marginal curve of the fast tier). Scripts go into
one directory per target device (its sfdisk file and the file systems to make on it,
:mod:`advisor.engine.scripts.prepare`), the database moves beside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from advisor.disk.media.build import DeviceModel
from advisor.engine.classify import Classified
from advisor.engine.optimizer import DiskLayout, PlaceItem, Solution
from advisor.engine.planner import PlanOptions, build_plan
from advisor.engine.scripts.prepare import per_device_scripts
from advisor.engine.tiers.search import CURVE_MOVABLE, TierResult, TierSolution, plan_tiers
from advisor.engine.tiers.targets import TierItem, targets_of, tier_items
from advisor.errors import BadInput
from advisor.model import Plan, TierAssignment, TierCurvePoint, TierDevice, TierPlan, Workload


def _solution(result: TierSolution) -> tuple[Solution, list[int], list[str]]:
    layouts = []
    for index, placed in enumerate(result.placements):
        capacity = placed.target.capacity_bytes
        order = tuple(PlaceItem(i.name, i.size_bytes / capacity, i.slot_bytes / capacity, i.iops, i.block_bytes,
                                i.sequential, i.cls == "wal", i.visits) for i in placed.items)
        layouts.append(DiskLayout(index, order, placed.bands, placed.times_ms, placed.mean_ms))
    capacities = [p.target.capacity_bytes for p in result.placements]
    names = [p.target.name for p in result.placements]
    return Solution(tuple(layouts), result.mean_ms, "tiers"), capacities, names


def _times(solution: TierSolution) -> dict[str, float]:
    return {i.name: t for p in solution.placements for i, t in zip(p.items, p.times_ms, strict=True)}


def _before(
    items: Sequence[TierItem], result: TierResult, current: dict[str, float], models: Sequence[DeviceModel]
) -> tuple[dict[str, float], str]:
    """Per-area 'before' times: today's layout when every busy area is located, else all on the slow tier."""
    if current and all(i.name in current for i in items if i.iops > 0):
        return current, "'before' is today's layout (each area at its current zone positions, today's disk model)."
    slow = [m for m in models if m.medium not in ("nvme", "ssd")]
    if slow and len(slow) < len(models):
        try:
            alone = plan_tiers(items, targets_of(slow), with_curve=False, with_baseline=False,
                               movable=CURVE_MOVABLE).solution
            return _times(alone), "'before' is every area on the slower devices alone, zone-optimised (no fast tier)."
        except BadInput:  # the slow tier alone may not hold the data: fall back to the baseline
            pass
    return _times(result.baseline), "'before' is the IO-density knapsack baseline (no layout without the fast tier)."


def tier_plan_section(result: TierResult, items: Sequence[TierItem], knapsack: bool = False) -> TierPlan:
    """The tier section of the plan document: the plan laid out (the baseline itself with *knapsack*)."""
    solution, baseline = (result.baseline if knapsack else result.solution), result.baseline
    times = _times(solution)
    reasons = solution.reasons
    devices = tuple(
        TierDevice(p.target.name, p.target.medium, p.target.model.model_name, p.target.model.source,
                   p.target.capacity_bytes, p.used_bytes, round(p.iops, 3), round(p.mean_ms, 4),
                   tuple(i.name for i in p.items))
        for p in solution.placements
    )
    medium = {p.target.name: p.target.medium for p in solution.placements}
    assignments = []
    for item in sorted(items, key=lambda i: (-i.iops, i.name)):
        device = solution.device_of(item.name)
        assignments.append(TierAssignment(
            area=item.name, kind=item.cls, device=device, medium=medium[device], size_bytes=item.size_bytes,
            slot_bytes=item.slot_bytes,
            iops=round(item.iops, 3), after_ms=round(times[item.name], 4),
            baseline_device=baseline.device_of(item.name), reason=reasons.get(item.name, ""),
        ))
    curve = tuple(TierCurvePoint(b, None if ms is None else round(ms, 4)) for b, ms in result.curve)
    return TierPlan(devices, tuple(assignments), round(solution.mean_ms, 4), round(baseline.mean_ms, 4), curve,
                    solution.rules)


def make_tier_plan(
    workload: Workload, classified: Sequence[Classified], models: Sequence[DeviceModel], headroom: float,
    current: dict[str, float], options: PlanOptions,
) -> Plan:
    """Search, then assemble the plan document with its tier section and scripts."""
    result = plan_tiers(tier_items(classified, headroom), targets_of(models), progress=options.progress)
    left_out = {o.item.name for o in result.oversized}
    items = [i for i in tier_items(classified, headroom) if i.name not in left_out]
    if options.progress is not None:
        options.progress("'before' layout", 0, 1)
    before, note = _before(items, result, current, models)
    if options.progress is not None:
        options.progress("'before' layout", 1, 1)
    chosen = result.baseline if options.knapsack else result.solution
    notes = [note] + (["This is the IO-density knapsack baseline (--knapsack), not the searched plan."]
                      if options.knapsack else [])
    notes += [f"Not planned (AREA_EXCEEDS_DEVICE): {o.describe()}." for o in result.oversized]
    solution, capacities, names = _solution(chosen)
    labels: dict[str, str | None] = dict.fromkeys(before)
    plan = build_plan(classified, solution, before, labels, capacities, options, names, workload.server.settings,
                      options.dbms or workload.server.dbms, workload.server.version_num, notes)
    section = tier_plan_section(result, items, options.knapsack)
    return replace(plan, scripts=per_device_scripts(plan, options.mount_root), tiers=section, method="tiers")
