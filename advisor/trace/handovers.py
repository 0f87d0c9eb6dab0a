"""A process that starts as another ends: the hand-over the replay keeps.

The replay (:mod:`advisor.disk.replay`) runs each process as a closed loop from its first
request, and a first request with no link to another process's (:mod:`advisor.trace.links`) went
out when the trace issued it. That keeps the wall clock, not the concurrency, where sessions
follow each other: a benchmark's next run whose clients connect when the last run's have
finished, a batch chain, a pool that replaces a backend, a client that reconnects. When the
replay serves the earlier session more slowly than the drive did, the next one started beside
it all the same, the disk served more sessions at once than it ever had, each got slower, and
the next hand-over overlapped further. On the accuracy suite's temp sorts traced over six runs
(239 s, run 47, docs/accuracy.md) the sixth run's clients started 53-70 s before the fifth
run's had finished in the replay, two sessions became four, and that replay of today's layout
took +17 % of the drive's busy time where the two-run traces of the same workload replayed
within -3 to +7 %.

The rule: the first request of a process that was issued at most :data:`HANDOVER_GAP_S` after
another process's last request completed depends on that request (the latest such): replayed,
it goes out the traced gap after that request completes, as any linked request does. Only a
database session hands over to a session, so the rule needs the trace to say which processes serve
a database (the collector names them; a trace without names has no hand-over): a file system's
journal, a kernel worker or a process nobody named starts on a clock of its own, and a cache flush,
which the block layer's worker issues after the write it follows, never takes one
(:func:`advisor.disk.replay_stream.causes` applies the rule). A process whose
first request has a link of its own, or that started while no process had just ended, keeps
what it had.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from advisor.trace.codec import FloatArray, IntArray

HANDOVER_GAP_S = 1.0
"""Longest gap between a process's last completion and another's first issue that is a hand-over.
Between the accuracy suite's consecutive pgbench runs the gap was 0.15-0.27 s (run 47); a process
that starts a second or more after the last one ended starts on a clock the trace does not show."""


def handovers(process: IntArray, issue_s: FloatArray, complete_s: FloatArray,
              session: npt.NDArray[np.bool_] | None) -> IntArray:
    """Per request: for the first request of a session that started within :data:`HANDOVER_GAP_S`
    of another session's end, the index of that session's last request (the latest completed);
    -1 for every other request, and for all where *session* (per request, whether its process
    serves a database) is None.

    >>> p, sessions = np.array([0, 0, 1, 2]), np.ones(4, dtype=bool)
    >>> handovers(p, np.array([0.0, 1.0, 2.2, 9.0]), np.array([0.5, 2.0, 3.0, 9.5]), sessions).tolist()
    [-1, -1, 1, -1]
    """
    count = len(process)
    out = np.full(count, -1, dtype=np.int64)
    if count == 0 or session is None:
        return out
    _, group = np.unique(process, return_inverse=True)
    by_issue = np.lexsort((np.arange(count), issue_s, group))
    firsts = by_issue[np.r_[True, group[by_issue][1:] != group[by_issue][:-1]]]
    by_done = np.lexsort((np.arange(count), complete_s, group))
    lasts = by_done[np.r_[group[by_done][1:] != group[by_done][:-1], True]]
    firsts, lasts = firsts[session[firsts]], lasts[session[lasts]]
    if not len(firsts) or not len(lasts):
        return out
    ends = complete_s[lasts]
    order = np.argsort(ends, kind="stable")
    before = np.searchsorted(ends[order], issue_s[firsts], side="left") - 1
    found = before >= 0
    taken = lasts[order[np.maximum(before, 0)]]
    near = found & (issue_s[firsts] - complete_s[taken] <= HANDOVER_GAP_S)
    out[firsts[near]] = taken[near]
    return out
