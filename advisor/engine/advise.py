"""The advisor: workload + layout + disk models -> findings, plan, predicted gains.

``advise(request)`` is the one entry point every caller uses (``report``, ``plan``, the fleet's
windows and its interval summaries): an :class:`AdviceRequest` holds everything a report
depends on (the workload, the disk models and their basis, the plan options, the areas whose
size was assumed, whether the cache is kept, the time), and the report comes back finished
(coverage, assumed sizes, model basis, outcome), so no caller completes it afterwards and two
callers with the same request print the same report. It is pure (no IO, no drivers, no clock:
the request says when the report is made). It groups files into areas, classifies them,
applies the response-time gate, predicts the current layout's service times disk by disk,
collects findings, and, when IO matters and the disks rotate, optimises the order of areas
from the outer edge and writes the scripts.
``audit_findings`` is the subset ``advisor audit`` shows next to its disk map.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace

from advisor import __version__
from advisor.disk.media.build import DeviceModel, by_disk_name
from advisor.disk.physics import DiskPhysics
from advisor.engine.calibrate import Calibration, calibrate_reads, reads_cached
from advisor.engine.classify import Classified, classify
from advisor.engine.findings import DiskView, disk_view, placement_findings
from advisor.engine.findings_disk import cache_lies, commit_bound, misaligned, placement_unknown, solid_state
from advisor.engine.gate import GateResult, gate_for_wait, not_io_bound_finding
from advisor.engine.hot_objects import group_with_objects
from advisor.engine.model_fit import Misfit, fit_misfits, misfit_finding, model_misfits
from advisor.engine.optimizer import DiskLayout, Solution, evaluate, optimise, order_disk
from advisor.engine.peak_size import sized_for_peak
from advisor.engine.planner import PlanOptions, build_plan, place_items, progress_for
from advisor.engine.replay_check import check_trace, misfit, verdict, with_overruled
from advisor.engine.replay_today import SelfCheck, replay_fits, self_checks
from advisor.engine.saturation import (
    disk_depths,
    disk_time_misfits,
    disk_utils,
    overruled_by_replay,
    saturation,
    saturation_finding,
)
from advisor.engine.worth import judge, outcome
from advisor.model import (
    AreaRow,
    DiskProfile,
    DiskSummary,
    Finding,
    LayoutDisk,
    LayoutPartition,
    LayoutSummary,
    Plan,
    ReplayCheck,
    Report,
    ServerSummary,
    Snapshot,
    Workload,
)
from advisor.model.report import NoPlan
from advisor.rates.workload import since_start
from advisor.units import DISK_MB

SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}


@dataclass(frozen=True)
class Models:
    """Disk physics to use: one per disk name, and a default for the rest (preset or fit)."""

    default: DiskPhysics
    per_disk: Mapping[str, DiskPhysics] = field(default_factory=dict)
    profiles: Mapping[str, DiskProfile] = field(default_factory=dict)
    basis: str = ""
    """Which model judges which disk and why, in words (``Report.model_basis``; empty: not said)."""
    fit_errors: Mapping[str, float] = field(default_factory=dict)
    """Per disk with a fitted bench profile, the fitted model's RMS relative error over the figures it was fitted to."""
    default_fit_error: float | None = None
    """The same for the default model, when one profile judges every disk."""

    def fit_error(self, disk: str | None) -> float | None:
        """The RMS error of the model fitted to *disk*'s bench profile (None: no profile was fitted)."""
        if disk is not None and disk in self.per_disk:
            return self.fit_errors.get(disk)
        return self.default_fit_error

    def of(self, disk: str | None) -> DiskPhysics:
        """The physics of *disk* (the default when it has none of its own)."""
        if disk is not None and disk in self.per_disk:
            return self.per_disk[disk]
        return self.default


@dataclass(frozen=True)
class Analysis:
    """Intermediate results shared by ``advise`` and ``audit_findings``."""

    classified: list[Classified]
    gate: GateResult
    views: dict[str, DiskView]
    ssd_disks: set[str]
    findings: list[Finding]
    calibration: Calibration
    refuted: frozenset[str | None] = frozenset()
    """Disks (None: the default model) whose assumed model the measurements refute."""
    overruled: tuple[Misfit, ...] = ()
    """Disk-time refutations of disks whose fitting replay judges instead (a note of the replay)."""


