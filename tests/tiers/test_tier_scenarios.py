"""Tiered placement with known answers: the rules, the models per medium, the baseline."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from advisor.disk.media.build import build_device_model
from advisor.engine.advise import advise, analyse
from advisor.engine.planner import PlanOptions
from advisor.engine.tier_targets import Evaluator, targets_of, tier_items
from advisor.engine.tiers import knapsack_baseline, plan_tiers
from advisor.errors import BadInput
from advisor.model.inventory import InventoryDevice
from tests.engine.synth import AreaSpec, models, workload

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
    report = advise(work, models(), PlanOptions(new_disks=True, target=_devices(*devices)))
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
    plain = advise(work, models(), PlanOptions(new_disks=True, target=_devices(HDD2)))
    tiered = advise(work, models(), PlanOptions(new_disks=True, target=_devices(cloud_sda, HDD2)))
    zone_codes = {"CROSS_SURFACE", "HOT_ON_INNER", "WAL_SHARES_ACTUATOR"}
    assert zone_codes & {f.code for f in plain.findings}, "the synthetic layout must have zone findings at all"
    assert not zone_codes & {f.code for f in tiered.findings if f.subject == "sda" or "sda" in str(f.evidence)}
    # small random reads on a throughput volume meet its IOPS cap: said as a finding about today
    assert "CLOUD_VOLUME_SMALL_IO" in {f.code for f in tiered.findings}


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
    report = advise(work, models(), PlanOptions(new_disks=True, target=_devices(
        InventoryDevice("sda", "smr-dm", 500 * GB), NVME, HDD2)))
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
    ours = advise(workload(specs), models(), PlanOptions(new_disks=True, target=devices)).plan
    base = advise(workload(specs), models(), PlanOptions(new_disks=True, target=devices, knapsack=True)).plan
    assert ours is not None and base is not None and ours.tiers is not None and base.tiers is not None
    fast = {d.name: set(d.areas) for d in ours.tiers.devices}["nvme0"]
    fast_base = {d.name: set(d.areas) for d in base.tiers.devices}["nvme0"]
    assert "big" in fast and "big" not in fast_base  # density fills the NVMe with b, c, d; the search moves big in
    assert base.tiers.mean_ms == base.tiers.baseline_mean_ms > ours.tiers.mean_ms
    assert base.predicted_after_ms > ours.predicted_after_ms
    assert any("knapsack" in note for note in base.notes)
