"""An area whose planned gain depends on where the platter was when the trace began.

No trace records the platter's rotational phase at its first request, so the replay runs
each layout under several phases (:func:`advisor.engine.replay_today.replay_phases`) and
reports their mean. For most areas the phases agree within a few points. For some they do
not: a scan whose reads either stream from the drive's read-ahead or starve behind reads near
the head, a race decided by fractions of a millisecond, comes out of one phase 60 % faster
under the plan and of another 5 % (docs/accuracy.md, run 20). The mean of such phases is no
prediction, and the area says so rather than give it: ``ReplayArea.phase_spread`` is the
standard deviation of its gain over the phases, and ``steady`` is False from
:data:`AREA_PHASE_SPREAD` on.

Measured over the kept traces of accuracy runs 17, 18 and 20 (42 areas of the one-disk
workloads, 8 phases each): the mixed workload's scan 17-20 points every time; every other
area 6.3 points or less, 34 of the 42 under 3.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from advisor.engine.replay_issuers import per_request_ms
from advisor.model import ReplayArea

AREA_PHASE_SPREAD = 0.10
"""An area's gain whose standard deviation over the phases reaches this is no prediction: its
range then spans the 15 points a per-area prediction is allowed (docs/accuracy.md)."""


def phase_spread(today: Sequence[np.ndarray], planned: Sequence[np.ndarray], requests: np.ndarray,
                 flushes: np.ndarray) -> float | None:
    """The standard deviation over the phases of *requests*' gain, 1 - planned / today per phase (the
    k-th of *today* and *planned* replayed under the same phase); None with fewer than 3 phases.

    >>> days = [np.array([2.0, 2.0]), np.array([2.0, 2.0]), np.array([2.0, 2.0])]
    >>> plans = [np.array([1.0, 1.0]), np.array([1.5, 1.5]), np.array([0.5, 0.5])]
    >>> phase_spread(days, plans, np.array([True, True]), np.array([False, False]))
    0.25
    """
    if len(today) < 3 or len(today) != len(planned):
        return None
    times = [(per_request_ms([t], requests, flushes), per_request_ms([p], requests, flushes))
             for t, p in zip(today, planned, strict=True)]
    gains = [1.0 - after / before for before, after in times if before > 0]
    return round(float(np.std(gains, ddof=1)), 4) if len(gains) >= 3 else None


def unsteady_notes(rows: Sequence[ReplayArea], phases: int) -> tuple[str, ...]:
    """A note per area whose planned gain is no prediction because it depends on the phase."""
    return tuple(
        f"{row.area}: its gain under the plan depends on the platter's rotational phase when the trace began, "
        f"which no trace records: over the {phases} phases replayed it varies by {row.phase_spread:.0%} "
        f"(standard deviation; {AREA_PHASE_SPREAD:.0%} or more is no prediction), so its planned time is no "
        "prediction for this area"
        for row in rows if row.steady is False and row.phase_spread is not None)
