"""Replay one traced stream across several devices: a plan that moves areas to other devices.

A tier plan (``advisor plan --target``) sends each area to a device of an inventory: some to
drives, at a zone of their own, some to flash or a cloud volume. The traced requests keep
their order and their dependencies (:func:`advisor.disk.replay.causes`: each process a closed
loop, flushes and cross-process links kept), and each is served where its area goes:

* on a **drive**, by its own :class:`~advisor.disk.mechanism.Mechanism` exactly as
  :func:`advisor.disk.replay.replay` serves one disk (SPTF among the requests it holds, at
  most its queue depth of them, flushes as barriers, read-ahead and write cache). With one
  drive and every request routed to it the result is :func:`~advisor.disk.replay.replay`'s,
  to the bit (tested): the drives are that loop, interleaved in time;
* on a **flat** device (solid state, an array measured as a black box, a cloud volume), by
  its latency: a read or write its QD1 time plus the bytes beyond one block at its rate, a
  flush one write's time, no queue. The IOPS ceiling a flat device shares among its areas
  is the aggregate model's to check (it refuses a load above it); under it, a queue on flash
  adds little next to a drive's milliseconds.

A request waits for its causes wherever they were served, so a commit whose WAL write moved
to flash releases its process sooner, and the reads that stay on a drive meet fewer
neighbours in its queue.

A drive may sit behind a **path** (:attr:`DriveDevice.path_s`): the time a request spends between
the block layer and the drive, both ways, beyond the drive's own service. A disk on a SATA or SAS
adapter has next to none; a loop device, a virtual disk or a network block device has some, and
a host whose CPUs are all busy adds its run queue to it. Half of it is spent on the way to the
drive (the request reaches it that much after its issue) and half on the way back (its process
learns of the completion that much after the drive finished). It is more than a constant added
to each request's time: it decides whether a stream's next read is already at the drive when the
drive finishes the last one, or whether the drive has chosen another request by then and gone
elsewhere. On the emulated disk of the accuracy suite (a loop device over FUSE on a loaded 2-core
host) it was 0.4-0.7 ms a request, and left out, the replay kept a parallel scan streaming where
the drive had left it for the other end of the disk (docs/accuracy.md, "After run 64").
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from advisor.disk.emulator.timing import sized_model
from advisor.disk.mechanism import Geometry, Mechanism, Request
from advisor.disk.model import DiskModel
from advisor.disk.replay_shared import shared_streams
from advisor.disk.replay_stream import IntArray, Replayed, Stream, causes, max_in_flight, next_request
from advisor.errors import BadInput


@dataclass(frozen=True)
class DriveDevice:
    """A drive a plan sends requests to: its model stretched over *disk_bytes*, holding at most
    *depth* requests (None: the most the requests routed to it had in flight in the trace)."""

    model: DiskModel
    disk_bytes: int
    depth: int | None = None
    located: dict[tuple[int, int], Geometry] | None = field(default=None, compare=False)
    """Its requests' extents already located (:func:`advisor.disk.replay.located`), for speed."""
    path_s: float = 0.0
    """A request's time between the block layer and the drive, both ways (the module docstring)."""


@dataclass(frozen=True)
class FlatDevice:
    """A device with no position cost, as the replay serves it: each request its latency, no queue."""

    read_s: float  # QD1 time of one block's read
    write_s: float  # QD1 time of one block's write; a flush costs one write
    bytes_per_s: float  # sequential rate: the bytes beyond one block
    block_bytes: int = 4096

    def service_s(self, op: str, length_bytes: int) -> float:
        """The time of one request of *op* and *length_bytes*."""
        if op == "discard" or (op != "flush" and length_bytes == 0):
            return 0.0
        base = self.read_s if op == "read" else self.write_s
        return base + max(0, length_bytes - self.block_bytes) / self.bytes_per_s


INFINITY = float("inf")


def _flat(device: DriveDevice | FlatDevice) -> FlatDevice:
    assert isinstance(device, FlatDevice)
    return device


@dataclass
class _Drive:
    """One drive's state in the replay: what it holds, what waits for it, and when it next chooses."""

    mech: Mechanism
    depth: int
    to_drive_s: float = 0.0  # from the block layer's issue to the drive: half the path
    from_drive_s: float = 0.0  # from the drive's completion to the block layer's: the other half
    drive: list[Request] = field(default_factory=list)
    host: deque[int] = field(default_factory=deque)
    in_flight: int = 0
    decide_at: float = 0.0  # when it next chooses: its head free, or the first arrival to an empty drive
    after_flush: bool = False  # the last request it served was a flush (its next choice is the oldest)


