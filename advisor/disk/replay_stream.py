"""A traced request stream, what a replay of it gives, and what each request waits for.

The pieces the replay (:mod:`advisor.disk.replay`, whose docstring says how a trace is
replayed) and the replay across devices (:mod:`advisor.disk.replay_devices`) share: the
stream, the replayed times, the most requests a trace had in flight, the choice of the next
request at a drive (flushes as barriers), and each request's cause.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from advisor.disk.mechanism import Mechanism, Request
from advisor.trace.handovers import handovers
from advisor.trace.links import cross_links, waiters_writes

OPS = ("read", "write", "flush", "discard")
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Stream:
    """A traced stream: per request its position, size, op (index into :data:`OPS`),
    process, and the traced issue and completion times (seconds, any origin); *fua* marks
    the writes with Force Unit Access (to the media before they complete; None: none);
    *elsewhere_s* per request the latest completion of its process on another traced disk before
    its issue (:func:`advisor.trace.cross_disk.latest_elsewhere`, -inf: none; None: one disk);
    *session* per request whether its process serves a database (None: not known), which decides
    whom a flush follows (:func:`advisor.trace.links.waiters_writes`); *sequence_bytes* per request
    the position a sequential reader follows, its file's byte across the file's extents
    (:func:`advisor.trace.extents.file_positions`; None: the disk's byte), which finds the
    streams several processes read in turn (:mod:`advisor.disk.replay_shared`)."""

    offset_bytes: IntArray
    length_bytes: IntArray
    op: IntArray
    process: IntArray
    issue_s: FloatArray
    complete_s: FloatArray
    fua: npt.NDArray[np.bool_] | None = None
    elsewhere_s: FloatArray | None = None
    session: npt.NDArray[np.bool_] | None = None
    sequence_bytes: IntArray | None = None

    def moved(self, offset_bytes: IntArray) -> Stream:
        """The same stream with requests at other positions on the disk (a planned layout): each still
        reads the same bytes of its file."""
        return replace(self, offset_bytes=offset_bytes)

    @property
    def followed_bytes(self) -> IntArray:
        """The position sequential reads follow: :attr:`sequence_bytes` where known, else the disk's byte."""
        return self.sequence_bytes if self.sequence_bytes is not None else self.offset_bytes

    def op_names(self) -> list[str]:
        """Each request's operation as the :class:`~advisor.disk.mechanism.Mechanism` names it."""
        names = [OPS[o] for o in self.op.tolist()]
        if self.fua is not None:
            for i in np.flatnonzero(self.fua & (self.op == OPS.index("write"))).tolist():
                names[i] = "write-fua"
        return names


@dataclass(frozen=True)
class Replayed:
    """Replayed issue and completion times per request (seconds from the first issue)."""

    issue_s: FloatArray
    complete_s: FloatArray
    queue_depth: int

    @property
    def service_s(self) -> FloatArray:
        """Issue-to-completion time of each request."""
        return self.complete_s - self.issue_s

    @property
    def span_s(self) -> float:
        """First issue to last completion."""
        return float(self.complete_s.max() - self.issue_s.min()) if len(self.issue_s) else 0.0


def max_in_flight(issue_s: FloatArray, complete_s: FloatArray) -> int:
    """The most requests in flight at once in a trace.

    >>> max_in_flight(np.array([0.0, 1.0, 2.0]), np.array([3.0, 1.5, 4.0]))
    2
    """
    times = np.concatenate((issue_s, complete_s))
    steps = np.concatenate((np.ones(len(issue_s)), -np.ones(len(complete_s))))
    order = np.lexsort((steps, times))  # a completion before an issue at the same instant
    return int(np.cumsum(steps[order]).max()) if len(times) else 0


def next_request(mech: Mechanism, drive: list[Request], now: float, *, after_flush: bool = False) -> int:
    """Index into *drive* (the requests at the drive, in issue order) of the one to serve at
    *now*: the mechanism's choice among those issued before the first flush; the flush
    itself when it is the oldest; the oldest right *after_flush* (see
    :mod:`advisor.disk.replay`: the requests a flush held back reach the drive one by one,
    and an idle drive starts the first)."""
    if after_flush:
        return 0
    barrier = next((k for k, req in enumerate(drive) if req.op == "flush"), len(drive))
    if barrier == 0 or barrier == 1:
        return 0
    return mech.choose(drive[:barrier], now)


def causes(stream: Stream) -> tuple[IntArray, IntArray]:
    """Per request: its cause (see the module docstring), and the previous request of its
    process when that one was still in flight at this issue; each -1 when there is none.

    A request whose process completed a request on another traced disk after this cause
    (``stream.elsewhere_s``) waited for that disk, which this replay does not move: it keeps
    only its link across processes on this disk (a flush still follows its write), else it has
    no cause here and goes out when the trace issued it."""
    count = len(stream.issue_s)
    cause = np.full(count, -1, dtype=np.int64)
    previous = np.full(count, -1, dtype=np.int64)
    outstanding: dict[int, list[tuple[float, int]]] = {}
    last_done: dict[int, int] = {}
    last_issued: dict[int, int] = {}
    issue, complete, process = stream.issue_s.tolist(), stream.complete_s.tolist(), stream.process.tolist()
    flush = (stream.op == OPS.index("flush")).tolist()
    link_of = cross_links(stream.op, stream.process, stream.offset_bytes, stream.length_bytes, stream.issue_s,
                          stream.complete_s, stream.session)
    links = link_of.tolist()
    for i in range(count):
        p, t = process[i], issue[i]
        heap = outstanding.setdefault(p, [])
        while heap and heap[0][0] <= t:
            last_done[p] = heapq.heappop(heap)[1]
        cause[i] = last_done.get(p, -1)
        link = links[i]
        # a flush goes out after its owner, not after the worker's last request (another's flush: the
        # journal's, on its timer); anything else after whichever of its links completed last
        if link >= 0 and (cause[i] < 0 or complete[link] > complete[cause[i]] or flush[i]):
            cause[i] = link
        before = last_issued.get(p, -1)
        if before >= 0 and complete[before] > t:  # issued while the previous one was still in flight
            previous[i] = before
        last_issued[p] = i
        heapq.heappush(heap, (complete[i], i))
    trigger = waiters_writes(stream.op, stream.process, stream.length_bytes, stream.issue_s, stream.complete_s, cause,
                             stream.session)
    cause = np.where(trigger >= 0, trigger, cause)
    handed = handovers(stream.process, stream.issue_s, stream.complete_s, stream.session)
    # a flush is the block layer's, issued after its owner: never a process that took over
    cause = np.where((cause < 0) & (handed >= 0) & (stream.op != OPS.index("flush")), handed, cause)
    if stream.elsewhere_s is not None:
        here = np.where(cause >= 0, stream.complete_s[np.maximum(cause, 0)], -np.inf)
        there = stream.elsewhere_s > here
        cause, previous = np.where(there, link_of, cause), np.where(there, -1, previous)
    return cause, previous