def _disk_sizes(workload: Workload) -> dict[str, int]:
    return {d.name: d.size_bytes for d in workload.layout.devices} if workload.layout else {}


def analyse(workload: Workload, models: Models, flat_disks: frozenset[str] = frozenset(),
            cache_kept: bool = True, replayed: frozenset[str] = frozenset()) -> Analysis:
    """Areas, classes, gate, current-layout predictions and every finding.

    The areas are built from the read rates calibrated against the kernel's diskstats
    (:mod:`advisor.engine.calibrate`): reads the page cache served do not move the head.
    *flat_disks* are disks an inventory says have no zones (solid state, cloud volumes):
    no zone finding is made about them. *cache_kept* False (``--cache lost``) plans by every
    read the database reported. *replayed* are the disks whose trace's replay fits: there the
    replay, not the aggregate model's disk time, judges (:func:`overruled_by_replay`).
    """
    calibration = calibrate_reads(workload, cache_kept)
    areas = group_with_objects(calibration.rates, workload.layout, workload.segments)
    classified = classify([calibration.with_database_pattern(a) for a in areas])
    gate = gate_for_wait(workload.wait)
    findings: list[Finding] = []
    gate_finding = not_io_bound_finding(gate)
    if gate_finding is not None:
        findings.append(gate_finding)
    ssd_findings, ssd_disks = solid_state(models.profiles, workload.layout)
    findings += ssd_findings
    findings += placement_unknown(classified, workload.layout)
    findings += misaligned(workload.layout)
    rpm_of = {d: _rpm(models.of(d)) for d in {c.area.disk for c in classified if c.area.disk} | set(models.profiles)}
    findings += cache_lies(models.profiles, rpm_of)
    sizes = _disk_sizes(workload)
    views: dict[str, DiskView] = {}
    for disk in sorted({c.area.disk for c in classified if c.area.disk and c.area.placement_known}):
        if disk in ssd_disks or disk in flat_disks:
            continue
        physics = models.of(disk)
        views[disk] = disk_view(disk, sizes.get(disk, physics.capacity_bytes), physics, classified)
    # a finding may rest on a disk's model only where the measurements do not refute it
    rotating = {c.area.disk for c in classified} - ssd_disks - flat_disks
    fit_errors = {d: e for d in rotating if d is not None and (e := models.fit_error(d)) is not None}
    misfits = fit_misfits(classified, fit_errors)
    misfits += model_misfits(classified, {d: models.of(d) for d in rotating if d not in {m.disk for m in misfits}})
    misfits += disk_time_misfits({d: v for d, v in views.items() if d not in {m.disk for m in misfits}},
                                 disk_utils(workload.diskstats), disk_depths(workload.diskstats))
    misfits, overruled = overruled_by_replay(misfits, replayed)
    refuted = frozenset(m.disk for m in misfits)
    findings += [misfit_finding(m, models.of(m.disk).name) for m in misfits]
    findings += commit_bound([c for c in classified if c.area.disk not in refuted], rpm_of, _rpm(models.default))
    views = {disk: view for disk, view in views.items() if disk not in refuted}
    placement = placement_findings(views)
    if not gate.passed:
        # the disk would gain, the database hardly: a placement finding cannot matter more than "low"
        placement = [replace(f, severity="low") for f in placement]
    findings += placement
    findings += reads_cached(calibration)
    # NOT_IO_BOUND frames every other finding, so it leads; then by severity and gain
    findings.sort(key=lambda f: (f.code != "NOT_IO_BOUND", SEVERITY_ORDER.get(f.severity, 9),
                                 -(f.predicted_gain or 0.0), f.code, f.subject))
    return Analysis(classified, gate, views, ssd_disks, findings, calibration, refuted, tuple(overruled))


def flat_disks(target: Sequence[DeviceModel]) -> frozenset[str]:
    """Names under which today's layout may show the inventory's zone-less devices."""
    return frozenset(name for name, m in by_disk_name(target).items() if m.zoned is None)


