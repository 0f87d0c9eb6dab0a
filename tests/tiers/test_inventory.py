"""The inventory file: round trip, one-line refusals naming the field, and this host's devices."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from advisor.model import DiskProfile, Latency, save
from advisor.model.inventory import Inventory, InventoryDevice, inventory_toml, load_inventory
from advisor.storage.inventory import discover
from tests.helpers.cli import refused, run_advisor
from tests.helpers.inventories import GOOD_INVENTORY
from tests.helpers.loopdisk import scratch_disk

GOOD = GOOD_INVENTORY


def test_round_trip_and_units(tmp_path: Path) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD)
    inventory = load_inventory(path)
    assert inventory.devices[0].capacity_bytes == 960 * 10**9
    assert inventory.devices[1].count == 4 and inventory.devices[1].capacity_bytes == 16 * 10**12
    assert inventory.headroom == 0.2
    again = tmp_path / "again.toml"
    again.write_text(inventory_toml(inventory))
    assert load_inventory(again) == inventory


@pytest.mark.parametrize(("change", "message"), [
    (('medium = "nvme"', 'medium = "tape"'), "medium 'tape' is not one of"),
    (('capacity = "960 GB"', 'capacity = "lots"'), "cannot read capacity 'lots'"),
    (('capacity = "960 GB"', 'capacity = -5'), "capacity must be more than 0"),
    (('count = 4', 'count = 0'), "count 0 must be a whole number"),
    (('preset = "nvme-gen4"', 'preset = "nvme-gen4"\nprofile = "x.json"'), "give one of profile, preset or spec"),
    (('name = "hdd"', 'name = "nvme0"'), "device name 'nvme0' appears twice"),
    (('headroom = 0.2', 'headroom = -1'), "headroom -1 must be a number"),
    (('host = "db-new"', 'host = "db-new"\nspeed = 3'), "unknown key 'speed'"),
    (('host = "db-new"', 'document = "snapshot"'), "not an inventory"),
    (('host = "db-new"', 'format_version = 9'), "format_version 9 is not one this advisor reads"),
    (('[[device]]\nname = "nvme0"', '[[device]]\nname = "nvme0"\nspeed = 1'), "unknown key 'speed'"),
    (('capacity = "960 GB"', ''), "capacity is missing"),
    (('host = "db-new"', 'host = ['), "not valid TOML"),
])
def test_bad_inventory_is_one_line_exit_6(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace(*change, 1))
    done = run_advisor("inventory", "--check", str(path))
    assert done.returncode == 6, done.stderr
    assert done.stderr.startswith("advisor: error: ") and message in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def _workload(tmp_path: Path) -> Path:
    from advisor.model import save as save_doc
    from tests.helpers.workloads import AreaSpec, workload

    path = tmp_path / "w.json"
    save_doc(workload([AreaSpec("orders", size_gb=10, read_iops=200, zone=(0.5, 0.6)),
                       AreaSpec("wal", kind="wal", size_gb=1, write_iops=50, syncs=50, random_share=None,
                                zone=(0.9, 0.91))]), path)
    return path


def test_device_without_a_model_is_named(tmp_path: Path) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace('preset = "nvme-gen4"\n', ""))
    done = run_advisor("plan", "--workload", str(_workload(tmp_path)), "--target", str(path))
    assert done.returncode == 6
    assert "device 'nvme0' (nvme) has no model" in done.stderr and "advisor bench" in done.stderr


def test_contradictory_media_are_refused(tmp_path: Path) -> None:
    profile = DiskProfile(target="/dev/nvme0n1", device="nvme0n1", size_bytes=10**12, measured_at="2026-11-23",
                          engine="fio", block_size_bytes=4096, full_stroke_iops=15000.0,
                          full_stroke_latency=Latency(0.07, 0.06, 0.2), qd_iops={32: 400000.0},
                          classification="solid-state", classification_reason="no mechanical sign")
    save(profile, tmp_path / "nvme.json")
    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace('preset = "class-7200-desktop"', 'profile = "nvme.json"'))
    done = run_advisor("plan", "--workload", str(_workload(tmp_path)), "--target", str(path))
    assert done.returncode == 6
    assert "listed as hdd but its profile nvme.json measured solid state" in done.stderr


def test_tiered_plan_writes_a_directory_per_device(tmp_path: Path) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD)
    out = tmp_path / "scripts"
    done = run_advisor("plan", "--workload", str(_workload(tmp_path)), "--target", str(path), "--scripts", str(out),
                "--format", "json", "-o", str(tmp_path / "plan.json"))
    assert done.returncode == 0, done.stderr
    assert (out / "nvme0" / "sfdisk.txt").is_file() and (out / "postgres.sql").is_file()
    import json

    tiers = json.loads((tmp_path / "plan.json").read_text())["plan"]["tiers"]
    wal = next(a for a in tiers["assignments"] if a["area"] == "WAL")
    assert wal["device"] == "nvme0" and tiers["mean_ms"] <= tiers["baseline_mean_ms"]


def test_inventory_too_small(tmp_path: Path) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace('count = 4\n', "").replace('"16 TB"', '"1 GB"').replace('"960 GB"', '"2 GB"'))
    done = run_advisor("plan", "--workload", str(_workload(tmp_path)), "--target", str(path))
    assert done.returncode == 6 and "GB short; nothing planned" in done.stderr, done.stderr


@pytest.mark.root
@pytest.mark.skipif(os.geteuid() != 0, reason="loop devices need root")
def test_discover_finds_a_loop_device(tmp_path: Path) -> None:
    with scratch_disk(96 << 20, None, fs=None, image_dir=tmp_path) as disk:
        name = Path(disk.device).name
        found = discover(include_loop=True, profiles={name: "loop.json"})
        entry = next(d for d in found.devices if d.name == name)
        assert entry.capacity_bytes == 96 << 20 and entry.profile == "loop.json" and entry.path == disk.device
        assert all(not d.name.startswith("loop") for d in discover().devices)
        out = tmp_path / "inv.toml"
        done = run_advisor("inventory", "--loop", "-o", str(out))
        assert done.returncode == 0, done.stderr
        loaded = load_inventory(out)
        assert isinstance(loaded, Inventory) and name in {d.name for d in loaded.devices}
        assert all(isinstance(d, InventoryDevice) for d in loaded.devices)


def _check(path: Path | str) -> subprocess.CompletedProcess[str]:
    done = run_advisor("inventory", "--check", str(path))
    refused(done, 6)
    return done


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    return fifo


def _sparse(tmp_path: Path, size: int) -> Path:
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(size)
    return big


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "2 GB file", "directory"])
def test_a_profile_or_inventory_that_is_not_a_small_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    """Never read /dev/zero to the end, never wait on a FIFO, never load 2 GB: one line, exit 6."""
    target = {"/dev/zero": Path("/dev/zero"), "fifo": _fifo(tmp_path), "2 GB file": _sparse(tmp_path, 2 << 30),
              "directory": tmp_path}[kind]
    words = "is not a regular file" if kind != "2 GB file" else "at most"
    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace('preset = "nvme-gen4"', f'profile = "{target}"'))
    assert words in _check(path).stderr
    assert words in _check(target).stderr  # the inventory file itself
    spec = tmp_path / "spec.toml"
    spec.write_text(GOOD.replace('preset = "class-7200-desktop"', f'spec = "{target}"'))
    assert words in _check(spec).stderr


def test_device_entries_are_bounded(tmp_path: Path) -> None:
    entries = "".join(f'[[device]]\nname = "d{n}"\nmedium = "hdd"\ncapacity = 1000000\n' for n in range(5000))
    path = tmp_path / "many.toml"
    path.write_text(entries)
    assert "5,000 [[device]] entries; at most 256" in _check(path).stderr
    counted = "".join(f'[[device]]\nname = "d{n}"\nmedium = "hdd"\ncapacity = 1000000\ncount = 1000\n'
                      for n in range(3))
    path.write_text(counted)
    assert "3,000 devices once count is expanded" in _check(path).stderr


def test_count_expansion_cannot_collide_with_a_name(tmp_path: Path) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace('count = 4', 'count = 2') + '[[device]]\nname = "hdd-1"\nmedium = "hdd"\n'
                    'capacity = "4 TB"\npreset = "class-7200-desktop"\n')
    assert ("the device name 'hdd-1' is given twice: by device 'hdd' (count 2: hdd-1 … hdd-2) and by device 'hdd-1'"
            in _check(path).stderr)


@pytest.mark.parametrize(("capacity", "words"), [
    ("nan", "is not a size"), ("inf", "is not a size"), ("-inf", "is not a size"), ("1e300", "more than 1 EB"),
    ("1.5", "not a whole number of bytes"), ('"0.5 B"', "not a whole number of bytes"), ('"2000 PB"', "more than 1 EB"),
])
def test_absurd_capacities_are_refused_at_check(tmp_path: Path, capacity: str, words: str) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace('capacity = "960 GB"', f"capacity = {capacity}"))
    assert words in _check(path).stderr


def test_deeply_nested_toml_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nested too deeply" in _check(path).stderr


def test_an_nvme_with_a_drive_preset_says_what_the_preset_is(tmp_path: Path) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace('preset = "nvme-gen4"', 'preset = "class-7200-desktop"'))
    done = _check(path)
    assert "has preset 'class-7200-desktop', which is a drive (hdd) preset: no model for nvme" in done.stderr
    path.write_text(GOOD.replace('preset = "class-7200-desktop"', 'preset = "nvme-gen4"'))
    assert "is an hdd but preset 'nvme-gen4' is a solid-state (nvme, ssd) media preset" in _check(path).stderr


def test_plan_target_does_not_claim_the_default_preset_for_the_new_devices(tmp_path: Path) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD)
    done = run_advisor("plan", "--workload", str(_workload(tmp_path)), "--target", str(path), "-f", "json")
    assert done.returncode == 0, done.stderr
    assert "no --disk/--preset/--spec given" not in done.stderr
    assert "today's disks ('before') are modelled with the class-7200-desktop preset" in done.stderr


def test_smr_hm_only_inventory_blames_random_writes(tmp_path: Path) -> None:
    from advisor.model import save as save_doc
    from tests.helpers.workloads import AreaSpec, workload

    work = tmp_path / "w.json"
    save_doc(workload([AreaSpec("orders", size_gb=10, read_iops=20, write_iops=30, zone=(0.5, 0.6))]), work)
    path = tmp_path / "smr.toml"
    path.write_text('[[device]]\nname = "smr"\nmedium = "smr-hm"\ncapacity = "20 TB"\n')
    done = run_advisor("plan", "--workload", str(work), "--target", str(path))
    assert done.returncode == 6, done.stderr
    assert "cannot take 30 random writes/s of orders: host-managed SMR takes no random writes" in done.stderr
    assert "IOPS" not in done.stderr


def test_check_prints_a_hostile_device_name_escaped(tmp_path: Path) -> None:
    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace('name = "nvme0"', 'name = "nvme\\u001b]0;pwned\\u0007"'))
    done = run_advisor("inventory", "--check", str(path))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "nvme\\x1b]0;pwned\\x07: nvme, 1 x 960.0 GB" in done.stdout


@pytest.mark.parametrize(("change", "message"), [
    (('count = 4', 'count = 0'), "device 'hdd': count 0 must be a whole number from 1 to 1024"
                                 " - at `$.device[1].count`"),
    (('count = 4', 'count = "4"'), "count '4' must be a whole number from 1 to 1024 - at `$.device[1].count`"),
    (('count = 4', 'count = true'), "count True must be a whole number from 1 to 1024 - at `$.device[1].count`"),
    (('medium = "nvme"', 'medium = "tape"'), "medium 'tape' is not one of nvme, ssd, hdd"),
    (('headroom = 0.2', 'headroom = nan'), "headroom nan must be a number from 0 to 10"),
    (('host = "db-new"', 'host = 5'), "host 5 must be a string (the machine's name) - at `$.host`"),
    (('name = "hdd"', 'name = "\\t"'), "device 2: name '\\t' must be a non-empty string - at `$.device[1].name`"),
    (('preset = "nvme-gen4"', 'preset = "nvme-gen4"\nrotational = "yes"'),
     "device 'nvme0': rotational 'yes' must be true or false - at `$.device[0].rotational`"),
    (('capacity = "960 GB"', 'capacity = [1]'), "capacity [1] must be bytes, or a size"),
    (('capacity = "960 GB"', 'capacity = "lots"'), "cannot read capacity 'lots' - at `$.device[0].capacity`"),
    (('capacity = "960 GB"', ''), "device 'nvme0': capacity is missing (bytes, or a size such as"),
    (('host = "db-new"', 'speed = 3'), "unknown key 'speed' (keys: device, host, headroom, document, format_version)"
                                       " - at `$`"),
])
def test_a_refusal_names_the_field_by_its_path(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    """The inventory is decoded into records: each refusal says the rule in words and ends with the field's path."""
    from advisor.errors import BadInput

    path = tmp_path / "inv.toml"
    path.write_text(GOOD.replace(*change, 1))
    with pytest.raises(BadInput) as refused:
        load_inventory(path)
    assert message in refused.value.one_line()


