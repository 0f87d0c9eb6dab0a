"""Disk profile format 2 holds zone rates in bytes per second; version 1 files (MB/s of 10^6 bytes
under ``mb_s``) are still read, by every reader: files, inventories and the fleet repository."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.errors import BadInput
from advisor.model import DiskProfile, Latency, ZonePoint, load_disk_profile, save
from advisor.model.disk import DISK_PROFILE_FORMAT_VERSION, decode_disk_profile
from advisor.model.jsonio import to_jsonable
from advisor.repo.documents import load_bytes


def _profile() -> DiskProfile:
    return DiskProfile("/dev/sdb", "sdb", 4 * 10**12, "2026-11-25T09:00:00+00:00", "builtin", 8192,
                       zones=(ZonePoint(0.0, 212.5e6), ZonePoint(0.5, 170.25e6), ZonePoint(1.0, 98.0e6)),
                       band_iops={"outer": 171.0}, qd_iops={1: 80.0}, qd_latency={1: Latency(12.0, 11.0, 30.0)},
                       runs={"zones": [160.5e6, 161.0e6], "qd.1": [79.0, 80.0, 81.0]}, rpm=7200,
                       classification="rotational")


def _as_version_1(profile: DiskProfile) -> dict[str, Any]:
    """The profile as release 1 wrote it: the same measurement, zone rates in MB/s under ``mb_s``."""
    data = to_jsonable(profile)
    data["zones"] = [{"fraction": z["fraction"], "mb_s": z["bytes_per_s"] / 1e6} for z in data["zones"]]
    data["runs"]["zones"] = [v / 1e6 for v in data["runs"]["zones"]]
    data["format_version"] = 1
    return data


def test_the_format_is_version_2_with_bytes_per_second(tmp_path: Path) -> None:
    path = tmp_path / "disk.json"
    save(_profile(), path)
    data = json.loads(path.read_text())
    assert DISK_PROFILE_FORMAT_VERSION == data["format_version"] == 2
    assert data["zones"][0] == {"fraction": 0.0, "bytes_per_s": 212.5e6}
    assert load_disk_profile(path) == _profile()


def test_a_version_1_profile_is_read_as_the_same_measurement(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_as_version_1(_profile()), indent=2))
    loaded = load_disk_profile(path)
    assert loaded == _profile()  # 212.5 MB/s -> 212,500,000 bytes/s; runs["zones"] too; IOPS untouched
    assert [z.bytes_per_s for z in loaded.zones] == [212.5e6, 170.25e6, 98.0e6]


def test_the_repository_reads_a_version_1_profile_too(tmp_path: Path) -> None:
    raw = json.dumps(_as_version_1(_profile())).encode()
    assert load_bytes(raw, "old.json").document == _profile()
    assert decode_disk_profile(raw, "old.json") == _profile()


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["zones"][1].update(mb_s="fast"), r"old.json: .*\$\.zones\[1\]"),
    (lambda d: d["zones"][0].update(mb_s=-5.0), r"zones\[0\]\.bytes_per_s is -5000000\.0; a rate cannot be negative"),
    (lambda d: d.update(zones=7), r"Expected `array`, got `int` - at `\$\.zones`"),
])
def test_a_damaged_version_1_profile_is_refused_naming_the_field(tmp_path: Path, edit: Any, message: str) -> None:
    data = _as_version_1(_profile())
    edit(data)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BadInput, match=message):
        load_disk_profile(path)


def test_a_version_2_file_with_the_old_field_is_refused(tmp_path: Path) -> None:
    """``mb_s`` is converted only in files that say they are version 1: a current file holding it is not ours."""
    data = _as_version_1(_profile())
    data["format_version"] = 2
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BadInput, match=r"unknown field `mb_s`"):
        load_disk_profile(path)
