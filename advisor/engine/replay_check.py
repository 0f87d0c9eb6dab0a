"""The replay of a traced workload under the plan's layout, after the self-check on today's.

For each disk a trace covers (``Workload.traces``, ``collect --trace``), the trace is first
replayed under today's layout and compared with what it measured (the self-check,
:mod:`advisor.engine.replay_today`); then under the planned layout: each area's extents laid end
to end from its planned zone start (files in order, each file in file order), every other
request where it was. Under a tier plan (``--target``) each request goes to its area's device of
the inventory, a drive or a flat device (:mod:`advisor.engine.replay_tiers`,
:mod:`advisor.disk.replay_devices`).

The gain is 1 - planned / today, both replayed under the same rotational phases, so the model's
own bias cancels; it is the plan's verdict where a replay exists, shown beside the aggregate
model's figure. On a disk with a queue it is 1 - planned / today of the drive's busy time
(:mod:`advisor.engine.replay_saturated`), the per-request figures beside it. Each phase's gain is
kept too: the lowest and highest, the spread one replay would have drawn from.

Cache flushes: each flush belongs to the write it follows (:mod:`advisor.trace.links`),
and its time counts in that write's area. An area's row is the time of its reads and writes **and of the flushes
they own**, per read or write, measured and replayed alike: a commit's WAL time is its
write and its flush, as the database waits for both. The self-check (and the disk's
replayed gain) compares the mean time of the reads, writes and flushes, on both sides: a
write and the flush after it split one commit's wait in a way the host decides (a write
the host's path delays reaches the drive later, and its flush then waits less for the
sector to come round: the commit ends at the same turn of the platter), so the writes
alone would charge the drive with the host's delay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import numpy as np

from advisor.disk.media.build import DeviceModel
from advisor.disk.physics import DiskPhysics
from advisor.disk.replay import Replayed, causes
from advisor.disk.replay_devices import replay_on_devices
from advisor.engine.model_fit import Misfit
from advisor.engine.replay_area_gain import area_saved, area_self_check, misfit_notes
from advisor.engine.replay_barriers import (
    barrier_fields,
    barrier_notes,
    barriers,
    behind_flushes,
    with_commit_waits,
)
from advisor.engine.replay_fs import placement_note
from advisor.engine.replay_issuers import (
    Timelines,
    client_sessions,
    issuer_names,
    named_issuer_rows,
    per_request_ms,
    windowed_requests,
)
from advisor.engine.replay_layout import area_of_requests, planned_offsets
from advisor.engine.replay_loops import judged_loops
from advisor.engine.replay_noise import (
    GAIN_WINDOWS,
    MODEL_ERROR,
    busy_costs,
    clears,
    combined_error,
    common_error,
    gain_error,
    time_costs,
    total_error,
    windows_of,
)
from advisor.engine.replay_phase import AREA_PHASE_SPREAD, phase_spread, unsteady_notes
from advisor.engine.replay_saturated import BusyCheck, busy_times
from advisor.engine.replay_tiers import TierRoute, tier_route
from advisor.engine.replay_today import (
    REPLAY_TOLERANCE,
    SelfCheck,
    phase_means,
    phase_range,
    phased_replays,
    refused,
    self_check,
)
from advisor.errors import BadInput
from advisor.model import BlockTrace, FileRate, Finding, Plan, ReplayArea, ReplayCheck, Workload
from advisor.model.report import IssuerKind
from advisor.trace.links import flush_owners


def with_overruled(check: ReplayCheck, overruled: Misfit) -> ReplayCheck:
    """*check* with a note of why the aggregate model's disk-time refutation of its disk is a note, not a verdict."""
    return msgspec.structs.replace(check, aggregate_refuted=True, notes=(*check.notes,
        f"{check.disk}: the aggregate model charges {overruled.measured:.0f} % of the interval in disk time, "
        f"more than the {overruled.allowed:.0f} % it may (DISK_TIME_SLACK x the kernel's busy time): it "
        f"serves one IO at a time, while up to {check.queue_depth} requests were in flight and the drive "
        f"reorders them. The replay, which models the queue and fits the measured times "
        f"(±{check.tolerance:.0%}), judges this disk and its plan."))


