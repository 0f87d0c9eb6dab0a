"""Measure what the emulator's own path costs, so the disk model's time is all a reader sees.

A request travels application → kernel → loop driver → FUSE → the Python server (inbound)
and its reply travels back (outbound); no disk would spend that time. With the model
paused (``passthrough``; each read is only held 0.5 ms, so that the reader and the kernel
threads go idle and pay their wake-up as they do behind a real disk) the supervising
process reads the loop device with O_DIRECT and the server records when each read
arrived and when its reply left. Both use
CLOCK_MONOTONIC, which is one clock for every process, so for each read

    inbound  = arrival at the server − submission by the reader
    outbound = completion seen by the reader − reply by the server

Two block sizes give a fixed and a per-byte part of each (the reply of a read carries
its data). The actuator then back-dates arrivals by the inbound time and sends replies
early by the outbound time. Writes are not calibrated (that would write the user's
backing file): their inbound per-byte cost is taken equal to the outbound cost of reads.
Medians keep a busy machine's outliers out; what is left is reported as the residual by
``benchmarks/emulator_bench.py``.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.disk.emulator.actuator import arrival_taken_s, reply_taken_s
from advisor.units import KIB

SMALL = 4096
LARGE = 256 * KIB
READS_PER_SIZE = 120
HOLD_S = 0.0005  # each calibration read is held like a disk would: idle threads wake up slower


@dataclass(frozen=True)
class PathOverhead:
    """Real seconds the emulator's path adds: ``base + per_byte·bytes``, each direction."""

    inbound: tuple[float, float]
    outbound: tuple[float, float]

    def round_trip_s(self, nbytes: int = SMALL) -> float:
        """Both directions for a read of *nbytes*."""
        return self.inbound[0] + self.outbound[0] + self.outbound[1] * nbytes

    def taken_s(self, op: str, length_bytes: int) -> tuple[float, float]:
        """Seconds the actuator takes off one request: (its arrival back-dated, its reply sent early)."""
        return arrival_taken_s(self.inbound, op, length_bytes), reply_taken_s(self.outbound, op, length_bytes)


def control(mountpoint: Path, **command: Any) -> None:
    """Send one command to the server's ``control`` file."""
    fd = os.open(mountpoint / "control", os.O_WRONLY)
    try:
        os.write(fd, json.dumps(command).encode())
    finally:
        os.close(fd)


def _stats(mountpoint: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((mountpoint / "stats.json").read_bytes())
    return data


@contextlib.contextmanager
def realtime_thread() -> Iterator[bool]:
    """Run the calling thread at the lowest real-time priority, if allowed; yields whether it is.

    Calibration measures the emulator's own path, not the host's CPU queue: on a busy
    machine a normal thread waits milliseconds for a CPU, which is not the disk's doing.
    Measurements of the emulated disk should read with the same priority.
    """
    try:
        previous = os.sched_getscheduler(0), os.sched_getparam(0)
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except (OSError, AttributeError):
        yield False
        return
    try:
        yield True
    finally:
        os.sched_setscheduler(0, previous[0], previous[1])


def _read_timed(device: str, size: int, count: int, first_offset: int) -> dict[int, tuple[float, float]]:
    """Submit/complete monotonic times of *count* O_DIRECT reads at distinct offsets."""
    buffer = mmap.mmap(-1, size)
    times: dict[int, tuple[float, float]] = {}
    fd = os.open(device, os.O_RDONLY | os.O_DIRECT)
    try:
        for i in range(count):
            offset = first_offset + i * size
            start = time.monotonic()
            os.preadv(fd, [buffer], offset)
            times[offset] = (start, time.monotonic())
    finally:
        os.close(fd)
        buffer.close()
    return times


def _directions(times: dict[int, tuple[float, float]], trace: list[list[float]], size: int) -> tuple[float, float]:
    inbound: list[float] = []
    outbound: list[float] = []
    for offset, length, arrived, replied in trace:
        if int(length) != size or int(offset) not in times:
            continue
        submitted, completed = times[int(offset)]
        inbound.append(max(0.0, arrived - submitted))
        outbound.append(max(0.0, completed - replied))
    if len(inbound) < 10:
        raise RuntimeError(f"calibration saw only {len(inbound)} of its {size}-byte reads")
    skip = len(inbound) // 10  # first reads warm caches
    return statistics.median(inbound[skip:]), statistics.median(outbound[skip:])


def measure_path_overhead(device: str, mountpoint: Path, size_bytes: int) -> PathOverhead:
    """Measure, then install in the server, the inbound/outbound path overhead.

    The host's pending writeback (gigabytes a load or a test wrote just before) would be timed as the
    path's, and the path is measured once and taken off every read after: so it is written back first."""
    os.sync()
    control(mountpoint, passthrough=True, hold_s=HOLD_S, trace=True, inbound=[0, 0], outbound=[0, 0])
    try:
        region = max(0, min(size_bytes - READS_PER_SIZE * LARGE, 64 << 20))
        with realtime_thread():
            small = _read_timed(device, SMALL, READS_PER_SIZE, 0)
            large = _read_timed(device, LARGE, READS_PER_SIZE // 2, region if region else 0)
        trace = _stats(mountpoint)["trace"]
    finally:
        control(mountpoint, passthrough=False, hold_s=0, trace=False)
    in_small, out_small = _directions(small, trace, SMALL)
    try:
        _, out_large = _directions(large, trace, LARGE)
        per_byte = max(0.0, (out_large - out_small) / (LARGE - SMALL))
    except RuntimeError:  # the kernel split the large reads: no per-byte term
        per_byte = 0.0
    overhead = PathOverhead(inbound=(in_small, per_byte),
                            outbound=(max(0.0, out_small - per_byte * SMALL), per_byte))
    control(mountpoint, inbound=list(overhead.inbound), outbound=list(overhead.outbound), reset_stats=True)
    return overhead
