"""Tiered placement with known answers: the rules, the models per medium, the baseline."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from advisor.disk.media.build import build_device_model
from advisor.engine.advise import AdviceRequest, advise, analyse
from advisor.engine.planner import PROGRESS_MIN_AREAS, PlanOptions
from advisor.engine.tiers.search import knapsack_baseline, plan_tiers
from advisor.engine.tiers.targets import Evaluator, targets_of, tier_items
from advisor.errors import BadInput
from advisor.model.inventory import InventoryDevice
from advisor.units import DISK_MB, MIB, TIB
from tests.helpers.cli import run_advisor
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, models, workload

GB = 10**9
HERE = Path(".")


def _devices(*devices: InventoryDevice):  # type: ignore[no-untyped-def]
    return tuple(build_device_model(d, HERE) for d in devices)


NVME = InventoryDevice("nvme0", "nvme", 64 * GB, preset="nvme-gen4")
HDD2 = InventoryDevice("hdd", "hdd", 500 * GB, count=2, preset="class-7200-desktop")
SMR = InventoryDevice("smr", "smr-dm", 4000 * GB)
ST1 = InventoryDevice("vol", "cloud-hdd", 2000 * GB, preset="aws-st1")

OLTP = [
    AreaSpec("orders", size_gb=30, read_iops=300, write_iops=30, zone=(0.5, 0.6)),
    AreaSpec("items", size_gb=60, read_iops=120, zone=(0.1, 0.2)),
    AreaSpec("history", size_gb=200, read_iops=3, zone=(0.2, 0.6)),
    AreaSpec("wal", kind="wal", size_gb=2, write_iops=150, syncs=120, random_share=None, zone=(0.9, 0.91)),
    AreaSpec("fra", kind="archive", size_gb=100, write_iops=2, write_kb=1024, random_share=None, zone=(0.7, 0.9)),
]


def _plan(specs: list[AreaSpec], *devices: InventoryDevice):  # type: ignore[no-untyped-def]
    work = workload(specs)
    report = advise(AdviceRequest(work, models(), PlanOptions(new_disks=True, target=_devices(*devices)),
                                  generated_at=AT))
    assert report.plan is not None and report.plan.tiers is not None, report.warnings
    return report


def _device_of(report, area: str) -> str:  # type: ignore[no-untyped-def]
    return next(a.device for a in report.plan.tiers.assignments if a.area == area)


def test_wal_goes_to_the_ssd_and_fra_to_smr() -> None:
    report = _plan(OLTP, NVME, HDD2, SMR)
    assert _device_of(report, "WAL") == "nvme0"
    assert _device_of(report, "archive") == "smr"
    assert _device_of(report, "orders") == "nvme0"
    # the rule that sent the archive to SMR is stated with its reason
    assert any("SMR" in rule for rule in report.plan.tiers.rules)
    assert report.plan.tiers.mean_ms <= report.plan.tiers.baseline_mean_ms + 1e-9


def test_wal_never_on_smr_or_cloud_while_another_medium_exists() -> None:
    report = _plan(OLTP, InventoryDevice("hdd", "hdd", 1000 * GB, preset="class-7200-desktop"), SMR, ST1)
    assert report.plan is not None and report.plan.tiers is not None
    assert report.plan.tiers.devices and _device_of(report, "WAL") == "hdd"


def test_no_zone_advice_on_a_cloud_volume() -> None:
    """Today's layout sits on a cloud volume the inventory names: no zone finding about it."""
    work = workload(OLTP)  # located on disk 'sda'
    cloud_sda = InventoryDevice("sda", "cloud-hdd", 2000 * GB, preset="aws-st1")
    plain = advise(AdviceRequest(work, models(), PlanOptions(new_disks=True, target=_devices(HDD2)), generated_at=AT))
    tiered = advise(AdviceRequest(work, models(), PlanOptions(new_disks=True, target=_devices(cloud_sda, HDD2)),
                                  generated_at=AT))
    zone_codes = {"CROSS_SURFACE", "HOT_ON_INNER", "WAL_SHARES_ACTUATOR"}
    assert zone_codes & {f.code for f in plain.findings}, "the synthetic layout must have zone findings at all"
    assert not zone_codes & {f.code for f in tiered.findings if f.subject == "sda" or "sda" in str(f.evidence)}
    # small random reads on a throughput volume meet its IOPS cap: said as a finding about today
    assert "CLOUD_VOLUME_SMALL_IO" in {f.code for f in tiered.findings}