def check_trace(trace: BlockTrace, workload: Workload, physics: DiskPhysics, plan: Plan | None,
                rates: Sequence[FileRate] | None = None, checked: SelfCheck | ReplayCheck | None = None,
                targets: Sequence[DeviceModel] = ()) -> ReplayCheck:
    """The replay of one trace (see the module docstring); *rates* are the ones the engine made
    its areas of (the calibrated rates: they decide which objects are placed alone); *checked*
    the trace's :func:`~advisor.engine.replay_today.self_check` when already made; *targets* the
    inventory's devices a tier plan (``--target``) places areas on. A trace whose data cannot be
    read is refused in a line: the rest of the report does not need it."""
    today = self_check(trace, workload, physics) if checked is None else checked
    if isinstance(today, ReplayCheck):
        return today
    try:
        return _judged(trace, today, plan, workload.rates if rates is None else rates, targets)
    except BadInput as exc:
        return refused(trace, today.notes, f"trace of {trace.disk}: {exc.one_line()}; no replay")


def _judged(trace: BlockTrace, checked: SelfCheck, plan: Plan | None, rates: Sequence[FileRate],
            targets: Sequence[DeviceModel]) -> ReplayCheck:
    requests, stream, today, data, timed = checked.requests, checked.stream, checked.today, checked.data, checked.timed
    notes, replayed_ms, deviation = checked.notes, checked.replayed_ms, checked.deviation
    owners = flush_owners(requests)
    flushes_timed = timed & ~data
    names, area_files = request_areas(trace, rates, checked, owners)
    planned, spread, said = _planned(trace, checked, plan, targets, area_files, [n or None for n in names.tolist()])
    notes += said
    planned_ms = gains = request_gain = None
    if planned is not None:
        planned_phase_ms = phase_means(planned, timed) * 1000.0
        planned_ms = round(float(planned_phase_ms.mean()), 4)
        gains = phase_range(1.0 - planned_phase_ms / checked.today_phase_ms)
        request_gain = round(1.0 - planned_ms / replayed_ms, 4) if replayed_ms else None
    worked, planned_busy = checked.busy_time, None
    gain = request_gain
    if worked is not None and planned is not None:
        planned_busy = busy_times(planned)
        gains = phase_range(1.0 - planned_busy / worked.today_s)
        gain = round(gain_of(checked, planned), 4)
    windowed = _gain_error(checked, planned) if planned is not None else None
    spread_gain = gain_of(checked, spread) if spread is not None else None
    noise = total_error(windowed, gain, spread_gain)
    area_rows = []
    today_s = [r.service_s for r in today]  # each phase's times, taken once for every area and issuer
    planned_s = [r.service_s for r in planned] if planned is not None else None
    waited, flush = behind_flushes(requests.op, requests.issue_s, requests.complete_s)
    named = issuer_names(trace.processes, requests.process, owners, data)  # None: no issuer to tell
    timelines = replay_timelines(trace, checked, planned, named)
    within = windowed_requests(requests.process, timelines)
    issuers = (named_issuer_rows(named, requests.process, data, flushes_timed, requests.service_s, today_s,
                                 planned_s, waited, timelines, within) if named is not None else ())
    behind = barriers(checked.busy, issuers, named[0], waited, flush) if named is not None else None
    for area in sorted({str(a) for a in names.tolist() if a}):
        mask, flushes = data & (names == area), flushes_timed & (names == area)
        if mask.any():
            measured = per_request_ms([requests.service_s], mask, flushes, [within.measured])
            replayed = per_request_ms(today_s, mask, flushes, within.today)
            off, fits = area_self_check(measured, replayed)
            varies = phase_spread(today_s, planned_s, mask, flushes) if planned_s is not None else None
            share, free = barrier_fields(behind, mask, float(requests.service_s[mask | flushes].sum()),
                                         planned_s is not None)
            planned_area = None if planned_s is None else per_request_ms(planned_s, mask, flushes, within.planned)
            area_gain, gain_from = area_saved(measured, replayed, planned_area, fits)
            area_rows.append(ReplayArea(area, int(mask.sum()), measured, replayed, planned_area,
                                        flushes=int(flushes.sum()), deviation=off, fits=fits,
                                        phase_spread=varies,
                                        steady=None if varies is None else varies < AREA_PHASE_SPREAD,
                                        behind_commits=share, barrier_free=free,
                                        predicted_gain=area_gain, gain_from=gain_from))
    deviations = checked.deviations
    waits_said: tuple[str, ...] = ()
    if named is not None:
        issuers = with_commit_waits(behind, issuers, named[0], data, requests.service_s, flushes_timed)
        waits_said = barrier_notes(behind, issuers, named[0], data)
        issuers, loops_said = judged_loops(issuers, named[0], data, stream.process, checked.linked[0], owners,
                                           timelines)
        waits_said += tuple(f"{trace.disk}: {note}" for note in loops_said)
    return ReplayCheck(
        disk=trace.disk, requests=len(requests), queue_depth=today[0].queue_depth, measured_ms=checked.measured_ms,
        replayed_ms=replayed_ms, deviation=round(deviation, 4) if deviation is not None else None,
        tolerance=REPLAY_TOLERANCE, fits=checked.fits, planned_ms=planned_ms,
        predicted_gain=gain,
        aggregate_gain=plan.predicted_gain if plan is not None and planned is not None else None,
        measured_span_s=round(float(requests.complete_s.max() - requests.issue_s.min()), 4),
        replayed_span_s=_mean_span_s(today), planned_span_s=_mean_span_s(planned) if planned else None,
        areas=tuple(area_rows), traced_busy=checked.busy,
        notes=(notes + misfit_notes(checked, area_rows) + unsteady_notes(area_rows, len(checked.phases))
               + waits_said),
        phases=len(checked.phases),
        deviation_low=deviations[0] if deviations else None, deviation_high=deviations[1] if deviations else None,
        gain_low=gains[0] if gains else None, gain_high=gains[1] if gains else None,
        overlapped=checked.overlapped, issuers=issuers,
        mean_in_flight=round(checked.in_flight, 2) if checked.in_flight is not None else None,
        starved_measured=round(checked.starved.measured, 4),
        starved_replayed=round(checked.starved.replayed, 4), deviation_unstarved=checked.starved.deviation_without,
        gain_error=None if noise is None else round(noise, 4),
        window_error=None if windowed is None else round(windowed, 4),
        gain_windows=GAIN_WINDOWS if windowed is not None else None,
        spread_gain=None if spread_gain is None else round(spread_gain, 4),
        model_error=MODEL_ERROR if noise is not None else None,
        **_busy_fields(worked, planned_busy, request_gain),
    )


