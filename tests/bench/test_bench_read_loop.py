"""The thread reader's loop: the ramp's reads are not counted, the window is the measured
reads' own, and a stop is seen within the check interval even though it is not looked at
on every read."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from advisor.bench.engines import Job, Region
from advisor.bench.engines.builtin import _CHECK_NS, BuiltinEngine
from advisor.bench.target import Target, create_scratch, release


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    scratch = create_scratch(str(tmp_path_factory.mktemp("loop") / "scratch.dat"), 64 << 20, reuse=False)
    try:
        yield scratch
    finally:
        release(scratch)


def test_the_ramp_is_read_but_not_counted(target: Target) -> None:
    """At QD1 the reads' latencies add up to at most the window they were counted in: were
    the 0.4 s of ramp reads kept, they would add up to about 1.6 times the 0.6 s window."""
    job = Job("ramped", "randread", (Region(0, 64 << 20),), 8192, 0.6, depth=1, ramp_s=0.4)
    started = time.monotonic()
    result = BuiltinEngine().run(target.path, [job], threading.Event())[0]
    elapsed = time.monotonic() - started
    assert result.complete and result.ios > 100
    assert elapsed >= 0.95  # ramp and runtime were both run
    assert 0.55 <= result.seconds <= 0.75, result.seconds
    busy_s = result.latency.mean_ms * result.ios / 1000
    assert 0.3 * result.seconds <= busy_s <= 1.01 * result.seconds, (busy_s, result.seconds)
    assert result.iops == pytest.approx(result.ios / result.seconds)


@pytest.mark.parametrize("ramp_s", [0.0, 2.0])
def test_a_stop_ends_the_readers_within_the_check_interval(target: Target, ramp_s: float) -> None:
    """Set 0.3 s into a 10 s job (in its ramp, or measuring): every reader is back within a
    few check intervals, and a job stopped in its ramp reports no reads at all."""
    job = Job("stopped", "randread", (Region(0, 32 << 20), Region(32 << 20, 32 << 20)), 8192, 10.0,
              depth=1, ramp_s=ramp_s)
    stop = threading.Event()
    timer = threading.Timer(0.3, stop.set)
    started = time.monotonic()
    timer.start()
    try:
        result = BuiltinEngine().run(target.path, [job], stop)[0]
    finally:
        timer.cancel()
    elapsed = time.monotonic() - started
    assert not result.complete
    assert elapsed < 0.3 + 0.25 + 10 * _CHECK_NS / 1e9, elapsed
    if ramp_s:
        assert result.ios == 0
    else:
        assert result.ios > 100 and 0.2 <= result.seconds <= 0.5, result.seconds


def test_a_sequential_pass_counts_every_read_once(target: Target) -> None:
    job = Job("seq", "read", (Region(0, 16 << 20),), 1 << 20, 10.0)
    result = BuiltinEngine().run(target.path, [job], threading.Event())[0]
    assert result.ios == 16 and result.complete
