"""``advisor bench`` end to end on real loop devices: a raw device, and a scratch file on ext4."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from advisor.model.disk import DISK_PROFILE_FORMAT_VERSION, DiskProfile
from advisor.model.jsonio import read_document
from tests.bench.cli_support import require_root
from tests.helpers.cli import run_advisor
from tests.helpers.loopdisk import no_leaks, scratch_disk

pytestmark = [pytest.mark.root, pytest.mark.slow]


@pytest.mark.parametrize("engine", ["builtin", "fio"])
def test_bench_a_raw_loop_device(tmp_path: Path, engine: str) -> None:
    """Every read test runs, the commit test is skipped with a note, the device is untouched."""
    require_root()
    output, plot = tmp_path / "disk.json", tmp_path / "zones.svg"
    with scratch_disk(96 << 20, None, fs=None, image_dir=tmp_path / "img", direct_io=True) as disk:
        with open(disk.device, "rb") as device:
            before = device.read(1 << 20)
        result = run_advisor("bench", disk.device, "--engine", engine, "--budget-per-test", "1.5", "--zones", "6",
                         "-o", str(output), "--plot", str(plot))
        with open(disk.device, "rb") as device:
            after = device.read(1 << 20)
    assert no_leaks(tmp_path / "img")
    assert result.returncode == 0, result.stderr
    assert before == after
    profile = read_document(output, "disk-profile", DiskProfile, DISK_PROFILE_FORMAT_VERSION)
    assert profile.engine == engine and profile.complete and profile.target == disk.device
    assert profile.device == disk.device and profile.machine["device"] == disk.name
    assert profile.size_bytes == 96 << 20
    fractions = [p.fraction for p in profile.zones]
    assert len(fractions) == 6 and fractions == sorted(fractions) and 0 < fractions[0] < 0.2 < 0.8 < fractions[-1] < 1
    assert all(p.bytes_per_s > 0 for p in profile.zones)
    assert set(profile.band_iops) == {"outer", "middle", "inner"} and min(profile.band_iops.values()) > 0
    assert profile.full_stroke_iops and profile.cross_surface_iops
    assert sorted(profile.qd_iops) == [1, 4, 16, 32]
    assert profile.commit_per_s is None and any("commit test skipped" in w for w in profile.warnings)
    lat = profile.full_stroke_latency
    assert lat is not None and 0 < lat.p50_ms <= lat.p99_ms <= (lat.max_ms or 0)
    assert "zones" in profile.runs and len(profile.runs["band.outer"]) >= 1
    assert plot.read_text().count("<circle") == 6
    assert "band 1 % outer" in result.stdout and "classification:" in result.stdout


def test_bench_a_scratch_file_on_ext4_with_commit(tmp_path: Path) -> None:
    """The scratch file is created with real blocks, the commit test runs on it, it is removed."""
    require_root()
    with scratch_disk(160 << 20, [("data", 0.95)], image_dir=tmp_path / "img") as disk:
        mountpoint = disk.partitions[0].mountpoint
        assert mountpoint is not None
        scratch = mountpoint / "bench.tmp"
        result = run_advisor("bench", "--scratch-file", str(scratch), "--size", "64M", "--engine", "builtin",
                         "--tests", "band,commit", "--budget-per-test", "1.5", "--rpm", "7200", "--format", "json")
        left_behind = scratch.exists()
    assert no_leaks(tmp_path / "img")
    assert result.returncode == 0, result.stderr
    assert not left_behind
    data = json.loads(result.stdout)
    assert data["document"] == "disk-profile" and data["size_bytes"] == 64 << 20
    assert data["commit_per_s"] > 0 and data["commit_latency"]["mean_ms"] > 0
    assert data["rpm"] == 7200
    # A loop device over a page-cached image acknowledges flushes far faster than 120/s.
    assert data["commit_per_s"] > 1.2 * 120
    assert any("RPM/60" in warning for warning in data["warnings"])
    assert data["zones"] == [] and data["full_stroke_iops"] is None


def test_reuse_scratch_keeps_a_file_it_did_not_create(tmp_path: Path) -> None:
    scratch = tmp_path / "mine.dat"
    scratch.write_bytes(os.urandom(1 << 20) * 20)
    result = run_advisor("bench", "--scratch-file", str(scratch), "--reuse-scratch", "--size", "32M",
                     "--engine", "builtin", "--tests", "stroke,commit", "--budget-per-test", "1", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert scratch.exists() and scratch.stat().st_size == 32 << 20
    assert json.loads(result.stdout)["commit_per_s"] > 0
