"""Record the block layer's requests of some disks through tracefs, for a while.

Everything goes through a private tracefs instance (``instances/advisor-<pid>-<random>``): its own
ring buffer, its own event switches and filters, so another tracer on the host (perf,
blktrace, a second collect) is neither disturbed nor read. Only ``block_rq_issue`` and
``block_rq_complete`` are enabled, and ``block_rq_requeue`` where the kernel has it (a
request the driver gave back and the block layer issues again; without it each issue is
read as a request, see :mod:`advisor.trace.parse`), filtered on the traced disks' device numbers, with the
``mono`` clock (the collect's own ``time.monotonic``) and ``overwrite`` off, so a full
buffer drops new events and counts them instead of silently losing old ones. The
instance is removed when the ``with`` block ends, however it ends (Ctrl-C included). Only
the kernel is needed: tracefs is mounted (and unmounted after) when it is not, if allowed.

A process killed with SIGKILL cannot remove its instance, and the kernel keeps it, events
on and a buffer per cpu, until someone does. The name carries a random part, so such a
leftover never stands in a new trace's way (tracefs is one per kernel: containers on one
host share it and their pids repeat), and each trace first removes ``advisor-*`` instances
left behind (:func:`sweep_stale`): older than :data:`STALE_AFTER_S` and held by no process,
which the kernel itself tells, since it refuses to remove an instance whose files are open
and a live trace holds its ``trace_pipe`` open from its first second to its last.

Where tracefs is missing or not permitted, :class:`TraceUnavailable` says why in a line.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import secrets
import select
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from advisor.trace.parse import TraceParser
from advisor.units import MIB

TRACEFS_MOUNTS = (Path("/sys/kernel/tracing"), Path("/sys/kernel/debug/tracing"))
REQUIRED_EVENTS = ("block_rq_issue", "block_rq_complete")
OPTIONAL_EVENTS = ("block_rq_requeue",)
BUFFER_KB_PER_CPU = 16384  # ~200,000 events per cpu before the reader must have caught up
BUFFER_KB_TOTAL = 262144  # on a many-cpu host the buffers together stay under 256 MiB of kernel memory
BUFFER_KB_LEAST = 1024
CHUNK_BYTES = MIB
POLL_S = 0.2
INSTANCE_PREFIX = "advisor-"
STALE_AFTER_S = 60.0
"""An ``advisor-*`` instance older than this and held by no process is a killed trace's: a live
one holds its trace_pipe open within milliseconds of making it (after writing its settings)."""


class TraceUnavailable(Exception):
    """Tracing the block layer is not possible here; the message says why."""


def kernel_dev(major: int, minor: int) -> int:
    """The ``dev`` field of the block events: the kernel's internal dev_t (major << 20 | minor).

    >>> kernel_dev(8, 16)
    8388624
    """
    return (major << 20) | minor


def _mount_tracefs(target: Path) -> bool:
    """Mount tracefs on *target* with the mount system call; True when it worked."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    return bool(target.is_dir() and libc.mount(b"tracefs", str(target).encode(), b"tracefs", 0, None) == 0)


def unmount_tracefs(target: Path) -> None:
    """Unmount the tracefs :func:`find_tracefs` mounted on *target*."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.umount2(str(target).encode(), 0)


def find_tracefs() -> tuple[Path, bool]:
    """The tracefs root and whether this process mounted it; raises TraceUnavailable."""
    for root in TRACEFS_MOUNTS:
        if (root / "instances").is_dir():
            return root, False
    if os.geteuid() != 0:
        raise TraceUnavailable("tracefs is not mounted and only root may mount it")
    if _mount_tracefs(TRACEFS_MOUNTS[0]) and (TRACEFS_MOUNTS[0] / "instances").is_dir():
        return TRACEFS_MOUNTS[0], True
    raise TraceUnavailable(f"tracefs is not mounted and mounting it on {TRACEFS_MOUNTS[0]} failed "
                           f"({os.strerror(ctypes.get_errno() or errno.ENODEV)})")


@dataclass
class Capture:
    """What one tracing run produced: the parsed lines and the tracer's loss counters."""

    parser: TraceParser = field(default_factory=TraceParser)
    started_s: float = 0.0
    ended_s: float = 0.0
    overrun: int = 0
    dropped_events: int = 0
    stale_removed: int = 0  # instances of killed traces removed before this one began


def _write(path: Path, text: str) -> None:
    path.write_text(text)


def _loss(instance: Path) -> tuple[int, int]:
    overrun = dropped = 0
    for stats in sorted((instance / "per_cpu").glob("cpu*/stats")):
        for line in stats.read_text().splitlines():
            name, _, value = line.partition(":")
            if name.strip() == "overrun":
                overrun += int(value)
            elif name.strip() == "dropped events":
                dropped += int(value)
    return overrun, dropped


