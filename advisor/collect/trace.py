"""``collect --trace``: the block layer's requests of the database's disks over the interval.

:func:`traced_disks` picks the whole disks that hold the located database files of
snapshot A; :func:`start_trace` opens the tracefs session (or says why there is none);
:func:`finish_trace` turns what it caught into one :class:`BlockTrace` per disk: the
requests that completed inside the trace, the extents of every database file on the disk
(read again with FIEMAP after snapshot B, so files that grew are mapped), the tracer's loss
counters, and the reconciliation with /proc/diskstats over the same interval.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from advisor.model import BlockTrace, DiskStat, SessionSeen, Snapshot, TraceLoss, TraceProcess
from advisor.storage import diskstats
from advisor.storage.blocktrace import Capture, TraceUnavailable, tracing
from advisor.storage.locate import Locator, merge
from advisor.trace.codec import TRACE_ENCODING, ExtentTable, encode_extents, encode_requests
from advisor.trace.extents import ExtentIndex, extent_table
from advisor.trace.parse import DeviceStream, clock_steps, completed_requests
from advisor.trace.soundness import loss_line

SECTOR_BYTES = 512


@dataclass
class Session:
    """A running trace: the disks, the capture, and diskstats when it began."""

    disks: dict[str, tuple[int, int]]
    sizes: dict[str, int]
    capture: Capture
    stats_before: list[DiskStat]
    stats_after: list[DiskStat] | None = None


def traced_disks(snapshot: Snapshot) -> dict[str, tuple[int, int]]:
    """Whole disks holding located files of *snapshot*, with their (major, minor)."""
    if snapshot.layout is None:
        return {}
    names = sorted({loc.disk for loc in snapshot.layout.locations if loc.disk and loc.placement_known})
    found = {}
    for name in names:
        try:
            major, minor = Path(f"/sys/block/{name}/dev").read_text().strip().split(":")
        except (OSError, ValueError):
            continue
        found[name] = (int(major), int(minor))
    return found


@contextlib.contextmanager
def tracing_disks(snapshot: Snapshot) -> Iterator[Session]:
    """Trace the disks of *snapshot* while the block runs (TraceUnavailable before it when not possible)."""
    disks = traced_disks(snapshot)
    sizes = {d.name: d.size_bytes for d in snapshot.layout.devices} if snapshot.layout else {}
    with tracing(disks) as capture:
        session = Session(disks, sizes, capture, diskstats.sample(disks)[0])
        try:
            yield session
        finally:
            session.stats_after = diskstats.sample(disks)[0]


def _extents(second: Snapshot, disks: set[str]) -> dict[str, tuple[tuple[str, ...], ExtentTable]]:
    located = {loc.path: loc.disk for loc in second.layout.locations} if second.layout else {}
    locator = Locator(keep_extents=True)
    locations = []
    for file in second.files:
        if not file.path or located.get(file.path) not in disks:
            continue
        parts = [locator.locate(p) for p in (file.path, *file.segment_paths)]
        locations.append(merge(file.path, parts))
    unique = {loc.path: loc for loc in locations}
    return {disk: extent_table(unique.values(), disk) for disk in disks}


def _loss(stream: DeviceStream, incomplete: int, before: DiskStat | None, after: DiskStat | None,
          overrun: int, dropped: int) -> TraceLoss:
    counted = None
    if before is not None and after is not None:
        counted = (after.reads - before.reads) + (after.writes - before.writes)
    traced = stream.completions
    return TraceLoss(
        overrun=overrun, dropped_events=dropped, diskstats_requests=counted, traced_completions=traced,
        edge_requests=stream.orphan_completions + incomplete,
        missing_requests=None if counted is None else max(0, counted - traced),
        excess_requests=None if counted is None else max(0, traced - counted),
    )


def _warnings(stream: DeviceStream) -> tuple[str, ...]:
    said = []
    if stream.other_commands:
        said.append(f"{stream.other_commands} driver commands (neither read, write, flush nor discard) were left out")
    if stream.requeues:
        said.append(f"{stream.requeues} requests were given back by the driver and issued again; "
                    "each is one request, timed from its first issue")
    return tuple(said)


def named_processes(processes: tuple[TraceProcess, ...], sessions: Sequence[SessionSeen]) -> tuple[TraceProcess, ...]:
    """*processes* with the database and role of each pid the collector saw among the server's
    processes while it sampled the interval (kernel threads and pids it never saw stay unnamed).

    >>> named_processes((TraceProcess(7, "postgres"), TraceProcess(9, "jbd2/sda1-8")),
    ...                 [SessionSeen(7, "ledger", "client backend")])[0].database
    'ledger'
    """
    by_pid = {s.pid: s for s in sessions}
    return tuple(replace(p, database=by_pid[p.pid].database, role=by_pid[p.pid].role or None) if p.pid in by_pid
                 else p for p in processes)


def finish_trace(session: Session, second: Snapshot, interval_s: float) -> tuple[BlockTrace, ...]:
    """One BlockTrace per traced disk (see the module docstring)."""
    capture = session.capture
    processes = sorted(capture.parser.processes.items(), key=lambda item: item[1])
    table = named_processes(tuple(TraceProcess(pid, comm) for (pid, comm), _ in processes), second.wait.sessions)
    extents = _extents(second, set(session.disks))
    before = {row.name: row for row in session.stats_before}
    after = {row.name: row for row in session.stats_after or []}
    traces = []
    for disk, (major, minor) in sorted(session.disks.items()):
        stream = capture.parser.devices.get(f"{major},{minor}", DeviceStream())
        requests, incomplete = completed_requests(stream)
        files, extent_rows = extents[disk]
        rows = ExtentIndex(extent_rows).lookup(requests.sector * SECTOR_BYTES)
        data_requests = requests.sectors > 0
        loss = _loss(stream, incomplete, before.get(disk), after.get(disk), capture.overrun, capture.dropped_events)
        traces.append(BlockTrace(
            disk=disk, device_number=f"{major}:{minor}", disk_size_bytes=session.sizes.get(disk, 0),
            clock="mono", started_s=capture.started_s, ended_s=capture.ended_s, interval_s=interval_s,
            requests=len(requests), encoding=TRACE_ENCODING, data=encode_requests(requests, capture.started_s),
            processes=table, files=files, extents=encode_extents(extent_rows), loss=loss,
            clock_steps=tuple(clock_steps(requests)),
            mapped_requests=int(np.count_nonzero((rows >= 0) & data_requests)),
            warnings=_warnings(stream),
        ))
    return tuple(traces)


class IntervalTrace:
    """The trace of one ``collect --interval --trace``: started after snapshot A, stopped
    before snapshot B, removed on any exit (use it as a context manager)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.stack = contextlib.ExitStack()
        self.session: Session | None = None
        self.unavailable: str | None = None

    def __enter__(self) -> IntervalTrace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()

    def start(self, first: Snapshot) -> None:
        """Begin tracing the disks of *first*, or say why there will be no trace."""
        if not traced_disks(first):
            self.unavailable = "no database file is located on a whole disk this host shows in /sys/block"
        else:
            try:
                self.session = self.stack.enter_context(tracing_disks(first))
            except TraceUnavailable as exc:
                self.unavailable = str(exc)
            else:
                if stale := self.session.capture.stale_removed:
                    self.say(f"removed {stale} tracefs instance{'s' if stale > 1 else ''} that killed traces had "
                             "left (advisor-*, held by no process); each kept a kernel buffer per cpu")
        if self.unavailable:
            self.say(f"no block-layer trace: {self.unavailable}; going on without one")

    def stop(self) -> None:
        """End tracing (the instance is removed here)."""
        self.stack.close()

    def traces(self, second: Snapshot, interval_s: float) -> tuple[BlockTrace, ...]:
        """The traces, once stopped (none when tracing never started)."""
        return () if self.session is None else finish_trace(self.session, second, interval_s)


def trace_summary(traces: tuple[BlockTrace, ...]) -> list[str]:
    """A line per traced disk: requests, mapped share, and what the trace lost."""
    lines = []
    for trace in traces:
        mapped = f"{trace.mapped_requests / trace.requests:.0%}" if trace.requests else "none"
        lost = loss_line(trace)
        lines.append(f"trace of {trace.disk}: {trace.requests} requests over {trace.ended_s - trace.started_s:.1f} s, "
                     f"{mapped} in database files" + (f"; {lost}" if lost else ""))
    return lines
