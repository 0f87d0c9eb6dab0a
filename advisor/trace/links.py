"""Links across processes: whose is a cache flush, whom it releases, and shared streams.

The replay (:mod:`advisor.disk.replay`) runs each process as a closed loop; some requests
depend on another process's request, and :func:`cross_links` names that request: a cache
flush and the processes it releases (below), and a read that continues another process's
read (the last section).

A flush request has no sector and is not issued by the process that asked for it: an
``fsync`` (PostgreSQL's commit, a checkpoint's ``fsync``, the file system journal's commit)
sends an empty pre-flush write, and the block layer's flush machinery issues the flush
from its own worker (``kworker/N:MH``), sharing one flush among the ``fsync`` calls that
wait at the same time (see :mod:`advisor.trace.parse`). What the flush does is make the
writes completed before it durable: a drive with a volatile write cache writes them to the
media then.

The rule: a flush belongs to **the last write that completed before the flush was
issued** (its *owner*): in the traced order the caller's write completes, the caller asks
for the flush, the flush is issued. That write's area is the flush's area (a commit's
flush is part of the WAL's time, a journal commit's flush is the journal's, which no
database file holds). A flush before any write of the trace has no owner (-1).

For the replay (:func:`flush_links`), a flush is issued after its owner completes (not
after the previous flush of the worker that issued it, whose requests are a mix of
everyone's flushes: the block layer sends one flush at a time, so a session's flush often
went out as the journal's completed, and replayed after that one, a session that ran ahead
of the trace on a faster layout waited for the journal's timer, 11 s at one flush of
tpcb-qd1's session on the accuracy suite's run 22). When that write is not a database
session's but the flush releases sessions (below), it is issued after the latest write of
those sessions completed before it (:func:`waiters_writes`): an ``fsync`` asks for the flush
when the caller's own writes are done, and the last write before it may be a timer's (the
journal's, the page writeback's, a background writer's) that the caller does not wait for.
Replayed after that write, a session that runs ahead of the trace on a faster layout would
wait until the timer's traced instant: on the accuracy suite's three databases the ledger's
sessions lost 23-54 s of their 160 s that way under the plan. A flush's completion releases
the processes that wait for it, and a request depends on it (when it completed later than
the request's own process's last request) in two cases:

* the flush **covers** the request's process: that process has a write completed after
  the previous flush was issued and before this one was (its ``fsync`` returns when the
  flush completes);
* the flush is the last request the disk completed before the request was issued: it
  released a process waiting behind the ``fsync`` caller (PostgreSQL's group commit: a
  backend waits for the WAL lock the flushing one holds, then writes its own WAL);
* the request's process commits (a flush covers a write of its somewhere in the trace) and
  the flush is the last completion before the request's issue once other processes' writes
  are passed over: a flush wakes every session whose commit it covered, and the next leader
  writes the next WAL page at once, so that write often completes before the others go on;
  it cannot have woken them. On the accuracy suite's WAL-heavy inserts (run 62) the
  sessions' data-page writes went out a median 1.03 ms after the latest flush completed (p10
  0.58, p90 1.63), with another session's write completed in between for 91 % of them; the
  second case alone linked 337 of the 628 to an older flush, a median 9.7 ms (a flush's
  whole time) before, and the replay kept that wait as the session's own time under any
  layout (the data area replayed at +37.0 % for +28.6 % measured; linked to the flush that
  woke them, +32.3 %). A read of another process completing in between is not passed over
  (a process may wait for another's read of the page it needs), nor is a session that
  never wrote taken for a committing one (a reader beside the commits keeps its own clock),
  nor, where the server named its processes, a background writer or WAL writer (their
  timers, not a commit, wake them).

Shared sequential streams: a read that starts at the byte where another process's read
ended, the latest such read completed before its issue, continues the same stream (a
parallel scan's workers taking turns on one table, a leader and its workers on one spilled
file, two sessions scanning one table in step: PostgreSQL's synchronized scans, where the
one behind waits for the buffer the other is reading). It depends on that read: replayed,
it is issued after that read completes. The read need not be the disk's last completion: on
a busy disk other requests complete between the two (on the accuracy suite's three
databases, a ledger's request did before 169 of the 251 reads of a reporting session that
waited for its partner, 0.85 ms after the partner's read in the median).

Not every such link is a wait. A parallel scan's leader and workers take chunks from a shared
counter, each with its own read in flight, and a worker's first read finds the previous scan's
read of the same chunk seconds before: on the mixed workload's run 29, 10 links were sent while
the reader's own read was in flight and 7 pointed 12-15 s back. A read completed more than
:data:`STREAM_GAP_S` before is another pass over the same data, not a read waited for: no link.
Replayed with such a link, the next scan's new worker went out when the last scan's read had
completed plus the 13 s between the two scans, so a scan that ran late delayed the next one's
workers by as much (run 37: 1.0 and 2.5 s), and the next scan's first reads met the OLTP
sessions' commits alone (docs/accuracy.md, after run 37). Dropping every link sent while the
reader's own read was in flight, tried on run 29, made that replay worse, so those stay.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from advisor.trace.codec import FLUSH, READ, WRITE, FloatArray, IntArray, Requests

BoolArray = npt.NDArray[np.bool_]

STREAM_GAP_S = 1.0
"""A read that starts where another process's read ended continues its stream only if that read completed
this recently; a parallel scan's chain (:mod:`advisor.disk.replay_shared`) is over after as long a pause.
Within the mixed workload's traced scans 99 % of the gaps between a stream's reads were under 0.07 s and
the longest 0.37 s (a drive's age limit holds a read at most 0.5 s); between two scans of the table, 10-13 s."""


def flush_owners(requests: Requests) -> IntArray:
    """Per request: for a flush, the index of its owner (see the module docstring); -1 for
    every other request and for a flush no write completed before.

    >>> from advisor.trace.codec import Requests
    >>> r = Requests(np.array([0.0, 1.0, 1.5, 3.0]), np.array([0.5, 1.0, 1.0, 0.1]),
    ...              np.array([8, 16, 0, 0]), np.array([8, 8, 0, 0]), np.array([1, 1, 2, 2]), np.array([5, 6, 9, 9]))
    >>> flush_owners(r).tolist()  # the first flush follows write 0 (write 1 completes later), the second write 1
    [-1, -1, 0, 1]
    """
    return _owners(requests.op, requests.sectors, requests.issue_s, requests.complete_s)


def _owners(op: IntArray, sectors: IntArray, issue_s: FloatArray, complete_s: FloatArray) -> IntArray:
    owners = np.full(len(op), -1, dtype=np.int64)
    flushes = np.flatnonzero(op == FLUSH)
    writes = np.flatnonzero((op == WRITE) & (sectors > 0))
    if not len(flushes) or not len(writes):
        return owners
    owners[flushes] = _last_done_before(issue_s[flushes], complete_s, writes)
    return owners


def _last_done_before(at_s: FloatArray, complete_s: FloatArray, among: IntArray | None = None) -> IntArray:
    """Per instant of *at_s*, the request completed last at or before it (-1: none), of the requests
    *among* (indices; None: every request)."""
    among = np.arange(len(complete_s)) if among is None else among
    by_done = among[np.argsort(complete_s[among], kind="stable")]
    last = np.searchsorted(complete_s[by_done], at_s, side="right") - 1
    return np.where(last >= 0, by_done[np.maximum(last, 0)], -1)


def _later(first: IntArray, second: IntArray, complete_s: FloatArray) -> IntArray:
    """Per request, whichever of two links (-1: none) completed later."""
    take = (second >= 0) & ((first < 0) | (complete_s[np.maximum(second, 0)] > complete_s[np.maximum(first, 0)]))
    return np.where(take, second, first)


def _latest_of_group(group: IntArray, time: FloatArray, want: IntArray,
                     until: FloatArray) -> tuple[IntArray, IntArray, IntArray]:
    """Candidates in order of (*group*, *time*), and per query the position in that order of the latest
    candidate of group *want* at or before *until* (-1: none). Returned with the order and each
    position's group, for a caller that steps back past some (one sorted key, group then time as its
    fraction, so one search answers every query).

    >>> order, grouped, at = _latest_of_group(np.array([0, 1, 1]), np.array([0.5, 0.2, 0.7]),
    ...                                       np.array([1, 1, 0]), np.array([0.6, 0.1, 1.0]))
    >>> order[at[0]].item(), at[1].item(), order[at[2]].item()  # group 1 by 0.6; none by 0.1; group 0
    (1, -1, 0)
    """
    origin = float(min(time.min(), until.min()))
    scale = float(max(time.max(), until.max()) - origin) + 1.0
    order = np.argsort(group + (time - origin) / scale, kind="stable")
    grouped = group[order]
    at = np.searchsorted(grouped + (time[order] - origin) / scale, want + (until - origin) / scale, side="right") - 1
    at = np.where((at >= 0) & (grouped[np.maximum(at, 0)] == want), at, -1)
    return order, grouped, at


def continuations(op: IntArray, process: IntArray, offset: IntArray, length: IntArray, issue_s: FloatArray,
                  complete_s: FloatArray) -> IntArray:
    """Per request, the other process's read it continues (see the module docstring); -1 when none.

    >>> op, proc = np.zeros(4, dtype=np.int64), np.array([0, 1, 1, 2])
    >>> continuations(op, proc, np.array([0, 8192, 65536, 16384]), np.full(4, 8192),
    ...               np.array([0.0, 0.2, 0.4, 0.6]), np.array([0.1, 0.3, 0.5, 0.7])).tolist()
    [-1, 0, -1, 1]

    1 takes over where 0 ended; 2 is 1's own next; 3 continues 1 though 2 completed since. A read of the
    same data two seconds later is another pass, not a continuation:

    >>> continuations(op[:2], proc[:2], np.array([0, 8192]), np.full(2, 8192), np.array([0.0, 2.2]),
    ...               np.array([0.1, 2.3])).tolist()
    [-1, -1]"""
    out = np.full(len(op), -1, dtype=np.int64)
    reads = np.flatnonzero((op == READ) & (length > 0))
    if not len(reads):
        return out
    ends, rank = np.unique(offset[reads] + length[reads], return_inverse=True)
    slot = np.searchsorted(ends, offset[reads])
    known = (slot < len(ends)) & (ends[np.minimum(slot, len(ends) - 1)] == offset[reads])
    order, grouped, at = _latest_of_group(rank, complete_s[reads], np.where(known, slot, -1), issue_s[reads])
    candidate = reads[order]
    pending = at >= 0
    for _ in range(4):  # step past the reader's own reads of that end (a process rereading a block)
        k = np.maximum(at, 0)
        same_end = pending & (grouped[k] == slot)
        other = same_end & (process[candidate[k]] != process[reads])
        out[reads[other]] = candidate[k[other]]
        pending = same_end & ~other
        at = at - 1
        pending &= at >= 0
        if not pending.any():
            break
    stale = (out >= 0) & (issue_s - complete_s[np.maximum(out, 0)] > STREAM_GAP_S)
    return np.where(stale, -1, out)


def cross_links(op: IntArray, process: IntArray, offset: IntArray, length: IntArray, issue_s: FloatArray,
                complete_s: FloatArray, session: BoolArray | None = None) -> IntArray:
    """Per request (issue order), the request of another process it depends on (the latest
    completing of its flush links and the read it continues); -1 where there is none.
    A link is always to a request issued before, so the replay's dependencies form no cycle."""
    owner, waited = flush_links(op, process, length, issue_s, complete_s, session)
    link = _later(_later(owner, waited, complete_s), continuations(op, process, offset, length, issue_s, complete_s),
                  complete_s)
    # only to a request issued before (a request of no duration at one instant could otherwise close a cycle)
    return np.where(link < np.arange(len(link)), link, -1)


def waiters_writes(op: IntArray, process: IntArray, sectors: IntArray, issue_s: FloatArray,
                   complete_s: FloatArray, cause: IntArray, session: BoolArray | None) -> IntArray:
    """Per request: for a flush whose owner is not a database session's write but which releases
    sessions (a request of theirs has it as *cause*), the latest write completed before the
    flush's issue by one of those sessions; -1 for every other request. *session* marks the
    requests of processes that serve a database (None: not known, no flush changes).

    A flush owned by a session's write keeps it: sessions committing in turn under PostgreSQL's
    WAL lock (one writes and flushes, the next one waits for the lock, then writes and flushes)
    make a chain the flush is part of (on the accuracy suite's WAL-heavy inserts, following the
    released session's own older write instead put the WAL's planned gain at +27-33 % for
    +8-13 % measured). A flush owned by the journal's, the page writeback's or a background
    writer's write is asked for by the session it releases, whose writes are done.

    >>> op, proc = np.array([1, 1, 2, 0, 0]), np.array([5, 6, 9, 5, 7])
    >>> issue, done = np.array([0.0, 0.1, 1.0, 2.0, 2.5]), np.array([0.5, 0.9, 1.9, 2.2, 2.7])
    >>> session = np.array([True, False, False, True, True])
    >>> waiters_writes(op, proc, np.full(5, 8), issue, done, np.array([-1, -1, 1, 2, 2]), session).tolist()
    [-1, -1, 0, -1, -1]

    The flush follows write 0 of session 5, which it releases, not write 1 of process 6 (no session),
    which completed later; session 7 wrote nothing."""
    out = np.full(len(op), -1, dtype=np.int64)
    if session is None:
        return out
    flush = op == FLUSH
    owner = _owners(op, sectors, issue_s, complete_s)
    foreign = flush & (owner >= 0) & ~session[np.maximum(owner, 0)]
    waits = np.flatnonzero(~flush & session & (cause >= 0))
    waits = waits[foreign[cause[waits]]]
    writes = np.flatnonzero((op == WRITE) & (sectors > 0) & session)
    if not len(waits) or not len(writes):
        return out
    writers, rank = np.unique(process[writes], return_inverse=True)
    flushes, waiter = cause[waits], process[waits]
    slot = np.searchsorted(writers, waiter)
    known = (slot < len(writers)) & (writers[np.minimum(slot, len(writers) - 1)] == waiter)
    order, _, at = _latest_of_group(rank, complete_s[writes], np.where(known, slot, -1), issue_s[flushes])
    found = at >= 0
    flushes, write = flushes[found], writes[order][at[found]]
    if not len(flushes):  # no session it releases wrote before it
        return out
    latest = np.lexsort((complete_s[write], flushes))  # per flush, its waiters' writes by completion
    last = np.r_[flushes[latest][1:] != flushes[latest][:-1], True]
    out[flushes[latest][last]] = write[latest][last]
    return out


def flush_links(op: IntArray, process: IntArray, sectors: IntArray, issue_s: FloatArray,
                complete_s: FloatArray, session: BoolArray | None = None) -> tuple[IntArray, IntArray]:
    """Per request (issue order): its owner when it is a flush, and for any other request
    the flush that released it (the latest of the three cases of the module docstring);
    -1 where there is none. *sectors* is any length (0 for no data). *session* marks the
    requests of database sessions where the server named its processes: only a session is
    taken for committing in the third case (a background writer or WAL writer that wrote keeps
    its own clock); None, not known: any process a flush covered.

    >>> op, proc = np.array([1, 1, 2, 1, 1]), np.array([5, 6, 9, 5, 6])
    >>> issue, done = np.array([0.0, 0.1, 1.0, 2.0, 2.5]), np.array([0.5, 0.6, 1.9, 2.2, 2.7])
    >>> [x.tolist() for x in flush_links(op, proc, np.full(5, 8), issue, done)]  # both writers wait for the flush
    [[-1, -1, 1, -1, -1], [-1, -1, -1, 2, 2]]
    """
    owners = _owners(op, sectors, issue_s, complete_s)
    waited = np.full(len(op), -1, dtype=np.int64)
    flushes = np.flatnonzero(op == FLUSH)
    if len(flushes):  # the last completion on the disk before its issue was a flush
        before = _last_done_before(issue_s, complete_s)
        released = (before >= 0) & (op[np.maximum(before, 0)] == FLUSH) & (op != FLUSH)
        waited[released] = before[released]
    writes = np.flatnonzero((op == WRITE) & (sectors > 0))
    if not len(flushes) or not len(writes):
        return owners, waited
    # the flush covering a write: the first flush issued at or after the write completed
    covering = np.searchsorted(issue_s[flushes], complete_s[writes], side="left")
    inside = covering < len(flushes)
    count = len(op)
    pair = np.unique(process[writes[inside]] * (count + 1) + flushes[covering[inside]])  # (process, flush)
    pair_process, pair_flush = pair // (count + 1), pair % (count + 1)
    others = np.flatnonzero(op != FLUSH)
    # events per process in time order, a covering flush's completion before a request issued at that instant;
    # each request takes the last flush event before it in its own process (a forward fill)
    event_process = np.concatenate((pair_process, process[others]))
    event_time = np.concatenate((complete_s[pair_flush], issue_s[others]))
    event_is_flush = np.concatenate((np.ones(len(pair), dtype=np.bool_), np.zeros(len(others), dtype=np.bool_)))
    event_index = np.concatenate((pair_flush, others))
    order = np.lexsort((~event_is_flush, event_time, event_process))
    seen = np.maximum.accumulate(np.where(event_is_flush[order], np.arange(len(order)), -1))
    at = np.maximum(seen, 0)
    same = (seen >= 0) & (event_process[order][at] == event_process[order])
    found = np.where(same, event_index[order][at], -1)
    requests = ~event_is_flush[order]
    target = event_index[order][requests]
    waited[target] = _later(waited[target], found[requests], complete_s)
    commits = np.isin(process, pair_process) & (op != FLUSH)
    committing = np.flatnonzero(commits if session is None else commits & session)
    # the last completion before its issue, other processes' writes passed over (its own later write is its
    # cause anyway, advisor.disk.replay_stream.causes), when that is a flush
    woke = _last_done_before(issue_s[committing], complete_s, np.flatnonzero(op != WRITE))
    woke = np.where((woke >= 0) & (op[np.maximum(woke, 0)] == FLUSH), woke, -1)
    waited[committing] = _later(waited[committing], woke, complete_s)
    return owners, waited

