"""Locate many files on two cores: the second half of the paths in a forked child.

Locating a file is four system calls (open, fstat, FIEMAP, close) and a little Python:
about 14 µs, so a 100,000-relation cluster takes 1.4 s on one core. The calls of different
files do not contend in the kernel, and threads cannot share the Python part, so a forked
child locates half of the paths with a copy of the locator (mounts, sysfs, device-mapper
tables already read) and sends back plain tuples, which this process turns back into
Location rows. If the child cannot be forked, fails or sends something unreadable, its half
is located here: the result never depends on it, only the time.

The child runs nothing but the locator and leaves through ``os._exit``, so no cleanup of
this process (open connections, output buffers, atexit handlers) runs twice.

Worth it only for large batches, hence ``PARALLEL_MIN``: ``benchmarks/collect_bench.py
--locate`` (files of 4 KB, alone vs forked, median of 3) measured 0.84x at 1,000 files (the
fork costs more than it saves), 1.12x at 10,000 and 1.07x at 100,000 on a 2-core machine
whose load average was 12 (the second core mostly busy elsewhere); on the same machine idle,
100,000 files took 0.75 s instead of 1.0 s (1.33x, docs/where.md). A 100,000-relation
cluster is where a snapshot's time is spent, so the fork stays, from 20,000 paths up.
"""

from __future__ import annotations

import os
import pickle
import signal
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from advisor.model import Extent, Location

if TYPE_CHECKING:
    from advisor.storage.locate import Locator

PARALLEL_MIN = 20_000
"""Fewer paths than this are located in this process alone (forking costs ~20 ms)."""

_FIELDS = tuple(name for name in Location.__dataclass_fields__ if name != "extent_list")
assert len(_FIELDS) == 10, "_from_row unpacks Location's fields by position"
_VALUES = attrgetter(*_FIELDS)


def _as_row(location: Location) -> tuple[Any, ...]:
    extents = tuple((e.file_offset_bytes, e.disk_offset_bytes, e.length_bytes) for e in location.extent_list)
    return (*_VALUES(location), extents)


def _from_row(row: tuple[Any, ...]) -> Location:
    path, disk, partition, zone_start, zone_end, count, size, zone_mean, known, reason, extents = row
    return Location(path, disk, partition, zone_start, zone_end, count, size, zone_mean, known, reason,
                    tuple(Extent(*e) for e in extents) if extents else ())


def locate_split(locator: Locator, paths: list[str]) -> list[Location]:
    """``[locator.locate(p) for p in paths]``, on two cores when there are many paths."""
    if len(paths) < PARALLEL_MIN or (os.cpu_count() or 1) < 2 or not hasattr(os, "fork"):
        return [locator.locate(p) for p in paths]
    half = len(paths) // 2
    mine, theirs = paths[:half], paths[half:]
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return [locator.locate(p) for p in paths]
    if pid == 0:  # the child: locate, send, leave
        status = 1
        try:
            os.close(read_fd)
            failed_before = len(locator.failed_paths)
            rows = [_as_row(locator.locate(p)) for p in theirs]
            payload = pickle.dumps(
                (rows, locator.devices, locator.partitions, locator.failed_paths[failed_before:]),
                protocol=pickle.HIGHEST_PROTOCOL,
            )
            with os.fdopen(write_fd, "wb") as out:
                out.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    try:
        found = [locator.locate(p) for p in mine]
    except BaseException:  # Ctrl-C or a bug here: stop and reap the child before leaving
        os.close(read_fd)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    return found + _collect_child(locator, pid, read_fd, theirs)


def _collect_child(locator: Locator, pid: int, read_fd: int, theirs: list[str]) -> list[Location]:
    """The child's half, or that half located here if the child did not deliver it."""
    try:
        with os.fdopen(read_fd, "rb") as source:
            payload = source.read()
    finally:
        _, status = os.waitpid(pid, 0)
    try:
        if status != 0:
            raise ValueError(f"child status {status}")
        rows, devices, partitions, failed = pickle.loads(payload)
        located = [_from_row(row) for row in rows]
        if len(located) != len(theirs):
            raise ValueError("child returned a different number of locations")
    except (ValueError, pickle.UnpicklingError, EOFError, TypeError):
        return [locator.locate(p) for p in theirs]
    for name, device in devices.items():
        locator.devices.setdefault(name, device)
    for name, partition in partitions.items():
        if name not in locator.partitions or partition.mountpoints:
            locator.partitions[name] = partition
    locator.failed_paths.extend(failed)
    return located
