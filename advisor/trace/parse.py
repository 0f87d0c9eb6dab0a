"""The text tracefs prints for ``block_rq_issue``, ``block_rq_complete`` and
``block_rq_requeue``, as requests.

A line is ``<comm>-<pid> [cpu] <flags> <seconds>: <event>: <major>,<minor> <rwbs> ...``;
an issue then has ``<bytes> (<cmd>) <sector> + <sectors> [ioprio] [<comm>]``, a completion
``(<cmd>) <sector> + <sectors> [ioprio] [<error>]`` (the ioprio field is new in 6.x; both
forms are read). The issuing process is the task of the issue event (a completion runs in
whatever context the interrupt found). An issue is paired with the first later completion
of the same device, operation, sector and length. ``rwbs`` says the operation: a leading
``F`` before another operation letter is a pre-flush of that operation; ``R`` read, ``W``
write, ``D`` discard, ``F`` flush; anything else (``N``: driver commands) is counted and
left out. A ``F`` after the operation letter (``WFS``) is FUA: the write must reach the
media before it completes; it is kept (:attr:`DeviceStream.fua`), a write cache does not
absorb it.

Flushes, as the kernel prints them (6.x, seen on the loop device and SCSI disks): an
``fsync`` sends an empty write with the pre-flush flag; the block layer's flush machinery
issues one flush request for it (``FF``, sector 0, length 0, issued by the ``kblockd``
worker ``kworker/N:MH``; several waiting ``fsync`` share one), whose completion prints
sector ``18446744073709551615`` (the kernel's "no sector"), and then completes each empty
write it stood for (``WS () 0 + 0``) without ever issuing it. So a flush completion pairs
with the oldest flush issued and not completed, whatever its sector; a completion of zero
sectors that no issue waits for is the end of such a flush sequence, not a device request:
it is counted apart (:attr:`DeviceStream.sequence_ends`), not an orphan, and, as diskstats
counts it among the writes, among the completions reconciled with diskstats.

Requeues (``block_rq_requeue``, printed as a completion is, with ``[0]`` last): the driver
gave a request back without serving it (libata defers a queued command while a non-queued
one such as FLUSH CACHE runs, a busy SCSI host or device, error recovery retrying it), and
the block layer issues the same request again later: a second ``block_rq_issue`` of the
same sector and length, then one completion. A requeue takes the latest open issue of its
device, operation, sector and length aside; the next issue with that key is its re-issue:
no new request, the request keeps its first issue time and waits for its completion again
(:attr:`DeviceStream.requeues` counts them). The first issue, because the block layer
itself keeps it one request from there: the requeue path ends no accounting, diskstats
counts it once when it completes and keeps it in flight meanwhile (so the busy time,
``io_ticks``, runs across the requeue), and on a SATA disk the wait between the two
issues is the drive's (its flush running), which the replay's drive model charges to a
request issued during a flush (:mod:`advisor.disk.replay`). Timing from the re-issue, as
the kernel's own latency statistics do (``io_start_time_ns`` is set again at each issue),
would hide that wait. A requeue with no open issue of its key is of a request the trace
never saw issued (requeued before the driver started it, or issued before the trace
began): nothing to set aside, its issue is read as a first one. Without the requeue
events (a kernel or a trace without them) each issue is a request, as before.
"""

from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from advisor.trace.codec import DISCARD, FLUSH, READ, WRITE, Requests

_OP_OF = {"R": READ, "W": WRITE, "F": FLUSH, "D": DISCARD}


def is_fua(rwbs: str) -> bool:
    """True when a write's ``rwbs`` carries FUA (an ``F`` after the operation letter).

    >>> [is_fua(x) for x in ("WFS", "WS", "FWFS", "FF", "FWS", "RF")]
    [True, False, True, False, False, False]
    """
    if len(rwbs) > 1 and rwbs[0] == "F" and rwbs[1] in "RWDFN":
        rwbs = rwbs[1:]
    return rwbs[:1] == "W" and "F" in rwbs[1:]


def op_of(rwbs: str) -> int | None:
    """The operation of an ``rwbs`` string, None for one that moves no data nor flushes.

    >>> [op_of(x) for x in ("R", "RA", "WS", "FWS", "FF", "WFS", "DS", "N")]
    [0, 0, 1, 1, 2, 1, 3, None]
    """
    if len(rwbs) > 1 and rwbs[0] == "F" and rwbs[1] in "RWDFN":
        rwbs = rwbs[1:]
    return _OP_OF.get(rwbs[:1])