def tier_findings(analysis: Analysis, options: PlanOptions, plan: Plan | None) -> list[Finding]:
    """AREA_EXCEEDS_DEVICE, SMR_FOR_WRITES, CLOUD_VOLUME_SMALL_IO, FAST_TIER_FULL / FAST_TIER_IDLE."""
    from advisor.engine.tiers.findings import area_exceeds_device, cloud_small_io, fast_tier_use, smr_for_writes

    tiers = plan.tiers if plan is not None else None
    found = area_exceeds_device(analysis.classified, options.target, options.headroom)
    found += smr_for_writes(analysis.classified, options.target)
    found += cloud_small_io(analysis.classified, options.target, tiers)
    found += fast_tier_use(tiers)
    return found


def _rpm(physics: DiskPhysics) -> int | None:
    return int(physics.rpm) if physics.rpm else None


_Placed = tuple[Solution, dict[str, float], dict[str, str | None], list[int], list[str]]


def _plan_current_disks(analysis: Analysis, options: PlanOptions) -> _Placed:
    """Re-order the areas of each located rotating disk on that same disk."""
    layouts: list[DiskLayout] = []
    before: dict[str, float] = {}
    labels: dict[str, str | None] = {}
    names: list[str] = []
    capacities: list[int] = []
    methods: set[str] = set()
    for disk, view in sorted(analysis.views.items()):
        if not view.areas:
            continue
        capacities.append(view.size_bytes)
        items = place_items(view.areas, view.size_bytes, options.headroom)
        layout, method = order_disk(view.physics, items, len(names))
        layouts.append(layout)
        methods.add(method)
        names.append(disk)
        for c, band, ms in zip(view.areas, view.bands, view.times_ms, strict=True):
            before[c.area.name] = ms
            labels[c.area.name] = f"{c.area.partition or disk} @ {band[0]:.0%}-{band[1]:.0%}"
    total = sum(layout.iops for layout in layouts)
    mean = sum(layout.mean_ms * layout.iops for layout in layouts) / total if total > 0 else 0.0
    return Solution(tuple(layouts), mean, "+".join(sorted(methods))), before, labels, capacities, names


def _plan_new_disks(analysis: Analysis, models: Models, options: PlanOptions) -> tuple[
    Solution, dict[str, float], dict[str, str | None], list[int], list[str], list[str]
]:
    """Lay all areas out on ``options.disks`` new disks of the default model."""
    physics = models.default
    active = analysis.classified
    items = place_items(active, physics.capacity_bytes, options.headroom)
    if options.progress is not None:
        options.progress("zone order", 0, 1)
    solution = optimise(physics, items, options.disks)
    if options.progress is not None:
        options.progress("zone order", 1, 1)
    names = [f"disk{i + 1}" for i in range(options.disks)]
    now: dict[str, float] = {}
    labels: dict[str, str | None] = {}
    for disk, view in analysis.views.items():
        for c, band, ms in zip(view.areas, view.bands, view.times_ms, strict=True):
            now[c.area.name] = ms
            labels[c.area.name] = f"{c.area.partition or disk} @ {band[0]:.0%}-{band[1]:.0%}"
    if all(c.area.name in now for c in active if c.area.iops > 0):
        notes = ["'before' is today's layout (each area at its current zone positions) on the target disk model."]
        return solution, now, labels, [physics.capacity_bytes] * options.disks, names, notes
    # the same headroom as the plan when it fits one disk: 'before' and 'after' then differ by the order alone
    # (packed tight, 'before' sat on faster tracks than any plan with growth room can: a false loss)
    baseline_items = place_items(active, physics.capacity_bytes, options.headroom)
    roomy = sum(item.slot_fraction for item in baseline_items) <= 1.0
    if not roomy:
        baseline_items = place_items(active, physics.capacity_bytes, 0.0)
    times, _ = evaluate(physics, baseline_items)
    before = {item.name: ms for item, ms in zip(baseline_items, times, strict=True)}
    packed = "with the same headroom" if roomy else "without headroom (with it they overflow one disk)"
    notes = ["No current placement known: 'before' is the areas packed from the outer edge of one disk in "
             f"workload order, {packed}."]
    return solution, before, dict.fromkeys(before), [physics.capacity_bytes] * options.disks, names, notes


