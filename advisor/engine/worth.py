"""Is a plan worth carrying out? Below a minimum predicted gain it is not, and says so.

A plan that predicts ``0.25 ms -> 0.25 ms`` still repartitions a disk, rewrites every table
under a lock and stops the server to move the WAL: its scripts must not be written as if it
were advice. :func:`judge` marks such a plan (``Plan.not_worth_it``, the reason) so that the
commands write no scripts unless asked (``--scripts-anyway``) and every renderer says "no
change worth making". Areas the plan makes slower are named with the reason (they make room
for busier ones), so a loss is never silent.

:func:`outcome` is the one verdict rule: what a report amounts to (saves, nothing to gain, no
change worth making, sizes unknown, no plan) and the disk time it saves, computed once when the
report is made; the fleet ranks by it and no reader decides from a message's words. Where a
replay of a traced workload judges the plan (every replayed disk fits), the outcome is the
replay's: its verdict and the disk time the replay saves, not the aggregate model's, which the
replay overrules (a re-advice the replay judged worth +5.9 % had read "nothing to gain" from the
aggregate's -0.3 %, and the fleet would have ranked it so).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from advisor.engine.replay_check import judging_checks
from advisor.model import Finding, Plan, ReplayCheck
from advisor.model.report import NoPlan, Outcome, Verdict

MIN_GAIN = 0.05
"""Default minimum predicted gain (5 % of the IO-weighted service time) worth a migration."""

S_PER_H_PER_IOPS_MS = 3.6
"""IOPS x milliseconds is milliseconds of disk time per second: x 3600 s / 1000 ms gives seconds per hour."""

WORSE_TOLERANCE = 0.05
"""An area counts as worse off when its predicted time grows by more than 5 %."""


def judge(plan: Plan, min_gain: float = MIN_GAIN) -> Plan:
    """*plan* with ``not_worth_it`` set when its gain is under *min_gain*, and a note on areas it slows."""
    notes = list(plan.notes)
    worse = [t for t in plan.service_times
             if t.iops > 0 and t.before_ms > 0 and t.after_ms > t.before_ms * (1 + WORSE_TOLERANCE)]
    if worse:
        named = ", ".join(f"{t.area} {t.before_ms:.2f} -> {t.after_ms:.2f} ms" for t in worse[:5])
        more = f" and {len(worse) - 5} more" if len(worse) > 5 else ""
        notes.append(f"Slower after the plan: {named}{more}. They give their place to areas with more IO; the "
                     "IO-weighted mean is what the plan minimises.")
    reason = None
    if plan.predicted_gain < min_gain:
        reason = (f"the predicted gain, {plan.predicted_gain:.1%}, is under the {min_gain:.0%} a migration must "
                  "bring (--min-gain)")
    return msgspec.structs.replace(plan, notes=tuple(notes), not_worth_it=reason)


def outcome(plan: Plan | None, findings: Sequence[Finding], no_plan: NoPlan | None,
            replayed: Sequence[ReplayCheck] = ()) -> Outcome:
    """The verdict and the disk service time the plan saves, in seconds per hour.

    Without a plan the verdict is "sizes unknown" when only the sizes are missing (the gate
    open: a plan would follow from them), else "no plan". A plan that saves no time is
    "nothing to gain" before it is "no change worth making" (under ``--min-gain``). The time
    is the replay's where *replayed* judges the plan (:func:`replayed_seconds`), else the
    aggregate model's IOPS x milliseconds.
    """
    if plan is None:
        closed = any(f.code == "NOT_IO_BOUND" for f in findings)
        sizes = no_plan is not None and no_plan.code == "sizes-unknown"
        return Outcome("sizes unknown" if sizes and not closed else "no plan")
    seconds = replayed_seconds(replayed)
    if seconds is not None:
        before_s, saved_s = seconds
    else:
        before_s = sum(t.iops * t.before_ms for t in plan.service_times) * S_PER_H_PER_IOPS_MS
        saved_s = sum(t.iops * (t.before_ms - t.after_ms) for t in plan.service_times) * S_PER_H_PER_IOPS_MS
    verdict: Verdict = ("nothing to gain" if saved_s <= 0 else
                        "no change worth making" if plan.not_worth_it is not None else "saves")
    return Outcome(verdict, round(saved_s, 4), round(saved_s / before_s, 4) if before_s > 0 else 0.0,
                   round(before_s, 4), "replay" if seconds is not None else "aggregate")


def replayed_seconds(replayed: Sequence[ReplayCheck]) -> tuple[float, float] | None:
    """The disk time the traced requests take today and the time the plan saves, seconds per hour of the traced
    span, summed over the disks a replay judges; None where none judges or a self-check failed (the replay then
    states no saving: the plan is refused, ``advisor.engine.replay_check.verdict``).

    Today's time is the replay's own of today's layout, the base of its gain: the drive's busy time on a disk
    with a queue (``basis`` "busy time"), else the requests' issue-to-completion times.
    """
    judged = judging_checks(replayed)
    if not judged or any(not c.fits for c in judged):
        return None
    before = saved = 0.0
    for check in judged:
        span = check.measured_span_s
        if span is None or span <= 0:
            return None
        if check.replayed_busy_s is not None and check.planned_busy_s is not None:
            today, planned = check.replayed_busy_s, check.planned_busy_s
        elif check.replayed_ms is not None and check.planned_ms is not None:
            today, planned = check.replayed_ms * check.requests / 1000.0, check.planned_ms * check.requests / 1000.0
        else:
            return None
        before += today * 3600.0 / span
        saved += (today - planned) * 3600.0 / span
    return before, saved
