"""How long a disk was busy (the length of the union of its requests' intervals), and how many
requests it held on average.

The trace's busy share (:func:`advisor.engine.replay_today.busy_share`), the demo's modelled
disk time (:mod:`advisor.demo.timesplit`) and the accuracy suite's busy share of the emulated
drive all ask the first, of intervals that overlap whenever requests are in flight together;
the figures of a trace (:mod:`advisor.engine.trace_figures`) and the replay's test for a queue
(:mod:`advisor.engine.replay_saturated`) the second; the noise of a replayed gain
(:mod:`advisor.engine.replay_noise`) splits the first among the requests (:func:`busy_shares`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def union_seconds(starts: FloatArray, ends: FloatArray, lo: float = -np.inf, hi: float = np.inf) -> float:
    """Seconds covered by at least one interval [start, end], each clipped to [*lo*, *hi*].

    >>> union_seconds(np.array([0.0, 0.5, 3.0]), np.array([1.0, 2.0, 4.0]))
    3.0
    >>> union_seconds(np.array([0.0, 0.5, 3.0]), np.array([1.0, 2.0, 4.0]), lo=0.75, hi=3.5)
    1.75
    """
    first, last = np.clip(starts, lo, hi), np.clip(ends, lo, hi)
    keep = last > first
    first, last = first[keep], last[keep]
    if not len(first):
        return 0.0
    order = np.argsort(first, kind="stable")
    first, last = first[order], last[order]
    reach = np.concatenate(([-np.inf], np.maximum.accumulate(last)[:-1]))  # the furthest end before each
    return float(np.maximum(last - np.maximum(first, reach), 0.0).sum())


def mean_in_flight(starts: FloatArray, ends: FloatArray) -> float | None:
    """The mean number of intervals open at once from the first start to the last end: their summed
    length over that span (Little's law); None for no interval or a span of no length.

    >>> mean_in_flight(np.array([0.0, 0.0, 1.0]), np.array([2.0, 1.0, 2.0]))
    2.0
    """
    if not len(starts):
        return None
    span = float(ends.max() - starts.min())
    return float((ends - starts).sum()) / span if span > 0 else None


def busy_shares(starts: FloatArray, ends: FloatArray) -> FloatArray:
    """Each interval's share of the busy time: every instant with n intervals open counts 1/n to each of
    them, so the shares add up to :func:`union_seconds` and any subset of the intervals has its own part
    of it (the busy time is not the sum of the intervals' lengths where they overlap).

    >>> busy_shares(np.array([0.0, 0.5, 3.0]), np.array([1.0, 2.0, 4.0])).tolist()
    [0.75, 1.25, 1.0]
    """
    if not len(starts):
        return np.zeros(0)
    times = np.concatenate((starts, ends))
    steps = np.concatenate((np.ones(len(starts)), -np.ones(len(ends))))
    order = np.lexsort((-steps, times))  # at one instant an end after a start: a zero-length gap stays busy
    times, steps = times[order], steps[order]
    open_now = np.cumsum(steps)[:-1]
    each = np.where(open_now > 0, np.diff(times) / np.maximum(open_now, 1.0), 0.0)
    served = np.concatenate(([0.0], np.cumsum(each)))  # per open interval, the share served up to each event
    # an interval's share: the running total at its end less the one at its start, read at the events themselves
    at_start = np.empty(len(starts) + len(ends))
    at_start[order] = served
    return np.asarray(at_start[len(starts):] - at_start[:len(starts)], dtype=np.float64)
