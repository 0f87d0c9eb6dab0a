"""The pruned SPTF decision for a queue of located reads (the simulator's hot path).

:meth:`Mechanism.choose` prices every queued request; for queues of reads the simulator
already located, :func:`choose_reads` prices only those near enough to the head to win and
gives the same answer (the pruning bounds come from :func:`prepare_windows`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.disk.mechanism import Mechanism

SPTF_WINDOW_UP, SPTF_WINDOW_DOWN = 8, 2  # pruning window steps after a miss / a hit: ~1 miss in 5


def prepare_windows(mech: Mechanism) -> None:
    """Set the pruning windows of :func:`choose_reads` on *mech*.

    A positioned request costs at least its seek plus the least wait (the margin, or a
    revolution if that is shorter). Window j holds the requests within ``_reach[j]``
    cylinders of the head: every request outside it has a √-grid index of j or more, so a
    seek of at least ``floor_ms[j]`` (less a nanosecond for the rounding of the
    interpolation), and costs more than ``_bound[j]``. The last window holds everything.
    """
    steps, cylinders, grid = mech._steps, mech.cylinders, mech._grid
    floor_ms = [max(min(a, b), mech._seek_min) - 1e-9 for a, b in zip(grid, grid[1:], strict=False)]
    for k in range(len(floor_ms) - 2, -1, -1):
        floor_ms[k] = min(floor_ms[k], floor_ms[k + 1])
    least_wait = max(0.0, min(mech.margin, mech.t_rev))
    mech._bound = [ms / 1000.0 + least_wait - 1e-9 for ms in floor_ms] + [math.inf]
    mech._reach = [int(j * j / (steps * steps) * cylinders) + 2 for j in range(steps)] + [cylinders]
    mech._window = min(bisect_left(mech._bound, mech.t_rev + least_wait), steps)


def choose_reads(
    mech: Mechanism, cylinders: list[int], angles: list[float], submitted: list[float], offsets: list[int],
    now_s: float,
) -> int | None:
    """:meth:`choose` for a queue of reads given as columns, or None to call :meth:`choose`.

    The simulator keeps, for each queued read in queue order, the seek cylinder and
    start angle from :meth:`locate` and the submission time, plus the queued offsets
    sorted, so nothing is looked up per decision. Pricing a request is one seek-table
    look-up and the arithmetic of :meth:`choose` in the same order, and only requests
    near enough to the head to possibly win are priced, so the choice is identical
    (ties go to the earliest in the queue there and here). None means a read may lie
    in the read-ahead segment (costless, it goes first): the caller then asks
    :meth:`choose`, which knows that rule, as it does for queues holding writes,
    flushes or reads not located yet, which it does not send here.
    """
    ra_lo = mech.ra_lo
    if ra_lo >= 0:
        j = bisect_left(offsets, ra_lo)
        if j < len(offsets) and offsets[j] <= mech.ra_limit:
            return None
    t = (now_s if now_s > mech.busy_until else mech.busy_until) + mech.overhead
    oldest_t = min(submitted)
    if t - oldest_t > mech.max_age:
        return submitted.index(oldest_t)
    t_rev, margin, head = mech.t_rev, mech.margin, mech.head_cyl
    turns_now = t / t_rev + mech.phase
    table = mech._seek_table or mech._table()
    # Most queued requests are too far away to win: price only those in the current
    # window. If the best of them costs at most the window's bound, every request
    # outside costs strictly more and the choice is exact (ties among the priced ones
    # keep queue order). Otherwise the best found is a cost some request achieves:
    # price the rest of the window whose bound covers it, which is then exact by the
    # same argument. The window grows after such a miss and shrinks after a hit, so
    # about one decision in five takes the second step (speed only, never the result).
    window = mech._window
    reach = mech._reach[window]
    lo, hi = head - reach, head + reach
    near = [i for i, c in enumerate(cylinders) if lo <= c <= hi]
    best = math.inf
    chosen = 0
    if near:
        costs = [
            table[d := 2 * (cylinders[i] - head)]
            + (w if (w := ((angles[i] - turns_now - table[d + 1]) % 1.0) * t_rev) >= margin else w + t_rev)
            for i in near
        ]
        best = min(costs)
        chosen = near[costs.index(best)]
        if best <= mech._bound[window]:
            mech._window = window - SPTF_WINDOW_DOWN if window > SPTF_WINDOW_DOWN else 0
            return chosen
    mech._window = min(window + SPTF_WINDOW_UP, mech._steps)
    reach = mech._reach[bisect_left(mech._bound, best)]
    lo2, hi2 = head - reach, head + reach
    far = [i for i, c in enumerate(cylinders) if lo2 <= c <= hi2 and (c < lo or c > hi)]
    if far:
        costs = [
            table[d := 2 * (cylinders[i] - head)]
            + (w if (w := ((angles[i] - turns_now - table[d + 1]) % 1.0) * t_rev) >= margin else w + t_rev)
            for i in far
        ]
        best_far = min(costs)
        first_far = far[costs.index(best_far)]
        if best_far < best or (best_far == best and first_far < chosen):
            chosen = first_far
    return chosen
