"""Which requests of a disk's trace were caused on another traced disk.

The replay runs each disk's trace on that disk's model, each process a closed loop: a request
goes out the traced think time after the process's request that completed last before it.
On a workload spread over several disks that request may be on another disk: a TPC-B client
reads an index on one disk, then the table on the other, then commits there. Replayed one
disk at a time, its last request *on this disk* completed long before, and the think time
holds the client's whole visit to the other disk; a faster or slower replay of this disk then
moves the next request by as much, the clients drift apart, and the disk queues less than it
did. On the accuracy suite's index disk (busy 18 %, four TPC-B clients whose group commits on
the other disk send them to it together) 467 of 1,225 reads found another in flight as
traced and 213 replayed, and the self-check missed by -17 to -25 % in every run
(docs/accuracy.md).

:func:`latest_elsewhere` gives, per request, the latest completion of its process on another
disk of the workload's traces (the same pid, the same trace clock) before its issue. Where
that is later than the request's cause here (its process's last completion on this disk, or
the request of another process it is linked to), the request waited for the other disk,
which this disk's replay does not move: it goes out when the trace issued it, as a process's
first request does where it took over from no session (:func:`advisor.disk.replay_stream.causes`,
:mod:`advisor.trace.handovers`). A workload with one traced
disk has no such request.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from advisor.trace.codec import FloatArray, IntArray


def latest_elsewhere(pids: IntArray, issue_s: FloatArray, others: Sequence[tuple[IntArray, FloatArray]]) -> FloatArray:
    """Per request of a disk (its issuing *pids* and traced issue times), the latest completion of a
    request of the same pid at or before its issue on any disk of *others* ((pids, completion times)
    of each other traced disk, on the same clock); -inf where there is none.

    >>> latest_elsewhere(np.array([7, 7, 8]), np.array([0.0, 2.0, 2.0]),
    ...                  [(np.array([7, 9]), np.array([1.5, 1.9]))]).tolist()
    [-inf, 1.5, -inf]
    """
    if not len(pids) or not others:
        return np.full(len(pids), -np.inf)
    return _latest_before(np.concatenate([p for p, _ in others]), np.concatenate([d for _, d in others]),
                          pids, issue_s)


def _latest_before(event_pids: IntArray, event_s: FloatArray, pids: IntArray, at_s: FloatArray) -> FloatArray:
    """Per (pid, time) query, the latest event of that pid at or before the time (-inf: none)."""
    order = np.lexsort((event_s, event_pids))  # by pid, then time: each pid's events one sorted run
    sorted_pids, sorted_s = event_pids[order], event_s[order]
    latest = np.full(len(pids), -np.inf)
    for pid in np.unique(pids).tolist():
        lo, hi = np.searchsorted(sorted_pids, pid, side="left"), np.searchsorted(sorted_pids, pid, side="right")
        if lo == hi:
            continue
        mask = pids == pid
        k = np.searchsorted(sorted_s[lo:hi], at_s[mask], side="right") - 1
        latest[mask] = np.where(k >= 0, sorted_s[lo:hi][np.maximum(k, 0)], -np.inf)
    return latest