def replay_timelines(trace: BlockTrace, checked: SelfCheck, planned: Sequence[Replayed] | None,
                     named: tuple[np.ndarray, dict[str, IssuerKind]] | None) -> Timelines:
    """The check's timelines, as traced, replayed today and under *planned*, with each database's client
    sessions (*named*: :func:`~advisor.engine.replay_issuers.issuer_names` of the check's requests; None:
    nobody named, no session)."""
    requests = checked.requests
    sessions = client_sessions(trace.processes, requests.process, named[0], checked.data) if named is not None else {}
    return Timelines((requests.issue_s, requests.complete_s), [(r.issue_s, r.complete_s) for r in checked.today],
                     [(r.issue_s, r.complete_s) for r in planned] if planned is not None else None, sessions)


def request_areas(trace: BlockTrace, rates: Sequence[FileRate], checked: SelfCheck,
                  owners: np.ndarray) -> tuple[np.ndarray, dict[str, list[int]]]:
    """Per request of the check, the area it counts for ("" for none): a read's or a write's by its file, a
    flush's by its owning write (*owners*, :func:`advisor.trace.links.flush_owners`); and each area's files."""
    areas, area_files = area_of_requests(trace, rates, checked.stream.offset_bytes)
    names = np.array([a or "" for a in areas], dtype=object)
    named: np.ndarray = np.where(owners >= 0, names[np.maximum(owners, 0)], np.where(checked.data, names, ""))
    return named, area_files


def gain_of(checked: SelfCheck, replays: Sequence[Replayed]) -> float:
    """1 - planned / today for *replays* of another layout than today's, on the check's basis."""
    if checked.busy_time is not None:
        return 1.0 - float(busy_times(replays).mean()) / checked.busy_time.replayed_s
    return 1.0 - float(phase_means(replays, checked.timed).mean()) * 1000.0 / checked.replayed_ms


