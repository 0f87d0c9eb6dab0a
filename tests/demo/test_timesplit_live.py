"""The time split and the verdict on real traces of the emulated disk, with host time added on purpose.

A reader does O_DIRECT reads on a real emulated 7200 rpm disk, one at a time, and spins
the CPU for a set time before each read (the host's part: what PostgreSQL's CPU and the
client round trips are in the demo). The "before" run alternates reads between the outer
and the inner edge (full-stroke seeks), the "after" run reads inside one narrow band, so
the modelled disk's time per read falls by about half. With the same host time in both
runs the comparison is valid; with much more host time in the after run (a machine that
got busy) the measured time per read barely moves or grows, and the verdict must say the
comparison is not valid, however the disk's part fell.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.demo.summary import Measurement, gains_between
from advisor.demo.timesplit import TimeSplit, compare_with_retry, judge, split_run
from advisor.disk.emulator.calibrate import realtime_thread
from advisor.disk.emulator.device import EmulatedDisk, emulated_disk
from advisor.disk.emulator.iotrace import recording
from tests.helpers.emulated import memory_dir, require_fuse_and_loop

pytestmark = [pytest.mark.alone, pytest.mark.root, pytest.mark.slow]

SIZE = 256 << 20
BLOCK = 8192
SCALE = 5.0
READS = 150
QUIET_HOST_S = 0.0005
BUSY_HOST_S = 0.006


@pytest.fixture(scope="module")
def disk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatedDisk]:
    require_fuse_and_loop()
    with memory_dir(tmp_path_factory.mktemp("emu")) as directory:
        with emulated_disk("class-7200-desktop", SIZE, directory / "disk.img", scale=SCALE, cache="off",
                           partscan=False) as emulated:
            yield emulated


def _offsets(layout: str, seed: int) -> list[int]:
    rng = random.Random(seed)
    blocks = SIZE // BLOCK
    if layout == "far":  # outer edge, inner edge, outer edge ...
        return [(rng.randrange(0, blocks // 20) if i % 2 else rng.randrange(blocks - blocks // 20, blocks)) * BLOCK
                for i in range(READS)]
    return [rng.randrange(0, blocks // 20) * BLOCK for _ in range(READS)]  # all in the outer 5 %


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _run(disk: EmulatedDisk, layout: str, host_s: float, seed: int) -> tuple[Measurement, TimeSplit]:
    """One traced run: (host work, one read) × READS; the reader's own clock makes the Measurement."""
    import mmap

    buffer = mmap.mmap(-1, BLOCK)
    fd = os.open(disk.device, os.O_RDONLY | os.O_DIRECT)
    read_s: list[float] = []
    try:
        with realtime_thread(), recording(disk.mountpoint) as traced:
            start = time.monotonic()
            for offset in _offsets(layout, seed):
                _spin(host_s)
                before = time.monotonic()
                os.preadv(fd, [buffer], offset)
                read_s.append(time.monotonic() - before)
            elapsed = time.monotonic() - start
    finally:
        os.close(fd)
        buffer.close()
    read_ms = 1000.0 * sum(read_s) / len(read_s)
    measurement = Measurement(tps=READS / elapsed, latency_ms=1000.0 * elapsed / READS, read_latency_ms=read_ms,
                              commit_latency_ms=None, transactions=READS, seconds=elapsed,
                              statements={"SELECT one 8 KiB read": read_ms})
    return measurement, split_run(traced[0], measurement)


def _consistent(split: TimeSplit) -> None:
    assert split.requests["read"] == READS and split.dropped == 0, split
    assert split.disk_s > 0 and split.host_s > 0, split
    assert abs(split.disk_s + split.host_s - split.measured_s) <= 0.05 * split.measured_s, split


def test_same_host_time_gives_a_valid_comparison(disk: EmulatedDisk) -> None:
    before, after = _run(disk, "far", QUIET_HOST_S, 1), _run(disk, "near", QUIET_HOST_S, 2)
    for _, split in (before, after):
        _consistent(split)
    assert after[1].read_disk_ms is not None and before[1].read_disk_ms is not None
    assert after[1].read_disk_ms < 0.8 * before[1].read_disk_ms  # the disk's part fell
    verdict = judge(before[1], after[1], gains_between(before[0], after[0]))
    assert verdict.valid, verdict


def test_more_host_time_after_makes_the_comparison_not_valid(disk: EmulatedDisk) -> None:
    before, after = _run(disk, "far", QUIET_HOST_S, 3), _run(disk, "near", BUSY_HOST_S, 4)
    for _, split in (before, after):
        _consistent(split)
    assert before[1].host_share is not None and after[1].host_share is not None
    assert after[1].host_share > before[1].host_share + 0.3, (before[1], after[1])
    assert after[1].read_disk_ms is not None and before[1].read_disk_ms is not None
    assert after[1].read_disk_ms < 0.8 * before[1].read_disk_ms  # the disk still did better ...
    verdict = judge(before[1], after[1], gains_between(before[0], after[0]))
    assert not verdict.valid  # ... but the runs measured the host
    assert "the host's" in verdict.reason and "per transaction" in verdict.reason, verdict.reason
    assert verdict.checks and not verdict.checks[0].passed


def test_a_retry_replaces_a_disturbed_after_run_and_only_once(disk: EmulatedDisk) -> None:
    before = _run(disk, "far", QUIET_HOST_S, 5)
    said: list[str] = []
    runs = iter([(BUSY_HOST_S, 6), (QUIET_HOST_S, 7)])
    recovered = compare_with_retry(before, lambda: _run(disk, "near", *next(runs)), said.append)
    assert recovered.verdict.valid and recovered.attempts == 2, recovered.verdict
    assert len(recovered.rejected) == 1 and "the host's" in recovered.rejected[0]["reason"]
    assert any("once more" in line for line in said)

    runs = iter([(BUSY_HOST_S, 8), (BUSY_HOST_S, 9), (QUIET_HOST_S, 10)])
    stuck = compare_with_retry(before, lambda: _run(disk, "near", *next(runs)), said.append)
    assert not stuck.verdict.valid and stuck.attempts == 2
    assert next(runs) == (QUIET_HOST_S, 10)  # no third run
    assert stuck.verdict_dict()["valid"] is False and stuck.verdict_dict()["attempts"] == 2


def test_trace_records_every_request_with_its_model_time(disk: EmulatedDisk, tmp_path: Path) -> None:
    measurement, split = _run(disk, "far", 0.0, 11)
    stats = disk.stats()
    assert stats["io_trace_on"] is False and len(stats["io_trace"]) == READS
    op, offset, length, arrived, replied, model_s = stats["io_trace"][0]
    assert op == "read" and length == BLOCK and replied > arrived
    # far reads at 5x: a full-stroke seek and half a turn of a 7200 rpm drive, scaled, in real seconds
    assert 0.001 < model_s < 0.006, model_s
    assert split.read_disk_ms is not None and split.read_ms is not None
    assert split.read_disk_ms <= split.read_ms * 1.05, split  # the reader waited at least the disk's time