def replay_on_devices(stream: Stream, route: IntArray, devices: Sequence[DriveDevice | FlatDevice], *,
                      phase: float | None = None, seed: int = 0,
                      linked: tuple[IntArray, IntArray] | None = None) -> Replayed:
    """Replay *stream*, request ``i`` served on ``devices[route[i]]`` (see the module docstring).

    *phase* (turns) is every drive's rotational phase at the first issue (else *seed* draws it).
    *linked*: the stream's :func:`causes` already found, for the replays of one stream under several
    phases (they are indices, the same at any time scale). The replayed queue depth is the deepest drive's."""
    count = len(stream.issue_s)
    if len(route) != count or (count and (int(route.min()) < 0 or int(route.max()) >= len(devices))):
        raise ValueError("every request needs a device of *devices*")
    origin = float(stream.issue_s.min()) if count else 0.0
    issue, complete = (stream.issue_s - origin).tolist(), (stream.complete_s - origin).tolist()
    where = route.tolist()
    states: list[_Drive] = []
    by_device: list[_Drive | None] = []
    for index, device in enumerate(devices):
        if isinstance(device, DriveDevice):
            mine = route == index
            depth = device.depth if device.depth is not None else \
                max_in_flight(stream.issue_s[mine], stream.complete_s[mine])
            mech = Mechanism(sized_model(device.model, device.disk_bytes), seed=seed, phase=phase,
                             located=device.located)
            if not device.path_s >= 0.0:
                raise ValueError("a drive's path time cannot be negative")
            states.append(_Drive(mech, max(1, depth), device.path_s / 2, device.path_s / 2))
            by_device.append(states[-1])
        else:
            by_device.append(None)
    offsets, lengths, ops = stream.offset_bytes.tolist(), stream.length_bytes.tolist(), stream.op_names()
    state_of = [by_device[k] for k in where]
    flat_s = ([0.0 if state_of[i] is not None else _flat(devices[where[i]]).service_s(ops[i], lengths[i])
               for i in range(count)] if len(states) < len(devices) else [])
    cause, previous = linked if linked is not None else causes(stream)
    # a stream several processes read in turn: the k-th of its reads issued takes its k-th chunk
    shared, chunks = shared_streams(stream.op, stream.process, stream.followed_bytes, stream.length_bytes,
                                    stream.issue_s)
    chunk_of = shared.tolist()
    handed = [0] * len(chunks)
    traced_at = (list(offsets), list(lengths))
    waiting = [int(c >= 0) + int(p >= 0) for c, p in zip(cause.tolist(), previous.tolist(), strict=True)]
    ready = [issue[i] if not waiting[i] else 0.0 for i in range(count)]  # when the block layer issues it
    to_drive = [0.0 if state is None else state.to_drive_s for state in state_of]
    after_issue: dict[int, int] = {int(p): i for i, p in enumerate(previous.tolist()) if p >= 0}
    after_done: dict[int, list[int]] = {}
    for i, c in enumerate(cause.tolist()):
        if c >= 0:
            after_done.setdefault(c, []).append(i)
    arrivals = [(ready[i] + to_drive[i], i) for i in range(count) if not waiting[i]]  # when it reaches its device
    heapq.heapify(arrivals)
    out_issue, out_complete = [0.0] * count, [0.0] * count
    done = 0

    def resolve(i: int, at: float) -> None:
        ready[i] = max(ready[i], at)
        waiting[i] -= 1
        if not waiting[i]:
            heapq.heappush(arrivals, (ready[i] + to_drive[i], i))

    def finished(i: int, finish: float) -> None:  # *finish*: when the block layer sees it complete
        nonlocal done
        out_complete[i] = finish
        done += 1
        for j in after_done.get(i, ()):
            resolve(j, finish + max(0.0, issue[j] - complete[i]))

    while done < count:
        # the drive that chooses next: the earliest of those holding requests (the first in order on a tie)
        chosen: _Drive | None = None
        decide_at = INFINITY
        for state in states:
            if state.drive and state.decide_at < decide_at:
                chosen, decide_at = state, state.decide_at
        while arrivals and arrivals[0][0] <= decide_at:  # what arrives before it chooses, routed
            at, i = heapq.heappop(arrivals)
            issued = at - to_drive[i]
            nxt = after_issue.get(i)
            if nxt is not None:
                resolve(nxt, issued + issue[nxt] - issue[i])
            state = state_of[i]
            if chunk_of[i] >= 0 and state is not None:
                chain = chunk_of[i]
                k = int(chunks[chain][handed[chain]])
                handed[chain] += 1
                offsets[i], lengths[i] = traced_at[0][k], traced_at[1][k]
            if state is None:  # a flat device: served at its latency, no queue
                out_issue[i] = issued
                finished(i, issued + flat_s[i])
                continue
            if not state.drive:
                state.decide_at = max(state.decide_at, at)
                if state.decide_at < decide_at:
                    chosen, decide_at = state, state.decide_at
            if state.in_flight < state.depth:  # the drive had room when it arrived: issued then
                out_issue[i] = issued
                state.drive.append(Request(ops[i], offsets[i], lengths[i], at, i))
                state.in_flight += 1
            else:
                state.host.append(i)
        if chosen is None:
            if done < count and not arrivals:  # nothing held, nothing to arrive: a wait no request can meet
                raise BadInput(f"the trace's requests wait for each other in a cycle ({count - done} of {count} "
                               "never issued): its issue and completion times contradict each other")
            continue
        now = chosen.decide_at
        if chosen.after_flush:  # what the flush held back reaches the drive now: its age counts from here
            for held in chosen.drive:
                held.submitted_s = max(held.submitted_s, now)
        req = chosen.drive.pop(next_request(chosen.mech, chosen.drive, now, after_flush=chosen.after_flush))
        chosen.after_flush = req.op == "flush"
        i = req.tag
        if req.op == "discard" or (req.op != "flush" and req.length_bytes == 0):
            finish = now  # no media work to model
        else:
            finish = chosen.mech.service(req.op, req.offset_bytes, req.length_bytes, now)
        now = max(now, finish)
        chosen.decide_at = now
        chosen.in_flight -= 1
        # the block layer hands the drive the next in line (as it frees a place: the path is not added to a wait
        # the trace's own queue depth already bounds)
        while chosen.host and chosen.in_flight < chosen.depth:
            j = chosen.host.popleft()
            out_issue[j] = now
            chosen.drive.append(Request(ops[j], offsets[j], lengths[j], now, j))
            chosen.in_flight += 1
        finished(i, finish + chosen.from_drive_s)
    depth = max((d.depth for d in states), default=0)
    return Replayed(np.array(out_issue), np.array(out_complete), depth)
