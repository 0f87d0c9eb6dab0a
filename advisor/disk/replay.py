"""Replay a traced request stream on the drive model: order and concurrency kept.

Each process of the trace is a closed loop. A request depends on the request of its own
process that completed last before it was issued (its *cause*; a cache flush, the requests
after an ``fsync`` and a read continuing another process's read are linked across
processes, :func:`advisor.trace.links.cross_links`): in the replay it is issued
``think`` seconds after its cause completes (the traced gap between that completion and
this issue). A request issued while the previous one of its process was still in flight
(asynchronous IO, read-ahead, write-back) also keeps the traced gap after that one's issue.
A request with neither (the first of a
process) is issued when the trace issued it. A disk that serves faster therefore gets the
next request sooner, as the database would send it, and a process with several requests
in flight keeps them in flight.

The drive is a :class:`~advisor.disk.mechanism.Mechanism` (the same one the simulator and
the emulated HDD use): SPTF among the requests it holds, with rotational positions,
read-ahead and write cache. It holds at most ``queue_depth`` requests (the most the trace
had in flight at once: the drive's own reordering sees as much as it saw); more wait in
issue order, as in the block layer. A request's time is from its issue to the drive until
its completion, what ``block_rq_issue`` to ``block_rq_complete`` measures.

A flush is issued by the block layer's worker, not by the process that waits for it: its
cause is the write it follows (its owner), and a process whose writes it makes durable
depends on its completion when that is its latest (:func:`advisor.trace.links.flush_links`).
A flush is a barrier (:func:`next_request`): the requests issued before it are served
first, then the flush alone, and the ones issued after it wait for it. A SATA drive's
FLUSH CACHE is not a queued command (the queue drains before it, and nothing is started
while it runs), and the emulated disk's actuator serves flushes the same way. With a
volatile write cache the flush costs what it destages: the writes the cache acknowledged
since the last one (the :class:`~advisor.disk.mechanism.Mechanism`'s cache, as in the
emulated disk).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from advisor.disk.emulator.timing import sized_model
from advisor.disk.mechanism import Geometry, Mechanism, Request
from advisor.disk.model import DiskModel
from advisor.trace.links import cross_links

OPS = ("read", "write", "flush", "discard")
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Stream:
    """A traced stream: per request its position, size, op (index into :data:`OPS`),
    process, and the traced issue and completion times (seconds, any origin); *fua* marks
    the writes with Force Unit Access (to the media before they complete; None: none)."""

    offset_bytes: IntArray
    length_bytes: IntArray
    op: IntArray
    process: IntArray
    issue_s: FloatArray
    complete_s: FloatArray
    fua: npt.NDArray[np.bool_] | None = None

    def moved(self, offset_bytes: IntArray) -> Stream:
        """The same stream with requests at other positions (a planned layout)."""
        return Stream(offset_bytes, self.length_bytes, self.op, self.process, self.issue_s, self.complete_s, self.fua)

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


def next_request(mech: Mechanism, drive: list[Request], now: float) -> int:
    """Index into *drive* (the requests at the drive, in issue order) of the one to serve at
    *now*: the mechanism's choice among those issued before the first flush; the flush
    itself when it is the oldest (see the module docstring)."""
    barrier = next((k for k, req in enumerate(drive) if req.op == "flush"), len(drive))
    if barrier == 0 or barrier == 1:
        return 0
    return mech.choose(drive[:barrier], now)


def causes(stream: Stream) -> tuple[IntArray, IntArray]:
    """Per request: its cause (see the module docstring), and the previous request of its
    process when that one was still in flight at this issue; each -1 when there is none."""
    count = len(stream.issue_s)
    cause = np.full(count, -1, dtype=np.int64)
    previous = np.full(count, -1, dtype=np.int64)
    outstanding: dict[int, list[tuple[float, int]]] = {}
    last_done: dict[int, int] = {}
    last_issued: dict[int, int] = {}
    issue, complete, process = stream.issue_s.tolist(), stream.complete_s.tolist(), stream.process.tolist()
    links = cross_links(stream.op, stream.process, stream.offset_bytes, stream.length_bytes, stream.issue_s,
                        stream.complete_s).tolist()
    for i in range(count):
        p, t = process[i], issue[i]
        heap = outstanding.setdefault(p, [])
        while heap and heap[0][0] <= t:
            last_done[p] = heapq.heappop(heap)[1]
        cause[i] = last_done.get(p, -1)
        link = links[i]
        if link >= 0 and (cause[i] < 0 or complete[link] > complete[cause[i]]):
            cause[i] = link
        before = last_issued.get(p, -1)
        if before >= 0 and complete[before] > t:  # issued while the previous one was still in flight
            previous[i] = before
        last_issued[p] = i
        heapq.heappush(heap, (complete[i], i))
    return cause, previous


def located(model: DiskModel, stream: Stream, disk_bytes: int) -> dict[tuple[int, int], Geometry]:
    """Every extent of *stream* located at once (numpy) on *model* stretched over *disk_bytes*: a
    drive's geometry does not depend on its rotational phase, so the replays of one stream under
    several phases share it (:func:`replay`'s *located*) rather than each locate every request."""
    mech = Mechanism(sized_model(model, disk_bytes))
    for length in np.unique(stream.length_bytes).tolist():
        mech.prime(stream.offset_bytes[stream.length_bytes == length], int(length))
    return mech.located()


def replay(model: DiskModel, stream: Stream, disk_bytes: int, *, queue_depth: int | None = None,
           seed: int = 0, phase: float | None = None,
           located: dict[tuple[int, int], Geometry] | None = None) -> Replayed:
    """Replay *stream* of a disk of *disk_bytes* on *model* stretched over that disk.

    The platter's rotational phase at the first issue is not in a trace: *phase* (turns,
    0 <= phase < 1) names it, else *seed* draws it (:class:`~advisor.disk.mechanism.Mechanism`).
    *located*: the stream's extents already located (:func:`located`), for a faster replay.
    One drive serving every request: :func:`advisor.disk.replay_devices.replay_on_devices`."""
    from advisor.disk.replay_devices import DriveDevice, replay_on_devices

    depth = None if queue_depth is None else max(1, queue_depth)
    drive = DriveDevice(model, disk_bytes, depth, located)
    return replay_on_devices(stream, np.zeros(len(stream.issue_s), dtype=np.int64), (drive,), phase=phase, seed=seed)
