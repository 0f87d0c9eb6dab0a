"""Shared checks for tests that run the emulated HDD: prerequisites, O_DIRECT readers, leak detection.

Used by the emulator, bench, demo and PostgreSQL-on-emulated-disk tests, and by benchmarks/emulator_bench.py.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path

import pytest

from advisor.disk.emulator import system as sysx
from advisor.disk.emulator.calibrate import realtime_thread
from advisor.disk.emulator.device import EmulatedDisk
from tests.helpers.threads import run_at_once


def require_fuse_and_loop() -> None:
    """Skip (with the reason) when this machine cannot host an emulated disk at all."""
    if os.geteuid() != 0:
        pytest.skip("the emulated disk needs root (FUSE mount, loop devices)")
    if not os.path.exists("/dev/fuse"):
        pytest.skip("/dev/fuse is missing: the kernel has no FUSE")
    for tool in ("fusermount3", "losetup"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (scripts/install-system-deps.sh installs it)")


def read_latencies(device: str, offsets: Sequence[int], size: int = 4096) -> list[float]:
    """Seconds each O_DIRECT read of *size* bytes at *offsets* took, one at a time (QD1).

    The reading thread runs at real-time priority when allowed, as the emulator's own
    calibration does, so the host's CPU queue (other tests, a busy machine) is not
    mistaken for the disk's service time.
    """
    return [done - start for start, done in timed_reads(device, offsets, size)]


def read_cycles(device: str, offsets: Sequence[int], size: int) -> list[float]:
    """Completion-to-completion seconds of QD1 reads: service time plus the reader's turnaround.

    This is what sequential throughput is made of: while the reader turns around, the
    drive keeps reading ahead, so a read's own latency alone would flatter the rate.
    """
    times = timed_reads(device, offsets, size)
    return [times[i][1] - times[i - 1][1] for i in range(1, len(times))]


def timed_reads(device: str, offsets: Sequence[int], size: int) -> list[tuple[float, float]]:
    """(submitted, completed) perf_counter times of one O_DIRECT read after another."""
    buffer = mmap.mmap(-1, max(size, 4096))
    view = memoryview(buffer)[:size]
    fd = os.open(device, os.O_RDONLY | os.O_DIRECT)
    out: list[tuple[float, float]] = []
    try:
        with realtime_thread():
            for offset in offsets:
                start = time.perf_counter()
                got = os.preadv(fd, [view], offset)
                out.append((start, time.perf_counter()))
                assert got == size, f"short read at {offset}: {got} of {size} bytes"
    finally:
        os.close(fd)
        view.release()
        buffer.close()
    return out


def parallel_read_latencies(device: str, streams: Sequence[Sequence[int]], size: int = 4096) -> list[list[float]]:
    """Run one QD1 reader thread per stream at once; their latencies, per stream."""
    return run_at_once([partial(read_latencies, device, stream, size) for stream in streams])


def emulator_leaks() -> list[str]:
    """Loop devices on an emulator image, emulator mounts, server processes, private dirs."""
    problems: list[str] = []
    ours = str(sysx.RUN_DIR / f"emu-{os.getpid()}-")
    for loop in Path("/sys/block").glob("loop*/loop/backing_file"):
        try:
            target = loop.read_text().strip()
        except OSError:
            continue
        if target.startswith(ours):
            problems.append(f"loop {loop.parent.parent.name} -> {target}")
    for source, mountpoint, _fstype in sysx.mount_table():
        if mountpoint.startswith(ours):
            problems.append(f"mount {source} on {mountpoint}")
    for proc in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            cmdline = proc.read_bytes()
        except OSError:
            continue
        if b"advisor.disk.emulator.server" in cmdline and f"emu-{os.getpid()}-".encode() in cmdline:
            problems.append(f"server process {proc.parent.name}")
    if sysx.RUN_DIR.is_dir():
        problems += [f"private dir {p}" for p in sysx.RUN_DIR.glob(f"emu-{os.getpid()}-*")]
    return problems


def write_gpt(device: str, partitions: Sequence[tuple[str, int, int]], timeout_s: float = 10.0) -> list[str]:
    """Write a GPT of (name, start MiB, size MiB) and wait for the partition nodes."""
    import subprocess

    lines = ["label: gpt"] + [f"start={start * 2048}, size={size * 2048}, name={name}"
                              for name, start, size in partitions]
    subprocess.run(["sfdisk", "-q", device], input="\n".join(lines) + "\n", text=True, check=True,
                   capture_output=True)
    nodes = [f"{device}p{k}" for k in range(1, len(partitions) + 1)]
    deadline = time.monotonic() + timeout_s
    while not all(os.path.exists(node) for node in nodes):
        if time.monotonic() > deadline:
            raise AssertionError(f"partition nodes did not appear: {nodes}")
        subprocess.run(["partx", "-u", device], capture_output=True, check=False)
        time.sleep(0.1)
    return nodes


def commit_rate(device: str, count: int, offset: int = 1 << 20) -> float:
    """Same-offset 4 KiB O_DIRECT rewrite + fdatasync on the raw device, commits per second."""
    buffer = mmap.mmap(-1, 4096)
    fd = os.open(device, os.O_RDWR | os.O_DIRECT)
    try:
        with realtime_thread():
            os.pwritev(fd, [buffer], offset)
            os.fdatasync(fd)
            start = time.perf_counter()
            for i in range(count):
                buffer[:8] = i.to_bytes(8, "little")
                os.pwritev(fd, [buffer], offset)
                os.fdatasync(fd)
            elapsed = time.perf_counter() - start
    finally:
        os.close(fd)
        buffer.close()
    return count / elapsed


@contextlib.contextmanager
def memory_dir(fallback: Path) -> Iterator[Path]:
    """A directory for backing files in memory (tmpfs) when there is one.

    The emulator reads the backing file inside each request's model time; on a host disk
    busy with other work a read can stall for milliseconds, which would be charged to the
    emulated drive. A sparse file in /dev/shm costs only what is written to it.
    """
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and os.statvfs(shm).f_bavail * os.statvfs(shm).f_frsize > 2 << 30:
        path = Path(tempfile.mkdtemp(prefix="emu-test-", dir=shm))
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)
    else:
        yield fallback


@contextlib.contextmanager
def ext4_on_emulated_disk(tmp_path: Path, preset: str, scale: float) -> Iterator[tuple[EmulatedDisk, Path]]:
    """A 1 GiB emulated *preset* disk with one GPT partition, ext4 on it, mounted; yields (disk, mountpoint)."""
    import subprocess

    from advisor.disk.emulator.device import emulated_disk

    mnt = tmp_path / "pgdisk"
    mnt.mkdir()
    with memory_dir(tmp_path) as directory, emulated_disk(preset, 1 << 30, directory / "disk.img", scale=scale,
                                                         cache="volatile") as disk:
        (node,) = write_gpt(disk.device, [("pgdata", 1, 900)])
        subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", node],
                       check=True, capture_output=True)
        subprocess.run(["mount", node, str(mnt)], check=True, capture_output=True)
        try:
            yield disk, mnt
        finally:
            subprocess.run(["umount", str(mnt)], check=True)