def _disk_names(workload: Workload, options: PlanOptions, names: list[str],
                notes: list[str]) -> tuple[list[str], list[str]]:
    """Today's device names when the plan lays out today's disks (``report`` on a host whose areas
    have no known position: ``vda``, not ``disk1``); ``disk1..N`` only for new disks, and said so."""
    devices = [d.name for d in workload.layout.devices] if workload.layout is not None else []
    if not options.new_disks and len(devices) == len(names):
        return devices, notes
    today = f" (today's: {', '.join(devices)})" if devices else ""
    what = "a new disk of the model" if len(names) == 1 else "new disks of the model"
    host = "not a disk of this host" if len(names) == 1 else "not disks of this host"
    return names, [*notes, f"{', '.join(names)}: {what}{today}, {host}."]


def make_plan(
    workload: Workload, analysis: Analysis, models: Models, options: PlanOptions
) -> tuple[Plan | None, NoPlan | None]:
    """The plan, or None with the reason (gate closed, solid state, nothing to place, sizes unknown)."""
    if options.no_plan is not None:
        return None, NoPlan("sizes-unknown", options.no_plan)
    if not analysis.gate.passed and not options.force:
        return None, NoPlan("not-io-bound", f"No plan: {analysis.gate.reason} (use --force to plan anyway).")
    if not analysis.classified:
        return None, NoPlan("no-files", "No plan: the workload has no files.")
    options = replace(options, progress=progress_for(options, len(analysis.classified)))
    capacity = min((v.size_bytes for v in analysis.views.values()), default=models.default.capacity_bytes)
    classified, temp_notes = sized_for_peak(analysis.classified, workload.interval_s, workload.server.settings,
                                            capacity * options.disks, options.headroom, workload.temp_high_water_bytes)
    sized = {c.area.name: c for c in classified}
    views = {disk: replace(view, areas=tuple(sized[c.area.name] for c in view.areas))
             for disk, view in analysis.views.items()}
    analysis = replace(analysis, classified=classified, views=views)
    if options.target:
        from advisor.engine.tiers.plan import make_tier_plan

        current = {c.area.name: ms for view in analysis.views.values()
                   for c, ms in zip(view.areas, view.times_ms, strict=True)}
        tiered = make_tier_plan(workload, analysis.classified, options.target, options.headroom, current, options)
        # worth judged only against today's layout: a new machine's layout is needed whatever it gains
        today = bool(current) and all(c.area.name in current for c in analysis.classified if c.area.iops > 0)
        return (judge(tiered, options.min_gain) if today else tiered), None
    if analysis.refuted and not analysis.views and not options.new_disks:
        return None, NoPlan("model-does-not-fit",
                            "No plan: the assumed disk model does not fit what was measured (see MODEL_DOES_NOT_FIT).")
    if analysis.views and options.disks == 1 and not options.new_disks:
        solution, before, labels, capacities, names = _plan_current_disks(analysis, options)
        notes: list[str] = list(temp_notes)
    else:
        if models.default.rpm is None or "*" in analysis.ssd_disks or _all_ssd(analysis, models):
            return None, NoPlan("solid-state", "No zone plan: the disks are solid state (see SOLID_STATE).")
        solution, before, labels, capacities, names, notes = _plan_new_disks(analysis, models, options)
        names, notes = _disk_names(workload, options, names, [*notes, *temp_notes])
    if not solution.disks:
        return None, NoPlan("nothing-located", "No plan: no area is located on a rotating disk.")
    dbms = options.dbms or workload.server.dbms
    plan = build_plan(
        analysis.classified, solution, before, labels, capacities, options, names,
        workload.server.settings, dbms, workload.server.version_num, notes,
    )
    if options.in_place and options.scripts:
        from advisor.engine.stages import stage_plan

        plan = stage_plan(plan, analysis.classified, workload.layout, models.of(names[0]), options,
                          dict(workload.server.settings), dbms, workload.server.version_num)
    return judge(plan, options.min_gain), None


