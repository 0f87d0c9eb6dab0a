"""Whether an interval between two snapshots can be summed and ranked: resets, restarts, clock steps.

An interval is left out of the fleet's sums and rankings (its summary is marked ``reset``)
when its counters are not comparable, decided from the snapshots' typed fields, never from
the text of a warning:

* a rule of :data:`advisor.rates.workload.RULES` fires (another identity or instance, a
  restart, recovery, a reset of the statistics the files are read from), as ``advisor
  workload`` refuses or warns;
* the clock was stepped: the snapshots' own times say one interval and the host's monotonic
  clock (read with the kernel's diskstats, same host) another, by more than
  :data:`CLOCK_TOLERANCE_S` and :data:`CLOCK_TOLERANCE_SHARE`. A snapshot dated 65 minutes
  early makes its interval from the one before hold 75 minutes of IO in 10 (7.5x the rate);
* the IO counted by the files in both went backwards without a restart: the snapshots are
  out of order (a clock stepped back without a monotonic reading to show it), as ``advisor
  workload`` says of each file ("counters went backwards").

:func:`misdated` finds the same out-of-order snapshot from the repository's columns alone
(totals over all files, start time), so the busiest windows are chosen without it; a relation
dropped in between can look the same there, so it is said as a possibility, never as a fact.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from advisor.model import Snapshot
from advisor.rates.workload import RULES

NOT_COMPARABLE_RULES = frozenset({"identity", "instance", "recovery", "stats-reset", "restart"})
"""Rules (by name) whose firing makes an interval's counters not comparable (not "stats-reset-views":
those statistics feed no file row)."""
CLOCK_TOLERANCE_S = 60.0
CLOCK_TOLERANCE_SHARE = 0.10
"""How far the snapshots' times may disagree with the host's monotonic clock (the time a collection
takes between reading the clock and the diskstats is seconds) before the clock counts as stepped."""

Why = Literal["reset", "clock"]


def _at(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def clock_stepped(a: Snapshot, b: Snapshot) -> bool:
    """The snapshots' times disagree with the host's monotonic clock between them (same host only)."""
    la, lb = a.layout, b.layout
    if la is None or lb is None or la.hostname != lb.hostname:
        return False
    if la.diskstats_at_monotonic_s is None or lb.diskstats_at_monotonic_s is None:
        return False
    monotonic = lb.diskstats_at_monotonic_s - la.diskstats_at_monotonic_s
    if monotonic <= 0:
        return False  # the host rebooted between them: its monotonic clock says nothing here
    wall = (_at(b.taken_at) - _at(a.taken_at)).total_seconds()
    return abs(wall - monotonic) > max(CLOCK_TOLERANCE_S, CLOCK_TOLERANCE_SHARE * monotonic)


def went_backwards(a: Snapshot, b: Snapshot) -> bool:
    """The reads and writes of the files in both snapshots add up to fewer in *b* than in *a*.

    Only files in both count: a relation dropped in between takes its counters with it, which
    says nothing about the order of the two snapshots.
    """
    before = {f.file_id: f.reads + (f.writes or 0) for f in a.files}
    return sum(f.reads + (f.writes or 0) - before[f.file_id] for f in b.files if f.file_id in before) < 0


def not_comparable(a: Snapshot, b: Snapshot) -> Why | None:
    """Why the interval from *a* to *b* is left out of sums and rankings, or None when it is not."""
    if any(rule.name in NOT_COMPARABLE_RULES and rule.check(a, b) for rule in RULES.get(b.server.dbms, ())):
        return "reset"
    if clock_stepped(a, b):
        return "clock"
    if went_backwards(a, b):
        return "clock"  # the same server, no reset, fewer IOs counted by the same files: out of order
    return None


def misdated(ios: Sequence[int], started: Sequence[str]) -> set[int]:
    """Positions of snapshots out of order with their neighbours' counters (a clock step), from the
    totals and server start times of one instance's snapshots in time order.

    Where the totals go backwards between *i* and *i+1* without a restart, the one whose removal
    puts its neighbours back in order is the misdated one; when neither does (a reset of the
    statistics), nobody is blamed: that interval is left out by its own counters already.
    """
    out: set[int] = set()
    for i in range(len(ios) - 1):
        if started[i] != started[i + 1] or ios[i + 1] >= ios[i]:
            continue
        if i > 0 and started[i - 1] == started[i] and ios[i - 1] <= ios[i + 1]:
            out.add(i)  # its neighbours are in order without it
        elif i + 2 < len(ios) and started[i + 2] == started[i] and ios[i] <= ios[i + 2]:
            out.add(i + 1)
    return out
