"""A disk with a queue is judged by the drive's busy time in the replay, not by the time of each request.

A disk has a queue over a trace when it kept :data:`QUEUED_MIN` requests in flight on average or
more (then at least half of a request's time is spent behind another: the drive serves one at a
time), however busy it was (:func:`queued`).
Its clients wait mostly for each other: a request's time is the requests in flight over the
drive's throughput, and a faster layout gives more work at the same concurrency
(:mod:`advisor.engine.saturation` says the same of the aggregate model). The replay keeps each
client's traced think times and links, and some of those are tied to the traced clock (a
journal commit's timer, a process's first request): under a faster layout its drive idles
between them, its queue shrinks and its requests wait less than the queued disk would make
them wait, so the mean time per request over-predicts there (three databases on one disk busy
99.7 %: per request 35 % faster replayed, the traced span 7.5 % shorter; measured after the
move: 18 % less time per transaction, 22 % per request; docs/accuracy.md). And the per-request
self-check is the ratio of two such means, which on a queued disk follows small differences
in throughput and the drive's starvation of far requests from one trace to the next (runs
5-13: -20 to +41 %).

The same replays also say how long the drive worked: the time with a request in flight
(:func:`advisor.trace.intervals.union_seconds` of the replayed issue and completion times),
think times, links and idle spells excluded. On a queued disk that is the drive's time for
the traced work, so today's replay is checked against the time the trace had the disk busy
(the self-check), and 1 - planned / today of it is the gain: less drive time per unit of the
same work, which a queued disk turns into more work at the same concurrency. The per-request
figures stay beside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from advisor.disk.replay import Replayed
from advisor.engine.saturation import BUSY_MIN
from advisor.trace.intervals import union_seconds

QUEUED_MIN = 2.0
"""A trace with this many requests in flight on average or more has a queue, whatever its busy share: a
mixed OLTP and scan workload busy 83-85 % of its span kept about 7 in flight, and its per-request
self-check drew +14, +16 to +25 and +41 % over five runs where its busy time replays within 13 %."""


@dataclass(frozen=True)
class BusyCheck:
    """A queued disk's busy time, as the trace measured it and as today's replays give it (per phase)."""

    measured_s: float  # the time the trace had a request in flight
    today_s: np.ndarray  # the replayed drive's, per rotational phase
    tolerance: float

    @property
    def replayed_s(self) -> float:
        """Today's replayed busy time, the mean over the phases."""
        return float(self.today_s.mean())

    @property
    def deviation(self) -> float:
        """replayed_s / measured_s - 1."""
        return self.replayed_s / self.measured_s - 1.0

    @property
    def fits(self) -> bool:
        """|deviation| within the tolerance."""
        return abs(self.deviation) <= self.tolerance


def busy_times(replays: Sequence[Replayed]) -> np.ndarray:
    """Each replay's time with a request in flight (seconds)."""
    return np.array([union_seconds(r.issue_s, r.complete_s) for r in replays])


def queued(busy: float | None, in_flight: float | None) -> bool:
    """A disk with a queue over a trace: QUEUED_MIN requests in flight on average or more (*in_flight*,
    :func:`advisor.trace.intervals.mean_in_flight`), whatever its busy share; busy BUSY_MIN of its span
    (*busy*) or more only where the trace gives no mean in flight.

    A busy share alone does not make a queue: one client that keeps the drive 91 % busy with 1.65
    requests in flight waits mostly for the drive, not for another request, and judged by its busy time
    a layout its own plan made drew another move (+17.3 %) whose one area said no prediction (the temp
    sorts, run 65; runs 64-67 in docs/accuracy.md)."""
    if in_flight is not None:
        return in_flight >= QUEUED_MIN
    return busy is not None and busy >= BUSY_MIN


def busy_check(measured_s: float, busy: float | None, in_flight: float | None, today: Sequence[Replayed],
               tolerance: float) -> BusyCheck | None:
    """The busy-time check of a trace whose disk had a queue (:func:`queued`), else None; *measured_s* the time
    the trace had a request in flight, *busy* that over its span."""
    if measured_s <= 0 or not today or not queued(busy, in_flight):
        return None
    return BusyCheck(measured_s, busy_times(today), tolerance)


def request_misses_note(disk: str, deviation: float | None, check: BusyCheck) -> str | None:
    """Said where the per-request self-check misses while the busy time a queued disk is judged by fits."""
    if deviation is None or abs(deviation) <= check.tolerance or not check.fits:
        return None
    return (f"trace of {disk}: per request the replay misses the measured time by {deviation:+.0%} (tolerance "
            f"±{check.tolerance:.0%}), while the drive's replayed busy time is within {check.deviation:+.0%} of "
            "the measured one: on a disk with a queue a request's time is the requests in flight over the throughput, "
            "which a small difference in throughput or in the drive's starvation of far requests moves far from "
            "one trace to the next (docs/accuracy.md); the disk is judged by its busy time")