@dataclass
class DeviceStream:
    """What the pipe held for one device, in pipe order (typed arrays: 48 bytes a request,
    where lists of Python numbers took about 250, for ten million requests)."""

    issue_s: array[float] = field(default_factory=lambda: array("d"))
    complete_s: array[float] = field(default_factory=lambda: array("d"))  # nan until completed
    sector: array[int] = field(default_factory=lambda: array("q"))
    sectors: array[int] = field(default_factory=lambda: array("q"))
    op: array[int] = field(default_factory=lambda: array("q"))
    process: array[int] = field(default_factory=lambda: array("q"))
    fua: array[int] = field(default_factory=lambda: array("b"))  # 1: a write the cache may not absorb
    open_issues: dict[tuple[int, int, int], deque[int]] = field(default_factory=dict)
    requeued: dict[tuple[int, int, int], deque[int]] = field(default_factory=dict)  # waiting for their re-issue
    requeues: int = 0  # requests of the trace given back by the driver and issued again (or still waiting)
    orphan_completions: int = 0  # completions of requests issued before the trace began
    sequence_ends: int = 0  # empty pre-flush writes completed by their flush (see the module docstring)
    completions: int = 0  # of reads and writes, sequence ends included (what diskstats counts as reads and writes)
    other_commands: int = 0


@dataclass
class TraceParser:
    """Feeds on tracefs lines; keeps one :class:`DeviceStream` per ``major,minor``."""

    devices: dict[str, DeviceStream] = field(default_factory=dict)
    processes: dict[tuple[int, str], int] = field(default_factory=dict)
    unreadable: int = 0

    def feed(self, line: str) -> None:
        """Take one line of the trace (other events and comment lines are skipped)."""
        if " block_rq_" not in line or line.startswith("#"):
            return
        issue = line.find(": block_rq_issue: ")
        requeue = -1 if issue >= 0 else line.find(": block_rq_requeue: ")
        at = issue if issue >= 0 else requeue if requeue >= 0 else line.find(": block_rq_complete: ")
        if at < 0:
            return
        head, body = line[:at], line[line.index(": ", at + 2) + 2:].rstrip("\n")
        try:
            stamp = float(head.rsplit(None, 1)[1])
            dev, rwbs, rest = body.split(" ", 2)
            close = rest.index(") ")
            after = rest[close + 2:].split(" ")
            sector, sectors = int(after[0]), int(after[2])
            last = rest[rest.rindex(" [") + 2:-1]
        except (ValueError, IndexError):
            self.unreadable += 1
            return
        stream = self.devices.setdefault(dev, DeviceStream())
        op = op_of(rwbs)
        if op is None:
            stream.other_commands += 1
            return
        key = (FLUSH, 0, 0) if op == FLUSH else (op, sector, sectors)
        if requeue >= 0:
            self._requeue(stream, key)
            return
        if issue >= 0:
            again = stream.requeued.get(key)
            if again:
                stream.open_issues.setdefault(key, deque()).append(again.popleft())
                return
            task = head.split(" [", 1)[0].strip()
            pid = task.rpartition("-")[2]
            process = self.processes.setdefault((int(pid) if pid.isdigit() else -1, last), len(self.processes))
            stream.open_issues.setdefault(key, deque()).append(len(stream.issue_s))
            stream.issue_s.append(stamp)
            stream.complete_s.append(float("nan"))
            stream.sector.append(sector)
            stream.sectors.append(sectors)
            stream.op.append(op)
            stream.process.append(process)
            stream.fua.append(int(op == WRITE and is_fua(rwbs)))
            return
        if op in (READ, WRITE):
            stream.completions += 1
        waiting = stream.open_issues.get(key)
        if not waiting and sectors == 0 and op != FLUSH:
            stream.sequence_ends += 1
        elif waiting:
            stream.complete_s[waiting.popleft()] = stamp
        else:
            stream.orphan_completions += 1

    @staticmethod
    def _requeue(stream: DeviceStream, key: tuple[int, int, int]) -> None:
        """Set the latest open issue of *key* aside until its re-issue (see the module docstring)."""
        waiting = stream.open_issues.get(key)
        if waiting:
            stream.requeued.setdefault(key, deque()).append(waiting.pop())
            stream.requeues += 1


def completed_requests(stream: DeviceStream) -> tuple[Requests, int]:
    """The requests of *stream* that completed inside the trace; and how many did not."""
    complete = np.frombuffer(stream.complete_s, dtype=np.float64)
    issue = np.frombuffer(stream.issue_s, dtype=np.float64)
    done = ~np.isnan(complete)

    def ints(values: array[int]) -> np.ndarray:
        return np.frombuffer(values, dtype=np.int64).copy()

    fua = np.frombuffer(stream.fua, dtype=np.int8).astype(np.bool_)
    requests = Requests(issue.copy(), complete - issue, ints(stream.sector), ints(stream.sectors), ints(stream.op),
                        ints(stream.process), fua if fua.any() else None)
    return requests.take(done), int((~done).sum())


def clock_steps(requests: Requests) -> list[int]:
    """Indices where the clock went backwards: an issue before the previous one, or a
    completion before its own issue (tracefs merges the per-cpu buffers by time stamp, so
    neither happens on a steady clock)."""
    backwards = np.diff(requests.issue_s, prepend=requests.issue_s[:1]) < 0
    return [int(i) for i in np.flatnonzero(backwards | (requests.service_s < 0))]