def test_the_cloud_volume_finding_states_the_load_in_the_reports_megabytes() -> None:
    """The finding's MB/s is the areas' MB/s of the same report (2^20 bytes); it was 10^6, 4.9 % higher."""
    cloud_sda = InventoryDevice("sda", "cloud-hdd", 2000 * GB, preset="aws-st1")
    report = advise(AdviceRequest(workload(OLTP), models(), PlanOptions(new_disks=True, target=_devices(cloud_sda,
                                                                                                        HDD2)),
                    generated_at=AT))
    finding = next(f for f in report.findings if f.code == "CLOUD_VOLUME_SMALL_IO")
    rates = {a.name: a.mb_s for a in report.areas}
    moving = sum(rates[name] for name in str(finding.evidence["areas"]).split(", "))
    assert finding.evidence["mb_s"] == pytest.approx(moving, abs=0.006)
    assert f"moving only {moving:.1f} MiB/s" in finding.title
    baseline = 40 * 2000 * GB / TIB * DISK_MB / MIB  # 40 MB/s per TiB (the preset's figure), in MiB/s
    assert finding.evidence["baseline_mb_s"] == pytest.approx(baseline, abs=0.05)


def test_fast_tier_too_small_for_the_one_hot_object() -> None:
    specs = [AreaSpec("huge", size_gb=300, read_iops=500, zone=(0.1, 0.7)),
             AreaSpec("small", size_gb=2, read_iops=20, zone=(0.7, 0.71))]
    report = _plan(specs, InventoryDevice("nvme0", "nvme", 100 * GB, preset="nvme-gen4"), HDD2)
    assert _device_of(report, "huge").startswith("hdd")
    assert _device_of(report, "small") == "nvme0"
    codes = {f.code for f in report.findings}
    assert "FAST_TIER_IDLE" in codes  # 20 of 520 IOPS on the fast tier


def test_fast_tier_full_says_what_more_would_buy() -> None:
    specs = [AreaSpec(f"t{i}", size_gb=10, read_iops=100 + i, zone=(i / 10, i / 10 + 0.05)) for i in range(6)]
    report = _plan(specs, InventoryDevice("nvme0", "nvme", 30 * GB, preset="nvme-gen4"), HDD2)
    full = [f for f in report.findings if f.code == "FAST_TIER_FULL"]
    assert full and full[0].evidence["used_bytes"] <= full[0].evidence["capacity_bytes"]
    curve = report.plan.tiers.curve
    assert curve[0].fast_bytes == 0 and curve[-1].fast_bytes == 30 * GB
    means = [p.mean_ms for p in curve if p.mean_ms is not None]
    assert means == sorted(means, reverse=True), "more fast capacity never predicts a slower plan"


def test_smr_random_writes_fall_off_the_cliff() -> None:
    model = build_device_model(SMR, HERE)
    assert model.smr is not None
    assert model.smr.write_ms(5.0, 8192, 8.0) == 8.0  # 5 writes/s of 8 KiB: the 20 GiB cache lasts for days
    assert model.smr.write_ms(2000.0, 8192, 8.0) is None  # past the cleaning rate: cannot keep up
    # 20 random 1 MiB writes/s fill 20 GiB in 17 minutes; then the band-cleaning queue (25/s) answers
    assert model.smr.write_ms(20.0, 1 << 20, 8.0) == pytest.approx(1000.0 / (25.0 - 20.0))


def test_smr_for_writes_today() -> None:
    work = workload(OLTP)
    report = advise(AdviceRequest(work, models(), PlanOptions(new_disks=True, target=_devices(
        InventoryDevice("sda", "smr-dm", 500 * GB), NVME, HDD2)), generated_at=AT))
    smr = [f for f in report.findings if f.code == "SMR_FOR_WRITES"]
    assert smr and smr[0].severity == "high" and "WAL" in str(smr[0].evidence["areas"])


