"""Is a plan worth carrying out? Below a minimum predicted gain it is not, and says so.

A plan that predicts ``0.25 ms -> 0.25 ms`` still repartitions a disk, rewrites every table
under a lock and stops the server to move the WAL: its scripts must not be written as if it
were advice. :func:`judge` marks such a plan (``Plan.not_worth_it``, the reason) so that the
commands write no scripts unless asked (``--scripts-anyway``) and every renderer says "no
change worth making". Areas the plan makes slower are named with the reason (they make room
for busier ones), so a loss is never silent.

:func:`outcome` is the one verdict rule: what a report amounts to (saves, nothing to gain, no
change worth making, sizes unknown, no plan) and the disk time it saves, computed once when the
report is made; the fleet ranks by it and no reader decides from a message's words.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from advisor.model import Finding, Plan
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


def outcome(plan: Plan | None, findings: Sequence[Finding], no_plan: NoPlan | None) -> Outcome:
    """The verdict and the disk service time the plan saves, in seconds per hour.

    Without a plan the verdict is "sizes unknown" when only the sizes are missing (the gate
    open: a plan would follow from them), else "no plan". A plan that saves no time is
    "nothing to gain" before it is "no change worth making" (under ``--min-gain``).
    """
    if plan is None:
        closed = any(f.code == "NOT_IO_BOUND" for f in findings)
        sizes = no_plan is not None and no_plan.code == "sizes-unknown"
        return Outcome("sizes unknown" if sizes and not closed else "no plan")
    before_ms = sum(t.iops * t.before_ms for t in plan.service_times)
    saved_ms = sum(t.iops * (t.before_ms - t.after_ms) for t in plan.service_times)
    verdict: Verdict = ("nothing to gain" if saved_ms <= 0 else
               "no change worth making" if plan.not_worth_it is not None else "saves")
    return Outcome(verdict, round(saved_ms * S_PER_H_PER_IOPS_MS, 4),
                   round(saved_ms / before_ms, 4) if before_ms > 0 else 0.0, round(before_ms * S_PER_H_PER_IOPS_MS, 4))