def _all_ssd(analysis: Analysis, models: Models) -> bool:
    return any(p.classification == "solid-state" for p in models.profiles.values()) and not analysis.views


def _disk_summary(models: Models, analysis: Analysis, new_disks: bool) -> dict[str, DiskSummary]:
    """Per disk the model used; ``target`` is the model of the new disks a plan lays out."""
    out: dict[str, DiskSummary] = {}
    names = set(analysis.views) | set(models.per_disk) | set(models.profiles)
    if new_disks:
        names.add("target")
    if not names:
        names = {"model"}
    for name in sorted(names):
        physics = models.of(name)
        view = analysis.views.get(name)
        profile = models.profiles.get(name)
        # a solid-state profile's model is a preset carrying only the size: its curve is not this
        # disk's; draw what the bench measured (renderers say which: render.text.curve_source)
        curve = (tuple((round(z.fraction, 4), round(z.bytes_per_s / DISK_MB, 2)) for z in profile.zones)
                 if profile is not None and profile.classification == "solid-state"
                 else tuple((round(f, 4), round(r, 2)) for f, r in physics.zone_curve(17)))
        out[name] = DiskSummary(
            model=physics.name, rpm=physics.rpm, capacity_bytes=physics.capacity_bytes,
            solid_state=name in analysis.ssd_disks,
            zone_curve=curve,
            mean_ms_now=round(view.mean_ms, 4) if view else None,
            size_bytes=view.size_bytes if view else physics.capacity_bytes,
        )
    return out


def _layout_summary(workload: Workload) -> LayoutSummary:
    if workload.layout is None:
        return LayoutSummary()
    sizes = {d.name: d.size_bytes for d in workload.layout.devices}
    partitions: dict[str, list[LayoutPartition]] = {}
    for part in workload.layout.partitions:
        size = sizes.get(part.disk)
        if not size:
            continue
        lo, hi = part.fraction_range(size)
        partitions.setdefault(part.disk, []).append(
            LayoutPartition(part.name, round(lo, 6), round(hi, 6), tuple(part.mountpoints), part.fstype))
    disks = {disk: LayoutDisk(sizes[disk], tuple(parts)) for disk, parts in partitions.items()}
    return LayoutSummary(workload.layout.hostname, disks)


def _area_rows(classified: Sequence[Classified], calibration: Calibration,
               assumed: frozenset[str]) -> tuple[AreaRow, ...]:
    rows = []
    for c in classified:
        area, reads = c.area, calibration.area_row(c.area.name)
        rows.append(AreaRow(
            name=area.name, kind=area.kind, area_class=c.cls, reason=c.reason, io_share=round(c.io_share, 4),
            iops=round(area.iops, 3), read_iops=round(area.read_iops, 3), write_iops=round(area.write_iops, 3),
            mb_s=round(area.mb_s, 3), read_mb_s=round(area.read_mb_s, 3),
            size_bytes=None if area.files_size_unknown else area.size_bytes,
            files=area.files, disk=area.disk, partition=area.partition, zone_start=area.zone_start,
            zone_end=area.zone_end, zone_mean=area.zone_mean, placement_known=area.placement_known,
            db_read_iops=reads["db_read_iops"], db_read_mb_s=reads["db_read_mb_s"],
            disk_read_share=reads["disk_read_share"], whole_tablespace=area.whole_tablespace,
            size_assumed=area.name in assumed,
        ))
    return tuple(rows)


@dataclass(frozen=True)
class AdviceRequest:
    """Everything one report depends on; :func:`advise` turns it into the finished report.

    *options* are the plan's (``None``: the defaults); new plan choices belong there, so
    this request does not change when the planner gains one. *cache_kept*: whether the new
    server keeps today's cache (``--cache kept|lost``). *generated_at*: when the report is
    made, timezone-aware (the caller's clock; the engine reads none). *assumed_sizes*: the
    areas whose size ``--assume-size`` gave, marked in every format.
    """

    workload: Workload
    models: Models
    options: PlanOptions | None = None
    cache_kept: bool = True
    _: KW_ONLY
    generated_at: dt.datetime
    assumed_sizes: frozenset[str] = frozenset()


