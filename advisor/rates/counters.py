"""Cumulative counters to interval deltas: the one reset rule every rate in advisor uses.

A database counter only grows while the server runs; when a later reading is lower than an
earlier one the counter was reset in between (a stats reset, a restart, a truncated Oracle
segment). What it shows now is what it counted since the reset, so that reading is the
delta, and it is a lower bound of the interval's true count. An absent reading (the source
keeps no such counter) gives no delta: unknown, never 0.

Used by :func:`advisor.rates.workload.file_rate` (per file), :mod:`advisor.rates.segments` (per
Oracle segment) and :mod:`advisor.rates.io_share` (time counters of the IO share); the fleet
repository's per-file rows go through the same rule when rated with
:func:`advisor.rates.workload.file_rate`.
"""

from __future__ import annotations

from typing import TypeVar

Count = TypeVar("Count", int, float)


def counter_delta(before: Count | None, after: Count | None) -> tuple[Count | None, bool]:
    """``(Δ, reset)`` of a cumulative counter read at *before* and later at *after*.

    A counter that went backwards was reset: the later reading is the delta and *reset* is
    True (the figure is a lower bound). Either reading unknown: ``(None, False)``.

    >>> counter_delta(100, 160), counter_delta(100, 30), counter_delta(None, 30), counter_delta(1.5, 2.0)
    ((60, False), (30, True), (None, False), (0.5, False))
    """
    if before is None or after is None:
        return None, False
    if after < before:
        return after, True
    return after - before, False
