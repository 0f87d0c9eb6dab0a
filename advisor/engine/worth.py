"""Is a plan worth carrying out? Below a minimum predicted gain it is not, and says so.

A plan that predicts ``0.25 ms -> 0.25 ms`` still repartitions a disk, rewrites every table
under a lock and stops the server to move the WAL: its scripts must not be written as if it
were advice. :func:`judge` marks such a plan (``Plan.not_worth_it``, the reason) so that the
commands write no scripts unless asked (``--scripts-anyway``) and every renderer says "no
change worth making". Areas the plan makes slower are named with the reason (they make room
for busier ones), so a loss is never silent.
"""

from __future__ import annotations

import msgspec

from advisor.model import Plan

MIN_GAIN = 0.05
"""Default minimum predicted gain (5 % of the IO-weighted service time) worth a migration."""

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