def _gain_error(checked: SelfCheck, planned: Sequence[Replayed]) -> float | None:
    """The standard error of the replayed gain over windows of the trace (:mod:`.replay_noise`): of the
    requests' shares of the busy time on a disk with a queue, else of the timed requests' times."""
    window = windows_of(checked.requests.issue_s)
    if checked.busy_time is not None:
        return gain_error(busy_costs(checked.today), busy_costs(planned), window)
    return gain_error(time_costs(checked.today, checked.timed), time_costs(planned, checked.timed), window)


def _busy_fields(worked: BusyCheck | None, planned: np.ndarray | None, request_gain: float | None) -> dict[str, Any]:
    """The ReplayCheck's figures of a queued disk's busy time (none where the disk had no queue)."""
    if worked is None:
        return {}
    return {"basis": "busy time", "measured_busy_s": round(worked.measured_s, 4),
            "replayed_busy_s": round(worked.replayed_s, 4), "busy_deviation": round(worked.deviation, 4),
            "planned_busy_s": round(float(planned.mean()), 4) if planned is not None else None,
            "request_gain": request_gain}


def _planned(trace: BlockTrace, checked: SelfCheck, plan: Plan | None, targets: Sequence[DeviceModel],
             area_files: dict[str, list[int]], owners_area: list[str | None]
             ) -> tuple[tuple[Replayed, ...] | None, tuple[Replayed, ...] | None, tuple[str, ...]]:
    """The replays under *plan* (one per phase of the self-check), or None and the note why there are none;
    and under a zone plan the replays with each moved area as spread as today (:mod:`.replay_layout`): the
    same replays where that puts every request where laying end to end does (no gap to keep), None under a
    tier plan.

    A zone plan lays out this disk's areas in place; a tier plan sends each request to its area's
    device of the inventory (*targets*)."""
    if plan is None:
        return None, None, ()
    stream, physics = checked.stream, checked.physics
    if plan.tiers is None:
        offsets = planned_offsets(trace, plan, area_files, stream.offset_bytes)
        if offsets is None:
            elsewhere = ", ".join(sorted({p.disk for p in plan.partitions}))
            return None, None, (f"trace of {trace.disk}: the plan lays out {elsewhere}, not this disk; "
                                "no replay under it",)
        laid = phased_replays(physics, stream.moved(offsets), trace.disk_size_bytes, checked.phases)
        kept = planned_offsets(trace, plan, area_files, stream.offset_bytes, spread=True)
        said = placement_note(trace.disk, plan.partitions) if not np.array_equal(offsets, stream.offset_bytes) else ()
        if kept is None or np.array_equal(kept, offsets):
            return laid, laid, said
        return laid, phased_replays(physics, stream.moved(kept), trace.disk_size_bytes, checked.phases), said
    if not targets:
        route: TierRoute | str = f"trace of {trace.disk}: no inventory given"
    elif physics.time_scale != 1.0:
        route = (f"trace of {trace.disk}: its model runs at --time-scale {physics.time_scale:g}, the inventory's "
                 "devices on their own clock")
    else:
        route = tier_route(trace, plan, targets, area_files, owners_area, stream.offset_bytes)
    if isinstance(route, str):
        return None, None, (f"{route}; no replay under the tier plan",)
    routed = stream.moved(route.offset_bytes)
    linked = causes(routed)  # once for every phase
    return tuple(replay_on_devices(routed, route.device, route.devices, phase=phase, linked=linked)
                 for phase in checked.phases), None, route.notes


def _mean_span_s(replays: Sequence[Replayed]) -> float:
    return round(sum(r.span_s for r in replays) / len(replays), 4)


def misfit(check: ReplayCheck, model: str) -> Finding:
    """MODEL_DOES_NOT_FIT from a replay whose self-check failed: of its requests' times, or of a
    queued disk's busy time (``basis`` "busy time")."""
    evidence: dict[str, float | int | str | None]
    if check.basis == "busy time" and check.replayed_busy_s is not None and check.measured_busy_s is not None:
        title = (f"{check.disk}: with a queue, the traced requests replayed on {model} keep the drive busy "
                 f"{check.replayed_busy_s:.1f} s, the disk was busy {check.measured_busy_s:.1f} s "
                 f"({check.busy_deviation:+.0%}, tolerance ±{check.tolerance:.0%})")
        evidence = {"measure": "replayed busy time", "measured": check.measured_busy_s,
                    "allowed": check.replayed_busy_s, "deviation": check.busy_deviation}
    else:
        title = (f"{check.disk}: the traced requests replayed on {model} take {check.replayed_ms:.2f} ms each, "
                 f"the disk measured {check.measured_ms:.2f} ms ({check.deviation:+.0%}, tolerance "
                 f"±{check.tolerance:.0%})")
        evidence = {"measure": "replayed service time", "measured": check.measured_ms,
                    "allowed": check.replayed_ms, "deviation": check.deviation}
    return Finding(
        code="MODEL_DOES_NOT_FIT", severity="medium", subject=check.disk, title=title,
        evidence={"disk": check.disk, "model": model, **evidence, "tolerance": check.tolerance,
                  "requests": check.requests},
        predicted_gain=None,
        action=("The model does not describe this disk under this workload: its replayed gain is not a "
                "prediction. Bench the device (advisor bench) and report with --disk, or name the right "
                "model with --preset/--spec."),
    )