def advise(request: AdviceRequest) -> Report:
    """The whole answer for one workload: findings, plan, predicted gains, scripts.

    The report is finished here: a report import's coverage of its own totals, the areas
    whose size was assumed, the model basis and the outcome are all in it. Raises
    ``ValueError`` for a naive ``generated_at``: the same inputs must give the same report.
    """
    workload, models, generated_at = request.workload, request.models, request.generated_at
    cache_kept, options = request.cache_kept, request.options
    if generated_at.tzinfo is None:
        raise ValueError("generated_at must be timezone-aware")
    opts = options or PlanOptions()
    checked = self_checks(workload, models.of)
    fitting = replay_fits(checked, workload.traces)
    analysis = analyse(workload, models, flat_disks(opts.target), cache_kept, fitting)
    plan, no_plan = make_plan(workload, analysis, models, opts)
    replayed, findings = _replay(workload, models, plan, analysis, checked, opts.target)
    if plan is not None and replayed:
        plan = verdict(plan, replayed, opts.min_gain)
    if findings:
        analysis = replace(analysis, findings=analysis.findings + findings)
    if opts.target:
        analysis = replace(analysis, findings=analysis.findings + tier_findings(analysis, opts, plan))
    saturated = saturation(analysis.views, disk_utils(workload.diskstats), plan,
                           frozenset(m.disk for m in analysis.overruled if m.disk is not None),
                           {c.disk: c.traced_busy for c in replayed if c.traced_busy is not None}, fitting,
                           workload.wait.io_wait_share)
    if saturated is not None:
        analysis = replace(analysis, findings=[*analysis.findings, saturation_finding(saturated, replayed)])
    server = workload.server
    if no_plan is None and plan is not None and plan.not_worth_it is not None:
        no_plan = NoPlan("not-worth-it", plan.not_worth_it)
    return Report(
        generated_at=generated_at.astimezone(dt.UTC).isoformat(timespec="seconds"),
        server=ServerSummary(server.dbms, server.version, server.host, server.name),
        interval_s=workload.interval_s,
        disks=_disk_summary(models, analysis, opts.new_disks),
        findings=tuple(analysis.findings),
        plan=plan,
        io_wait_share=workload.wait.io_wait_share,
        layout=_layout_summary(workload),
        areas=_area_rows(analysis.classified, analysis.calibration, request.assumed_sizes),
        warnings=tuple(workload.warnings) + (analysis.gate.reason,) + tuple(analysis.calibration.notes())
        + ((no_plan.words,) if no_plan is not None and plan is None else ()),
        tool_version=__version__,
        replay=replayed,
        saturation=saturated,
        model_basis=models.basis or None,
        no_plan=no_plan,
        outcome=outcome(plan, analysis.findings, no_plan, replayed),
        coverage=workload.coverage,
    )


def _replay(workload: Workload, models: Models, plan: Plan | None, analysis: Analysis,
            checked: Sequence[SelfCheck | ReplayCheck],
            targets: Sequence[DeviceModel]) -> tuple[tuple[ReplayCheck, ...], list[Finding]]:
    """The replay of every trace the workload carries, and MODEL_DOES_NOT_FIT where it fails."""
    rates = analysis.calibration.rates
    checks = tuple(check_trace(trace, workload, models.of(trace.disk), plan, rates, early, targets)
                   for trace, early in zip(workload.traces, checked, strict=True))
    overruled = {m.disk: m for m in analysis.overruled}
    checks = tuple(with_overruled(c, overruled[c.disk]) if c.disk in overruled else c for c in checks)
    return checks, [misfit(c, models.of(c.disk).name) for c in checks if c.fits is False]


def audit_findings(workload_or_snapshot: Workload | Snapshot, models: Models | DiskPhysics) -> list[Finding]:
    """Findings for ``advisor audit``: the layout as it is, no plan."""
    workload = since_start(workload_or_snapshot) if isinstance(workload_or_snapshot, Snapshot) else workload_or_snapshot
    resolved = models if isinstance(models, Models) else Models(default=models)
    return analyse(workload, resolved).findings
