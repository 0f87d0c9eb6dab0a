"""The emulator's drive-managed SMR layer: cache appends, then the cliff, then idle cleaning."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.disk.emulator.smr import SmrSpec, SmrTiming, default_spec
from advisor.disk.emulator.timing import build_mechanism
from advisor.disk.presets import get_model
from advisor.errors import BadInput

MIB = 1 << 20
SIZE = 512 * MIB
SPEC = SmrSpec(media_cache_bytes=16 * MIB, band_bytes=4 * MIB, clean_mb_s_decimal=40.0)


def _random_writes(timing: object, count: int, block: int, start_s: float = 0.0) -> tuple[list[float], float]:
    """Back-to-back random writes at QD1; (latency in s of each, time after the last)."""
    rng = np.random.default_rng(7)
    now, latencies = start_s, []
    for offset in rng.integers(0, SIZE // block, size=count) * block:
        finish = timing.service("write", int(offset), block, now)  # type: ignore[attr-defined]
        latencies.append(finish - now)
        now = finish
    return latencies, now


def test_random_writes_fall_off_a_cliff_when_the_media_cache_is_full() -> None:
    smr = SmrTiming(build_mechanism(get_model("class-7200-desktop"), size_bytes=SIZE), SPEC)
    block = 256 << 10
    latencies, _ = _random_writes(smr, 160, block)
    fits = SPEC.media_cache_bytes // block  # 64 writes fit the cache
    before, after = np.median(latencies[: fits - 4]), np.median(latencies[fits + 4:])
    assert before < 0.02, "cache appends cost about a sequential write"
    assert after >= SPEC.clean_s, "each write past the cache waits for a band clean"
    assert after / before > 5
    assert smr.cleaned_bands >= (160 - fits) // 2  # a clean frees every cached write of its band


def test_idle_time_cleans_the_cache() -> None:
    smr = SmrTiming(build_mechanism(get_model("class-7200-desktop"), size_bytes=SIZE), SPEC)
    block = 256 << 10
    _, now = _random_writes(smr, 64, block)
    assert smr.cached == SPEC.media_cache_bytes
    after_rest, _ = _random_writes(smr, 8, block, start_s=now + 64 * SPEC.clean_s)
    assert smr.cached < SPEC.media_cache_bytes
    assert max(after_rest) < SPEC.clean_s, "after a rest the cache has room again"


def test_a_cmr_drive_keeps_its_write_latency() -> None:
    cmr = build_mechanism(get_model("class-7200-desktop"), size_bytes=SIZE)
    latencies, _ = _random_writes(cmr, 160, 256 << 10)
    assert np.median(latencies[100:]) / np.median(latencies[:60]) < 1.5


def test_sequential_writes_bypass_the_cache() -> None:
    smr = SmrTiming(build_mechanism(get_model("class-7200-desktop"), size_bytes=SIZE), SPEC)
    now = 0.0
    for index in range(200):  # 50 MiB in order: more than the cache, never a clean
        now = smr.service("write", index * (256 << 10), 256 << 10, now)
    assert smr.cached <= 256 << 10 and smr.cleaned_bands == 0


def test_default_spec_and_bad_parameters() -> None:
    spec = default_spec(4 << 30)
    assert spec.band_bytes == 32 * MIB and spec.media_cache_bytes >= 4 * spec.band_bytes
    with pytest.raises(BadInput):
        SmrSpec(media_cache_bytes=MIB, band_bytes=4 * MIB)