@pytest.mark.parametrize("seed", range(12))
def test_never_worse_than_the_knapsack_baseline(seed: int) -> None:
    rng = random.Random(seed)
    specs = [AreaSpec(f"a{i}", size_gb=rng.uniform(1, 60), read_iops=rng.uniform(0, 300),
                      write_iops=rng.uniform(0, 40), zone=(0.1 * (i % 9), 0.1 * (i % 9) + 0.05)) for i in range(7)]
    specs.append(AreaSpec("wal", kind="wal", size_gb=2, write_iops=rng.uniform(20, 200), syncs=50,
                          random_share=None, zone=(0.95, 0.96)))
    classified = analyse(workload(specs), models()).classified
    items = tier_items(classified, 0.3)
    targets = targets_of(_devices(InventoryDevice("nvme0", "nvme", int(rng.uniform(10, 120)) * GB,
                                                  preset="nvme-gen4"), HDD2))
    result = plan_tiers(items, targets, with_curve=False)
    assert result.solution.mean_ms <= result.baseline.mean_ms + 1e-9
    baseline = knapsack_baseline(Evaluator(targets), items)
    assert baseline is not None and all(result.baseline.device_of(name) == targets[index].name
                                        for name, index in baseline.items())


def test_inventory_too_small_says_by_how_much() -> None:
    with pytest.raises(BadInput, match=r"GB short; nothing planned"):
        _plan(OLTP, InventoryDevice("nvme0", "nvme", 100 * GB, preset="nvme-gen4"))


def test_knapsack_option_lays_out_the_baseline_and_says_so() -> None:
    specs = [AreaSpec("big", size_gb=45, read_iops=400, zone=(0.5, 0.6)),
             *(AreaSpec(n, size_gb=5, read_iops=55, zone=(0.1 * i, 0.1 * i + 0.05)) for i, n in enumerate("bcd"))]
    devices = _devices(InventoryDevice("nvme0", "nvme", 64 * GB, preset="nvme-gen4"), HDD2)
    ours = advise(AdviceRequest(workload(specs), models(), PlanOptions(new_disks=True, target=devices),
                                generated_at=AT)).plan
    base = advise(AdviceRequest(workload(specs), models(), PlanOptions(new_disks=True, target=devices, knapsack=True),
                  generated_at=AT)).plan
    assert ours is not None and base is not None and ours.tiers is not None and base.tiers is not None
    fast = {d.name: set(d.areas) for d in ours.tiers.devices}["nvme0"]
    fast_base = {d.name: set(d.areas) for d in base.tiers.devices}["nvme0"]
    assert "big" in fast and "big" not in fast_base  # density fills the NVMe with b, c, d; the search moves big in
    assert base.tiers.mean_ms == base.tiers.baseline_mean_ms > ours.tiers.mean_ms
    assert base.predicted_after_ms > ours.predicted_after_ms
    assert any("knapsack" in note for note in base.notes)


# An 11.2 import where one tablespace reads 647 MB/s (1,226 reads/s of 528 KB, one datafile) beside
# twenty ordinary areas; the inventory of the report that showed it: one 480 GB SATA SSD, two 4 TB
# 7200 rpm disks, one 8 TB drive-managed SMR disk.
SSD480 = InventoryDevice("ssd0", "ssd", 480 * GB, preset="sata-ssd")
HDD4 = InventoryDevice("hdd", "hdd", 4000 * GB, count=2, preset="class-7200-desktop")
SMR8 = InventoryDevice("smr0", "smr-dm", 8000 * GB)
ORACLE_11 = [
    AreaSpec("TS_UNIAUTH", size_gb=120, read_iops=1226, read_kb=528, random_share=0.02, zone=(0.1, 0.2)),
    AreaSpec("redo", kind="redo", size_gb=2, write_iops=140, write_kb=24, syncs=110, random_share=None,
             zone=(0.9, 0.901)),
    AreaSpec("TS_DC", size_gb=60, read_iops=180, write_iops=20, zone=(0.2, 0.3)),
    AreaSpec("control", kind="control", size_gb=0.05, read_iops=3, write_iops=3, zone=(0.95, 0.951)),
    AreaSpec("TEMP", kind="temp", size_gb=30, read_iops=20, write_iops=20, read_kb=256, write_kb=256,
             random_share=0.0, zone=(0.4, 0.45)),
    AreaSpec("UNDOTBS1", kind="undo", size_gb=20, read_iops=10, write_iops=30, zone=(0.5, 0.52)),
    AreaSpec("SYSTEM", size_gb=2, read_iops=15, write_iops=1, zone=(0.0, 0.01)),
    *(AreaSpec(f"TS_APP{n:02d}", size_gb=5 + 7 * n, read_iops=40.0 / (n + 1), write_iops=4.0 / (n + 1),
               zone=(0.55 + 0.02 * n, 0.56 + 0.02 * n)) for n in range(14)),
]


