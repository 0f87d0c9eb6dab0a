"""Which physics judges which disk (advisor.engine.disk_models), and the note that says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.disk.physics import ModelPhysics
from advisor.engine.disk_models import DEFAULT_PRESET, load_models
from advisor.errors import BadInput
from advisor.model import DiskProfile, save


def _ssd_profile(tmp_path: Path) -> Path:
    path = tmp_path / "nvme.json"
    save(DiskProfile(target="/dev/nvme0n1", device="/dev/nvme0n1", size_bytes=500 * 10**9,
                     measured_at="2026-11-21T09:00:00+00:00", engine="builtin", block_size_bytes=4096,
                     band_iops={"outer": 9000.0, "inner": 9100.0}, classification="solid-state",
                     classification_reason="outer and inner bands equally fast"), path)
    return path


def test_nothing_named_is_the_default_preset_and_says_so() -> None:
    models = load_models(None, None, None)
    assert isinstance(models.default, ModelPhysics) and models.per_disk == {}
    assert models.basis == f"the {DEFAULT_PRESET} preset, the default: no --disk, --preset or --spec given"


def test_a_measured_disk_keeps_its_profile_and_the_preset_judges_the_others(tmp_path: Path) -> None:
    profile = _ssd_profile(tmp_path)
    alone = load_models([profile], None, None)
    assert alone.default is alone.per_disk["nvme0n1"]  # one profile, nothing named: it judges every disk
    assert alone.basis == "nvme0n1 measured by advisor bench (solid state, no zones)"
    both = load_models([profile], "class-10k", None)
    assert both.default is not both.per_disk["nvme0n1"] and set(both.profiles) == {"nvme0n1"}
    assert both.basis.endswith("; other disks: the class-10k preset (--preset)")


def test_preset_and_spec_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="either --preset or --spec"):
        load_models(None, "class-10k", tmp_path / "drive.toml")


def test_a_time_scale_divides_every_modelled_time_of_the_preset_and_says_so(tmp_path: Path) -> None:
    plain = load_models(None, "class-10k", None)
    fast = load_models(None, "class-10k", None, 5.0)
    assert fast.basis.endswith("every modelled time divided by 5 (--time-scale 5: the disk is "
                             "`advisor disk emulate --scale 5`)")
    band = (0.1, 0.2)
    assert fast.default.mean_service_ms(band, 8192) == pytest.approx(plain.default.mean_service_ms(band, 8192) / 5)
    assert fast.default.commit_rate_per_s() == pytest.approx(plain.default.commit_rate_per_s() * 5)
    assert fast.default.zone_curve(3)[0][1] == pytest.approx(plain.default.zone_curve(3)[0][1] * 5)
    # a measured profile already is the disk as it runs: the scale is not applied to it, and the note says so
    alone = load_models([_ssd_profile(tmp_path)], None, None, 5.0)
    assert alone.basis.endswith("(--time-scale 5 not applied: a profile measured the disk as it runs)")
    with pytest.raises(BadInput, match="--time-scale must be positive"):
        load_models(None, "class-10k", None, 0.0)


def test_a_path_to_the_drive_reaches_every_model_the_replay_uses_and_is_said(tmp_path: Path) -> None:
    models = load_models([_ssd_profile(tmp_path)], "class-10k", None, 1.0, 0.45)
    assert isinstance(models.default, ModelPhysics) and models.default.path_s == pytest.approx(0.00045)
    measured = models.per_disk["nvme0n1"]
    assert isinstance(measured, ModelPhysics) and measured.path_s == pytest.approx(0.00045)
    assert models.basis.endswith("; each request 0.45 ms between the block layer and the drive, both ways (--path-ms)")
    plain = load_models(None, "class-10k", None)
    assert isinstance(plain.default, ModelPhysics) and plain.default.path_s == 0.0 and "path" not in plain.basis
    # the aggregate model has no block layer: its figures do not move
    assert models.default.mean_service_ms((0.1, 0.2), 8192) == plain.default.mean_service_ms((0.1, 0.2), 8192)
    with pytest.raises(BadInput, match="--path-ms cannot be negative"):
        load_models(None, "class-10k", None, 1.0, -0.1)