def judging_checks(checks: Sequence[ReplayCheck]) -> list[ReplayCheck]:
    """The checks that judge a plan: replayed under the planned layout and not refused."""
    return [c for c in checks if c.refused is None and c.planned_ms is not None]


def replayed_gain(checks: Sequence[ReplayCheck]) -> float | None:
    """The replayed gain a plan is judged by (:func:`verdict`): the requests-weighted gain of the
    disks it lays out; None when no check judges it or a self-check failed (the plan is refused)."""
    judged = judging_checks(checks)
    if not judged or any(not c.fits for c in judged):
        return None
    weight = sum(c.requests for c in judged)
    return sum((c.predicted_gain or 0.0) * c.requests for c in judged) / weight


def replayed_error(checks: Sequence[ReplayCheck]) -> float | None:
    """The standard uncertainty of :func:`replayed_gain`: the disks' own errors combined by the same weights,
    the replay's own error (``model_error``, one for every disk) added once; None where a disk's is unknown."""
    judged = judging_checks(checks)
    common = common_error(c.model_error for c in judged)
    return (combined_error([c.gain_error for c in judged], [float(c.requests) for c in judged], common)
            if judged else None)


def verdict(plan: Plan, checks: Sequence[ReplayCheck], min_gain: float) -> Plan:
    """*plan* judged by the replay where one exists: refused on a failed self-check, else by
    the replayed gain of the disks it lays out (requests-weighted, :func:`replayed_gain`), against *min_gain*."""
    judged = judging_checks(checks)
    if not judged:
        return plan
    failed = [c for c in judged if not c.fits]
    notes = list(plan.notes)
    if failed:
        failure = "the replay's self-check failed on " + ", ".join(c.disk for c in failed) + " (MODEL_DOES_NOT_FIT)"
        return msgspec.structs.replace(plan, not_worth_it=failure)
    gain = replayed_gain(judged)
    assert gain is not None  # judged checks that all fit
    error = replayed_error(judged)
    worked = [c.disk for c in judged if c.basis == "busy time" and c.planned_busy_s is not None]
    of_work = (f"; on {', '.join(worked)}, which had a queue, that is less drive busy time for the traced work, "
               "which a queued disk turns into more work at the same concurrency" if worked else "")
    noise = "" if error is None else f" ± {error:.1%}"
    placed = ", of where the file system puts a moved area" if any(c.spread_gain is not None for c in judged) else ""
    model = common_error(c.model_error for c in judged)
    own = (f" and of the replay's own error on the accuracy suite (± {model:.1%}), which no self-check shows"
           if model > 0 else "")
    windows = ("" if error is None else
               f"± its standard uncertainty, of {GAIN_WINDOWS} windows of the trace{placed}{own}; ")
    notes.append(f"The replay of the traced requests predicts {gain:.1%}{noise} ({windows}the aggregate model: "
                 f"{plan.predicted_gain:.1%}){of_work}; the verdict follows the replay.")
    reason: str | None = None
    if gain < min_gain:
        reason = f"the replayed gain, {gain:.1%}, is under the {min_gain:.0%} a migration must bring (--min-gain)"
    elif not clears(gain, error, min_gain):
        reason = (f"the replayed gain, {gain:.1%}{noise} (its standard uncertainty), does not clear the "
                  f"{min_gain:.0%} a migration must bring (--min-gain) by that uncertainty: it cannot be told from "
                  "the threshold")
    return msgspec.structs.replace(plan, notes=tuple(notes), not_worth_it=reason)
