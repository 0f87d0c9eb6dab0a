"""The pruned SPTF decision for a queue of located reads (the simulator's hot path).

:meth:`Mechanism.choose` prices every queued request; for queues of reads the simulator
already located, :meth:`ReadChooser.choose` prices only those near enough to the head to
win and gives the same answer. A :class:`ReadChooser` belongs to one mechanism
(:meth:`Mechanism.read_chooser` builds it on the first decision among several): it holds
the drive's seek table, which :meth:`Mechanism.choose` prices with too, and the pruning
windows, and reads of the mechanism only its public state (head, clock, read-ahead
segment, timing constants).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from typing import TYPE_CHECKING

from advisor.disk.seektable import seek_table

if TYPE_CHECKING:
    from advisor.disk.mechanism import Mechanism

SPTF_WINDOW_UP, SPTF_WINDOW_DOWN = 8, 2  # pruning window steps after a miss / a hit: ~1 miss in 5


class ReadChooser:
    """The seek table and pruning windows of one mechanism's SPTF decisions.

    A positioned request costs at least its seek plus the least wait (the margin, or a
    revolution if that is shorter). Window j holds the requests within ``reach[j]``
    cylinders of the head: every request outside it has a √-grid index of j or more, so a
    seek of at least ``floor_ms[j]`` (less a nanosecond for the rounding of the
    interpolation), and costs more than ``bound[j]``. The last window holds everything.
    """

    def __init__(self, mech: Mechanism) -> None:
        curve = mech.model.seek_curve
        grid, steps, cylinders = curve.grid_list, curve.steps, mech.cylinders
        self.mech = mech
        self.steps = steps
        self.table: array[float] = seek_table(grid, steps, curve.min_ms, cylinders, mech.t_rev)
        """``table[2*d]``: read seek in s for signed distance d; ``table[2*d + 1]``: the same in turns."""
        floor_ms = [max(min(a, b), curve.min_ms) - 1e-9 for a, b in zip(grid, grid[1:], strict=False)]
        for k in range(len(floor_ms) - 2, -1, -1):
            floor_ms[k] = min(floor_ms[k], floor_ms[k + 1])
        least_wait = max(0.0, min(mech.margin, mech.t_rev))
        self.bound: list[float] = [ms / 1000.0 + least_wait - 1e-9 for ms in floor_ms] + [math.inf]
        self.reach: list[int] = [int(j * j / (steps * steps) * cylinders) + 2 for j in range(steps)] + [cylinders]
        self.window = min(bisect_left(self.bound, mech.t_rev + least_wait), steps)

    def choose(
        self, cylinders: list[int], angles: list[float], submitted: list[float], offsets: list[int], now_s: float
    ) -> int | None:
        """:meth:`Mechanism.choose` for a queue of reads given as columns, or None to call it.

        The simulator keeps, for each queued read in queue order, the seek cylinder and
        start angle from :meth:`Mechanism.locate` and the submission time, plus the queued
        offsets sorted, so nothing is looked up per decision. Pricing a request is one
        seek-table look-up and the arithmetic of :meth:`Mechanism.choose` in the same order,
        and only requests near enough to the head to possibly win are priced, so the choice
        is identical (ties go to the earliest in the queue there and here). None means a
        read may lie in the read-ahead segment (costless, it goes first): the caller then
        asks :meth:`Mechanism.choose`, which knows that rule, as it does for queues holding
        writes, flushes or reads not located yet, which it does not send here.
        """
        mech = self.mech
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
        table = self.table
        # Most queued requests are too far away to win: price only those in the current
        # window. If the best of them costs at most the window's bound, every request
        # outside costs strictly more and the choice is exact (ties among the priced ones
        # keep queue order). Otherwise the best found is a cost some request achieves:
        # price the rest of the window whose bound covers it, which is then exact by the
        # same argument. The window grows after such a miss and shrinks after a hit, so
        # about one decision in five takes the second step (speed only, never the result).
        window = self.window
        reach = self.reach[window]
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
            if best <= self.bound[window]:
                self.window = window - SPTF_WINDOW_DOWN if window > SPTF_WINDOW_DOWN else 0
                return chosen
        self.window = min(window + SPTF_WINDOW_UP, self.steps)
        reach = self.reach[bisect_left(self.bound, best)]
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
