"""Replay a traced request stream on the drive model: order and concurrency kept.

Each process of the trace is a closed loop. A request depends on the request of its own
process that completed last before it was issued (its *cause*; a cache flush, the requests
after an ``fsync`` and a read continuing another process's read are linked across
processes, :func:`advisor.trace.links.cross_links`): in the replay it is issued
``think`` seconds after its cause completes (the traced gap between that completion and
this issue). A request issued while the previous one of its process was still in flight
(asynchronous IO, read-ahead, write-back) also keeps the traced gap after that one's issue.
A request with neither (the first of a
process, or one that waited for the process's request on another traced disk,
:mod:`advisor.trace.cross_disk`) is issued when the trace issued it; but a database session that
started within a second of another session's end took over from it (a benchmark's next run, a
pool's new backend): its first request follows that session's last
(:mod:`advisor.trace.handovers`), so a replay that serves the earlier session more slowly than
the drive did never runs the two side by side. A file that several processes
read in turn from a shared counter (a parallel sequential scan) is handed out as the counter
would: the k-th of its reads to be issued reads its k-th chunk as traced, whichever process
issues it (:mod:`advisor.disk.replay_shared`), so a worker that runs ahead in the replay does
not send the stream's chunks to the drive out of order. A disk that serves faster therefore gets the
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
while it runs), and the emulated disk's actuator serves flushes the same way. The requests a
flush held back then reach the drive one by one, in their issue order (the block layer
dispatches them in turn, a SATA host issues them one command at a time, the loop driver
under the emulated disk submits them in turn), and an idle drive starts the first that
arrives: so the first choice after a flush is the oldest request, not the nearest, and the
drive's own reordering starts from the one after. Its age limit (a request that waited longer
than the mechanism's ``max_age`` is served first) counts from that arrival too, not from the
block layer's issue: charged with their wait behind a long flush, every held request would be
overdue at once and served oldest first. On the emulated disk the first to arrive
was served first after 90-99 % of the flushes that held several requests back (the accuracy
suite's runs 22-24, each workload with hundreds of such flushes); an SPTF choice there
favoured a streaming scan's reads over the point reads that had waited (docs/accuracy.md). With a
volatile write cache the flush costs what it destages: the writes the cache acknowledged
since the last one (the :class:`~advisor.disk.mechanism.Mechanism`'s cache, as in the
emulated disk).
"""

from __future__ import annotations

import numpy as np

from advisor.disk.emulator.timing import sized_model
from advisor.disk.mechanism import Geometry, Mechanism
from advisor.disk.model import DiskModel
from advisor.disk.replay_devices import DriveDevice, replay_on_devices
from advisor.disk.replay_stream import IntArray, Replayed, Stream, causes, max_in_flight

__all__ = ["Replayed", "Stream", "causes", "located", "max_in_flight", "replay"]


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
           located: dict[tuple[int, int], Geometry] | None = None,
           linked: tuple[IntArray, IntArray] | None = None, path_s: float = 0.0) -> Replayed:
    """Replay *stream* of a disk of *disk_bytes* on *model* stretched over that disk, behind a path of
    *path_s* a request both ways (:class:`~advisor.disk.replay_devices.DriveDevice`).

    The platter's rotational phase at the first issue is not in a trace: *phase* (turns,
    0 <= phase < 1) names it, else *seed* draws it (:class:`~advisor.disk.mechanism.Mechanism`).
    *located*: the stream's extents already located (:func:`located`), and *linked* its :func:`causes`
    already found, for a faster replay.
    One drive serving every request: :func:`advisor.disk.replay_devices.replay_on_devices`."""
    depth = None if queue_depth is None else max(1, queue_depth)
    drive = DriveDevice(model, disk_bytes, depth, located, path_s)
    return replay_on_devices(stream, np.zeros(len(stream.issue_s), dtype=np.int64), (drive,), phase=phase, seed=seed,
                             linked=linked)
