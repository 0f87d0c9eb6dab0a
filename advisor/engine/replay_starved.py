"""Starved requests: the tail that decides a saturated disk's mean, measured and replayed.

A drive that serves the nearest request first (SPTF) lets a far request wait while near ones
keep coming: two clients reading a narrow band alternate, one always queued when the head
frees, and a read at the other end of the disk waits until the drive's own limit sends it
first (the model's: 500 ms). Such a wait is rare and long: on the accuracy suite's three
databases 1.6 % of the requests waited 200 ms or more and made a fifth of the mean
(docs/accuracy.md). Whether a chain of near requests breaks in time depends on fractions of
a millisecond between a completion and a client's next issue, which a replay takes from the
trace but cannot repeat once its own times differ: the replay reproduced about half of them.

So beside the self-check's means the replay says how many requests starved (waited
:data:`STARVED_S` or more, issue to completion) in the trace and in the replay, and how the
means compare without them: where the two shares differ and the means of the rest agree,
the model describes the drive's mechanics and the miss is its queue's scheduling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

STARVED_S = 0.2
"""A request that waited this long (issue to completion) starved: some twenty random accesses of a 7200 rpm drive."""

STARVED_NOTED = 0.005
"""A note compares the shares when either side starved this share of the timed requests or more."""


@dataclass(frozen=True)
class Starved:
    """The starved share of the timed requests, measured and replayed (the mean over the phases), and
    replayed / measured - 1 of the mean time of the requests that starved on neither side (the mean
    over the phases; None: none)."""

    measured: float
    replayed: float
    deviation_without: float | None


def starved(measured_s: np.ndarray, replays_s: Sequence[np.ndarray], timed: np.ndarray) -> Starved:
    """:class:`Starved` of the *timed* requests: *measured_s* the traced times, *replays_s* each phase's.

    >>> s = starved(np.array([0.01, 0.01, 0.5]), [np.array([0.012, 0.012, 0.05])], np.ones(3, dtype=bool))
    >>> (round(s.measured, 3), s.replayed, round(s.deviation_without, 3))
    (0.333, 0.0, 0.2)
    """
    measured = measured_s[timed]
    replayed = [r[timed] for r in replays_s]
    ratios = []
    for r in replayed:
        neither = (measured < STARVED_S) & (r < STARVED_S)
        if neither.any() and measured[neither].sum() > 0:
            ratios.append(float(r[neither].sum() / measured[neither].sum()))
    deviation = sum(ratios) / len(ratios) - 1.0 if ratios else None
    return Starved(float((measured >= STARVED_S).mean()) if len(measured) else 0.0,
                   float(np.mean([(r >= STARVED_S).mean() for r in replayed])) if replayed and len(measured) else 0.0,
                   None if deviation is None else round(deviation, 4))


def starved_note(disk: str, found: Starved, deviation: float | None, tolerance: float) -> str | None:
    """A note when requests starved (on either side) and the self-check's mean misses: how the two
    shares compare, and the means without them; None when there is nothing to say."""
    if deviation is None or abs(deviation) <= tolerance or max(found.measured, found.replayed) < STARVED_NOTED:
        return None
    without = ("" if found.deviation_without is None else
               f"; without them the means differ by {found.deviation_without:+.0%}"
               + (" (the model fits the rest: the miss is the queue's scheduling, not the drive's mechanics)"
                  if abs(found.deviation_without) <= tolerance else ""))
    return (f"trace of {disk}: {found.measured:.1%} of the requests waited {STARVED_S * 1000:.0f} ms or more as "
            f"measured, {found.replayed:.1%} replayed (far requests starved while near ones kept coming; on a "
            f"saturated disk which of them starve turns on fractions of a millisecond){without}")
