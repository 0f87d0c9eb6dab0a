"""Write cache modes: an honest disk commits at most once per revolution, a lying one far more."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.disk.emulator.device import emulated_disk
from advisor.disk.presets import get_model
from tests.helpers.emulated import commit_rate, emulator_leaks, memory_dir, require_fuse_and_loop

pytestmark = [pytest.mark.alone, pytest.mark.root]

PRESET = "class-7200-desktop"


@pytest.mark.parametrize(("cache", "commits"), [("off", 60), ("volatile", 60), ("lying", 300)])
def test_commit_rate_against_rotation(tmp_path: Path, cache: str, commits: int) -> None:
    """Same-offset rewrite + fdatasync: ≤ RPM/60 per second unless the flush is a lie."""
    require_fuse_and_loop()
    rotation_limit = get_model(PRESET).rpm / 60.0  # one commit per revolution: 120/s at 7200 rpm
    with memory_dir(tmp_path) as directory, emulated_disk(PRESET, 256 << 20, directory / "disk.img", cache=cache,
                                                         partscan=False) as disk:
        rate = commit_rate(disk.device, commits) / disk.scale
        stats = disk.stats()
    assert stats["served"]["flush"] >= commits
    assert stats["served"]["write"] >= commits
    if cache == "lying":
        assert rate > 5 * rotation_limit, rate
    else:
        assert 0.5 * rotation_limit < rate <= rotation_limit * 1.02, rate
    assert emulator_leaks() == []


@pytest.mark.parametrize("cache", ["off", "volatile"])
def test_a_write_cache_absorbs_writes(tmp_path: Path, cache: str) -> None:
    """Random 4 KiB writes: at media speed without a cache, at bus speed into a volatile one."""
    import mmap
    import os
    import random
    import statistics
    import time

    require_fuse_and_loop()
    revolution_ms = 60000.0 / get_model(PRESET).rpm
    rng = random.Random(2)
    # real time: a cached write is 0.2 ms of model time, which at scale 10 would be shorter
    # than the emulator's own round trip
    with memory_dir(tmp_path) as directory, emulated_disk(PRESET, 256 << 20, directory / "disk.img", cache=cache,
                                                         scale=1.0, partscan=False) as disk:
        buffer = mmap.mmap(-1, 4096)
        fd = os.open(disk.device, os.O_WRONLY | os.O_DIRECT)
        latencies = []
        try:
            for _ in range(60):
                offset = rng.randrange(0, (256 << 20) // 4096) * 4096
                started = time.perf_counter()
                os.pwritev(fd, [buffer], offset)
                latencies.append((time.perf_counter() - started) * 1000 * disk.scale)
        finally:
            os.close(fd)
    median_ms = statistics.median(latencies)
    if cache == "off":
        assert median_ms > revolution_ms / 2, median_ms  # seek + rotation + settle
    else:
        assert median_ms < revolution_ms / 4, median_ms  # command overhead + bus transfer