def test_an_area_too_big_for_any_device_is_left_out_and_the_rest_planned() -> None:
    work = workload(ORACLE_11, dbms="oracle", version_num=110204)
    report = advise(AdviceRequest(work, models(), PlanOptions(new_disks=True, target=_devices(SSD480, HDD4, SMR8)),
                                  generated_at=AT))
    assert report.plan is not None and report.plan.tiers is not None
    planned = {a.area for a in report.plan.tiers.assignments}
    areas = {r.name for r in report.areas}
    assert len(areas) == 21 and planned == areas - {"TS_UNIAUTH"}
    exceeds = [f for f in report.findings if f.code == "AREA_EXCEEDS_DEVICE"]
    assert [f.subject for f in exceeds] == ["TS_UNIAUTH"]
    evidence = exceeds[0].evidence
    assert evidence["mib_s"] == pytest.approx(647.3, abs=0.5)
    # why: the SSD's 530 MB/s and the disks' outer-edge rate; SMR holds only archive and cold areas
    assert "ssd0 (ssd): the area alone needs 128% of its IOPS or throughput ceiling" in str(evidence["why"])
    assert "hdd-1 (hdd): the area alone moves 377% of what its outer edge" in str(evidence["why"])
    assert "smr0 (smr-dm): smr-dm holds only archive" in str(evidence["why"])
    # what would carry it: two such SSDs striped, or a faster medium
    assert "2 x ssd like ssd0 striped" in str(evidence["would_carry"])
    assert "nvme-gen3" in str(evidence["would_carry"])
    assert any(n.startswith("Not planned (AREA_EXCEEDS_DEVICE): TS_UNIAUTH") for n in report.plan.notes)
    # the redo log goes to the SSD; no script moves the area that was left out
    assert _device_of(report, "redo") == "ssd0"
    assert not any("TS_UNIAUTH" in s.text for s in report.plan.scripts)
    assert report.plan.tiers.mean_ms <= report.plan.tiers.baseline_mean_ms + 1e-9


def test_when_no_area_fits_any_device_the_biggest_shortfall_is_named() -> None:
    """Four 200 GB SSDs hold the two areas' 598 GB, but neither area fits on one of them."""
    specs = [AreaSpec("big", size_gb=220, read_iops=50, zone=(0.1, 0.4)),
             AreaSpec("bigger", size_gb=240, read_iops=5, zone=(0.4, 0.9))]
    with pytest.raises(BadInput, match=r"no area fits any device.*biggest shortfall: bigger .*holds 200 GB, the area "
                                       r"needs 312 GB.*\(and 1 other area\); nothing planned"):
        _plan(specs, InventoryDevice("ssd", "ssd", 200 * GB, count=4, preset="sata-ssd"))


def test_an_overloaded_device_names_only_the_areas_at_fault() -> None:
    """Each area fits the one SSD alone; the two scans together do not: the error names those two only."""
    specs = [AreaSpec("scan_a", size_gb=20, read_iops=600, read_kb=512, random_share=0.0, zone=(0.1, 0.2)),
             AreaSpec("scan_b", size_gb=20, read_iops=590, read_kb=512, random_share=0.0, zone=(0.3, 0.4)),
             *(AreaSpec(f"small{n}", size_gb=1, read_iops=5, zone=(0.5 + n / 100, 0.505 + n / 100))
               for n in range(5))]
    with pytest.raises(BadInput) as caught:
        _plan(specs, InventoryDevice("ssd0", "ssd", 400 * GB, preset="sata-ssd"))
    message = str(caught.value)
    assert "scan_a, scan_b together" in message and "small" not in message.split("together")[0]
    assert "5 smaller areas planned there too" in message