class _Reader(threading.Thread):
    """Reads the instance's trace_pipe into the parser until told to stop, then drains it."""

    def __init__(self, pipe: Path, parser: TraceParser) -> None:
        super().__init__(name="advisor-blocktrace", daemon=True)
        self.fd = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
        self.parser = parser
        self.stopping = threading.Event()
        self.failure: BaseException | None = None

    def run(self) -> None:
        tail = b""
        try:
            while True:
                ready, _, _ = select.select([self.fd], [], [], POLL_S)
                chunk = b""
                if ready:
                    try:
                        chunk = os.read(self.fd, CHUNK_BYTES)
                    except BlockingIOError:
                        chunk = b""
                if chunk:
                    lines = (tail + chunk).split(b"\n")
                    tail = lines.pop()
                    feed = self.parser.feed
                    for line in lines:
                        feed(line.decode("utf-8", "replace"))
                elif self.stopping.is_set():
                    break
            if tail:
                self.parser.feed(tail.decode("utf-8", "replace"))
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that stops the trace
            self.failure = exc


@contextlib.contextmanager
def tracing(devices: dict[str, tuple[int, int]]) -> Iterator[Capture]:
    """Trace the requests of *devices* (name -> (major, minor)) while the block runs.

    The yielded :class:`Capture` is complete when the block has ended. Raises
    :class:`TraceUnavailable` before the block when tracing cannot start.
    """
    root, mounted = find_tracefs()
    instance = root / "instances" / f"{INSTANCE_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    capture = Capture()
    reader: _Reader | None = None
    events = traced_events(root)
    try:
        if not all((root / "events" / "block" / event).is_dir() for event in REQUIRED_EVENTS):
            raise TraceUnavailable("this kernel has no block_rq_issue/block_rq_complete tracepoints")
        capture.stale_removed = sweep_stale(root / "instances", STALE_AFTER_S)
        try:
            instance.mkdir()
        except OSError as exc:
            raise TraceUnavailable(f"cannot make a tracefs instance in {root}: {exc.strerror}") from exc
        try:
            _configure(instance, devices, events)
            reader = _Reader(instance / "trace_pipe", capture.parser)
            reader.start()
            for event in events:
                _write(instance / "events" / "block" / event / "enable", "1")
        except OSError as exc:
            raise TraceUnavailable(f"cannot set up the tracefs instance: {exc.strerror or exc}") from exc
        capture.started_s = time.monotonic()
        yield capture
    finally:
        with contextlib.suppress(OSError):
            for event in events:
                _write(instance / "events" / "block" / event / "enable", "0")
        capture.ended_s = time.monotonic()
        if reader is not None:
            reader.stopping.set()
            reader.join()
            os.close(reader.fd)
        if instance.is_dir():
            with contextlib.suppress(OSError, ValueError):
                capture.overrun, capture.dropped_events = _loss(instance)
            _remove(instance)
        if mounted:
            unmount_tracefs(root)
    if reader is not None and reader.failure is not None:
        raise reader.failure


def traced_events(root: Path) -> tuple[str, ...]:
    """The block events a trace enables under tracefs *root*: the required ones, and the
    optional ones this kernel has."""
    return REQUIRED_EVENTS + tuple(e for e in OPTIONAL_EVENTS if (root / "events" / "block" / e).is_dir())


def _configure(instance: Path, devices: dict[str, tuple[int, int]], events: tuple[str, ...]) -> None:
    _write(instance / "trace_clock", "mono")
    _write(instance / "options" / "overwrite", "0")
    cpus = os.cpu_count() or 1
    _write(instance / "buffer_size_kb", str(max(BUFFER_KB_LEAST, min(BUFFER_KB_PER_CPU, BUFFER_KB_TOTAL // cpus))))
    wanted = " || ".join(f"dev == {kernel_dev(major, minor)}" for major, minor in devices.values())
    for event in events:
        _write(instance / "events" / "block" / event / "filter", wanted)


def sweep_stale(instances: Path, older_than_s: float) -> int:
    """Remove the ``advisor-*`` instances under *instances* that killed traces left; how many.

    Only those older than *older_than_s* are tried, and the kernel refuses (EBUSY) to remove
    one whose files a process holds open, as every live trace holds its trace_pipe: so a
    live trace, in this process namespace or another container's, is never touched.
    """
    removed = 0
    now = time.time()
    for instance in sorted(instances.glob(f"{INSTANCE_PREFIX}*")):
        try:
            if now - instance.stat().st_mtime < older_than_s:
                continue
            instance.rmdir()
        except OSError:
            continue  # held by a live trace (EBUSY), or already gone
        removed += 1
    return removed


def _remove(instance: Path) -> None:
    """rmdir the instance; the kernel refuses while a reader still holds a file of it, so retry briefly."""
    for _ in range(50):
        try:
            instance.rmdir()
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                return
            time.sleep(0.05)
