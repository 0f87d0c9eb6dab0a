"""The text tracefs prints for ``block_rq_issue`` and ``block_rq_complete``, as requests.

A line is ``<comm>-<pid> [cpu] <flags> <seconds>: <event>: <major>,<minor> <rwbs> ...``;
an issue then has ``<bytes> (<cmd>) <sector> + <sectors> [ioprio] [<comm>]``, a completion
``(<cmd>) <sector> + <sectors> [ioprio] [<error>]`` (the ioprio field is new in 6.x; both
forms are read). The issuing process is the task of the issue event (a completion runs in
whatever context the interrupt found). An issue is paired with the first later completion
of the same device, sector and length. ``rwbs`` says the operation: a leading ``F`` before
another operation letter is a pre-flush of that operation; ``R`` read, ``W`` write, ``D``
discard, ``F`` flush; anything else (``N``: driver commands) is counted and left out.
"""

from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from advisor.trace.codec import DISCARD, FLUSH, READ, WRITE, Requests

_OP_OF = {"R": READ, "W": WRITE, "F": FLUSH, "D": DISCARD}


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
    open_issues: dict[tuple[int, int], deque[int]] = field(default_factory=dict)
    orphan_completions: int = 0  # completions of requests issued before the trace began
    completions: int = 0  # of reads and writes (what diskstats counts as reads and writes)
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
        at = issue if issue >= 0 else line.find(": block_rq_complete: ")
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
        key = (sector, sectors)
        if issue >= 0:
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
        else:
            if op in (READ, WRITE):
                stream.completions += 1
            waiting = stream.open_issues.get(key)
            if waiting:
                stream.complete_s[waiting.popleft()] = stamp
            else:
                stream.orphan_completions += 1


def completed_requests(stream: DeviceStream) -> tuple[Requests, int]:
    """The requests of *stream* that completed inside the trace; and how many did not."""
    complete = np.frombuffer(stream.complete_s, dtype=np.float64)
    issue = np.frombuffer(stream.issue_s, dtype=np.float64)
    done = ~np.isnan(complete)

    def ints(values: array[int]) -> np.ndarray:
        return np.frombuffer(values, dtype=np.int64).copy()

    requests = Requests(issue.copy(), complete - issue, ints(stream.sector), ints(stream.sectors), ints(stream.op),
                        ints(stream.process))
    return requests.take(done), int((~done).sum())


def clock_steps(requests: Requests) -> list[int]:
    """Indices where the clock went backwards: an issue before the previous one, or a
    completion before its own issue (tracefs merges the per-cpu buffers by time stamp, so
    neither happens on a steady clock)."""
    backwards = np.diff(requests.issue_s, prepend=requests.issue_s[:1]) < 0
    return [int(i) for i in np.flatnonzero(backwards | (requests.service_s < 0))]
