"""Media presets keep the vendor's figures in the vendor's unit; the models convert once.

AWS states an st1 volume's maximum as 500 MiB/s; the preset held 500 under a name the cloud
model reads as MB/s of 10^6 bytes, so a large volume's throughput came out 4.6 % low.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.disk.media.build import build_device_model, media_presets
from advisor.disk.media.cloud import CloudVolume
from advisor.model.inventory import InventoryDevice
from advisor.units import DISK_MB, MIB, TIB


def _volume(capacity_bytes: int, tmp_path: Path) -> CloudVolume:
    model = build_device_model(InventoryDevice("vol", "cloud-hdd", capacity_bytes, preset="aws-st1"), tmp_path)
    assert isinstance(model.flat, CloudVolume)
    return model.flat


def test_a_large_st1_volume_reaches_the_500_mib_s_aws_states(tmp_path: Path) -> None:
    assert media_presets()["aws-st1"].max_mib_s == 500
    volume = _volume(16 * TIB, tmp_path)  # 40 MB/s per TiB x 16 TiB = 640: capped by the volume maximum
    assert volume.baseline_mb_s_decimal == pytest.approx(500 * MIB / DISK_MB) == pytest.approx(524.288)


def test_a_small_st1_volume_keeps_its_per_tib_baseline(tmp_path: Path) -> None:
    # 40 MB/s per TiB as the preset states
    assert _volume(2 * TIB, tmp_path).baseline_mb_s_decimal == pytest.approx(80.0)
