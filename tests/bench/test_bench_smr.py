"""The SMR test against the emulated disk: drive-managed SMR is found, a CMR drive is not.

The emulated disk runs the same 5400 rpm NAS preset with and without the SMR media cache
(8 MiB, 4 MiB bands, cleaning at 20 MB/s) at twice real speed; ext4 on it holds the
scratch file the test writes (the bench never writes a device). Also the pure detection
rule on recorded latency series, which needs no root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from advisor.bench.engines.builtin import BuiltinEngine
from advisor.bench.runner import BenchRun
from advisor.bench.smr import CLIFF_MIN_MS, find_cliff
from advisor.bench.suite import BenchOptions, parse_tests
from advisor.bench.target import create_scratch, release
from advisor.model.disk import DiskProfile
from tests.helpers.emulated import memory_dir

PRESET = "class-5400-nas"
SIZE = 512 << 20
SCRATCH = 256 << 20
SCALE = 2.0


def test_find_cliff_on_recorded_series() -> None:
    cmr = [9.0, 8.0] + [8.0 + (i % 5) for i in range(80)]  # seek + rotation: flat
    assert find_cliff(cmr) is None
    smr = [9.0, 8.0] + [2.0] * 40 + [120.0, 2.0] * 3 + [130.0] * 30
    cliff = find_cliff(smr)
    assert cliff is not None
    first, before, after, slow_share = cliff
    assert first == 42 and before == pytest.approx(2.0) and after == pytest.approx(130.0)
    assert slow_share == pytest.approx(33 / 36)
    flash = [0.05] * 30 + [0.6] * 40  # an SSD out of SLC cache: slower, yet far from a band clean
    assert find_cliff(flash) is None and 0.6 < CLIFF_MIN_MS


def test_a_cliff_the_idle_drive_cleans_between_writes_is_still_a_cliff() -> None:
    """The writes past the cliff of a busy host's run: every other one lands in the cache again.

    The tail is the series a CI run recorded (ms); the median of all writes after the cliff
    fell back to 6.6 ms, and the report read "6.15 → 6.6 ms (1×)" of a drive that waited
    110 ms for a band clean on 4 writes in 10.
    """
    tail = [3.312, 114.321, 111.048, 5.561, 5.037, 112.776, 5.596, 6.415, 5.741, 113.592, 4.527,
            6.608, 111.701, 113.699, 3.41]
    series = [9.0, 8.0] + [6.1 + (i % 3) * 0.1 for i in range(40)] + [112.0, 110.0, 5.5, 112.0] * 3 + tail * 3
    cliff = find_cliff(series)
    assert cliff is not None
    first, before, after, slow_share = cliff
    assert first == 42 and before == pytest.approx(6.2)
    assert after >= 5 * before, "the figure after the cliff is the slow writes' own"
    assert float(np.median(series[first:])) < 5 * before, "the whole tail's median is not"
    assert after == pytest.approx(112.0), "the median of the writes that waited for a clean"
    assert slow_share == pytest.approx((9 + 3 * 6) / (12 + 3 * 15))


def test_smr_is_opt_in() -> None:
    assert parse_tests("smr") == ("smr",)
    assert "smr" not in BenchOptions().tests


@pytest.fixture
def backing(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0 or not os.path.exists("/dev/fuse") or shutil.which("losetup") is None:
        pytest.skip("the emulated disk needs root, /dev/fuse and losetup")
    with memory_dir(tmp_path) as directory:
        yield directory


def _bench_writes(tmp_path: Path, backing: Path, smr: bool) -> DiskProfile:
    from advisor.disk.emulator.device import emulated_disk
    from advisor.disk.emulator.smr import SmrSpec

    spec = SmrSpec(media_cache_bytes=8 << 20, band_bytes=4 << 20, clean_mb_s_decimal=20.0) if smr else None
    mnt = tmp_path / f"mnt-{smr}"
    mnt.mkdir()
    options = BenchOptions(tests=("smr",), budget_per_test_s=8.0, runs=1)
    with emulated_disk(PRESET, SIZE, backing / f"{smr}.img", scale=SCALE, smr=spec) as disk:
        subprocess.run(["mkfs.ext4", "-q", "-F", disk.device], check=True, capture_output=True)
        subprocess.run(["mount", disk.device, str(mnt)], check=True, capture_output=True)
        try:
            target = create_scratch(str(mnt / "bench.tmp"), SCRATCH, reuse=False)
            try:
                return BenchRun(target, BuiltinEngine(), options).run()
            finally:
                release(target)
        finally:
            subprocess.run(["umount", str(mnt)], check=False, capture_output=True)


@pytest.mark.alone
@pytest.mark.root
@pytest.mark.slow
def test_emulated_smr_disk_is_classified_smr_dm_and_cmr_is_not(tmp_path: Path, backing: Path) -> None:
    smr = _bench_writes(tmp_path, backing, smr=True)
    cliff = smr.write_cliff
    assert cliff is not None and cliff.after_p50_ms is not None and cliff.cliff_after_bytes is not None
    assert smr.classification == "smr-dm", smr.classification_reason
    assert "fell off a cliff" in smr.classification_reason
    # the 8 MiB media cache: ext4's own writes may have used a little of it, and on a busy
    # host the gaps between writes are idle time in which the drive cleans a band or two
    assert 2 << 20 <= cliff.cliff_after_bytes <= 16 << 20, cliff
    assert cliff.after_p50_ms >= 5 * cliff.before_p50_ms
    assert cliff.slow_share is not None and cliff.slow_share >= 0.25, cliff
    cmr = _bench_writes(tmp_path, backing, smr=False)
    assert cmr.write_cliff is not None and cmr.write_cliff.after_p50_ms is None
    assert cmr.write_cliff.written_bytes > 2 * (8 << 20), "wrote well past where an SMR cache would end"
    assert cmr.classification != "smr-dm"
    assert "no write cliff" in cmr.classification_reason