def test_the_decoded_records_carry_the_rules() -> None:
    """Count, headroom and the device list are constrained types: a decode alone refuses them."""
    import msgspec

    from advisor.model.inventory import InventoryFile

    device = {"name": "d", "medium": "hdd", "capacity": 1}
    with pytest.raises(msgspec.ValidationError, match=r"<= 1024 - at `\$.device\[0\].count`"):
        msgspec.convert({"device": [{**device, "count": 1025}]}, InventoryFile)
    with pytest.raises(msgspec.ValidationError, match=r">= 0.0 - at `\$.headroom`"):
        msgspec.convert({"device": [device], "headroom": -0.5}, InventoryFile)
    with pytest.raises(msgspec.ValidationError, match=r"length <= 256 - at `\$.device`"):
        msgspec.convert({"device": [device] * 257}, InventoryFile)


def test_media_presets_are_typed_records() -> None:
    """The media presets file is decoded into one record class per section, each figure a positive number."""
    import msgspec

    from advisor.disk.media.build import CloudPreset, MediaPresetFile, SmrPreset, SolidPreset, media_presets

    presets = media_presets()
    assert isinstance(presets["nvme-gen4"], SolidPreset) and presets["nvme-gen4"].mb_s_decimal > 0
    assert isinstance(presets["aws-st1"], CloudPreset) and isinstance(presets["smr-hm"], SmrPreset)
    hm, dm = presets["smr-hm"], presets["smr-dm"]
    assert isinstance(hm, SmrPreset) and isinstance(dm, SmrPreset)
    assert hm.host_managed is True and dm.host_managed is None
    bad = {"solid": {"x": {"description": "", "read_ms": 0.0, "write_ms": 1.0, "max_iops": 1.0, "mb_s_decimal": 1.0,
                           "source": ""}}, "cloud": {}, "smr": {}}
    with pytest.raises(msgspec.ValidationError, match="> 0.0"):
        msgspec.convert(bad, MediaPresetFile)