@pytest.mark.parametrize(("seed", "areas"), [(0, 160), (1, 520)])
def test_never_worse_than_the_knapsack_baseline_at_the_size_of_real_databases(seed: int, areas: int) -> None:
    """Hundreds of areas: the search is bounded (busiest areas move, estimates while searching),
    and the plan it keeps is still never worse than the baseline under the same final model."""
    rng = random.Random(seed)
    specs = [AreaSpec(f"ts{i:03d}", size_gb=rng.lognormvariate(0.0, 1.0), read_iops=400.0 / (i + 1) ** 0.9
                      * rng.uniform(0.3, 1.0), write_iops=rng.uniform(0, 5), zone=None, placement_known=False)
             for i in range(areas)]
    specs.append(AreaSpec("wal", kind="wal", size_gb=2, write_iops=150, syncs=100, random_share=None, zone=None,
                          placement_known=False))
    classified = analyse(workload(specs, with_layout=False), models()).classified
    items = tier_items(classified, 0.3)
    targets = targets_of(_devices(InventoryDevice("nvme0", "nvme", 40 * GB, preset="nvme-gen4"),
                                  InventoryDevice("hdd", "hdd", 2000 * GB, count=3, preset="class-7200-desktop"),
                                  SMR))
    result = plan_tiers(items, targets, with_curve=False)
    assert result.solution.mean_ms <= result.baseline.mean_ms + 1e-9
    placed = {i.name for p in result.solution.placements for i in p.items}
    assert placed == {i.name for i in items} and not result.oversized


def _save_workload(tmp_path: Path, specs: list[AreaSpec], dbms: str = "oracle") -> Path:
    from advisor.model import save

    path = tmp_path / "workload.json"
    save(workload(specs, dbms=dbms, version_num=110204), path)
    return path


def _inventory(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "inventory.toml"
    path.write_text(text)
    return path


ORACLE_11_INVENTORY = """
[[device]]
name = "ssd0"
medium = "ssd"
capacity = "480 GB"
preset = "sata-ssd"
[[device]]
name = "hdd"
medium = "hdd"
capacity = "4 TB"
count = 2
preset = "class-7200-desktop"
[[device]]
name = "smr0"
medium = "smr-dm"
capacity = "8 TB"
"""


def test_plan_exits_0_with_the_finding_and_6_when_nothing_fits(tmp_path: Path) -> None:
    work = _save_workload(tmp_path, ORACLE_11)
    done = run_advisor("plan", "--workload", str(work), "--target", str(_inventory(tmp_path, ORACLE_11_INVENTORY)),
                       "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [f["subject"] for f in report["findings"] if f["code"] == "AREA_EXCEEDS_DEVICE"] == ["TS_UNIAUTH"]
    assert len(report["plan"]["tiers"]["assignments"]) == 20
    tiny = ORACLE_11_INVENTORY.replace('"480 GB"', '"10 GB"').replace('"4 TB"', '"100 GB"').replace(
        '"8 TB"', '"2 TB"').replace('capacity = "2 TB"', 'capacity = "2 TB"\ncount = 1')
    big = [AreaSpec(f"big{n}", size_gb=300 + n, read_iops=10, zone=(0.1 * n, 0.1 * n + 0.05)) for n in range(3)]
    done = run_advisor("plan", "--workload", str(_save_workload(tmp_path, big)), "--target", str(_inventory(tmp_path,
                       tiny)))
    assert done.returncode == 6 and done.stderr.count("\n") == 1, done.stderr
    assert "biggest shortfall: big2" in done.stderr and "(and 2 other areas)" in done.stderr


def test_a_big_plan_says_each_phase_on_stderr_when_piped(tmp_path: Path) -> None:
    specs = [AreaSpec(f"ts{i:03d}", size_gb=1 + i % 7, read_iops=300.0 / (i + 1), zone=None, placement_known=False)
             for i in range(PROGRESS_MIN_AREAS)]
    small = _save_workload(tmp_path, specs[:20], dbms="postgres")
    done = run_advisor("plan", "--workload", str(small), "--preset", "class-7200-desktop", "--force", "--format",
                       "json")
    assert done.returncode == 0 and "planning:" not in done.stderr, done.stderr
    work = _save_workload(tmp_path, specs, dbms="postgres")
    done = run_advisor("plan", "--workload", str(work), "--target", str(_inventory(tmp_path, ORACLE_11_INVENTORY)),
                       "--force", "--format", "json")
    assert done.returncode == 0, done.stderr
    phases = [line.removeprefix("advisor: planning: ") for line in done.stderr.splitlines() if "planning:" in line]
    assert phases[:2] == ["tier search", "device orders"] and "fast-tier curve" in phases
    assert len(phases) == len(set(phases))  # one line per phase, not per step
    json.loads(done.stdout)  # stdout stays the document alone
