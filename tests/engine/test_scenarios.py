"""Scenario tests: synthetic workloads whose right answer is known, through the real disk model."""

from __future__ import annotations

from dataclasses import replace

from advisor.disk.physics import ModelPhysics
from advisor.engine.advise import AdviceRequest, Models, advise
from advisor.engine.planner import PlanOptions
from advisor.model import Device, DiskProfile, Partition, Report
from tests.helpers.clock import AT
from tests.helpers.workloads import DISK_BYTES, AreaSpec, model, models, workload


def codes(report: Report) -> set[str]:
    return {f.code for f in report.findings}


def finding(report: Report, code: str) -> dict[str, object]:
    matches = [f for f in report.findings if f.code == code]
    assert matches, f"{code} not in {codes(report)}"
    f = matches[0]
    return {"subject": f.subject, "gain": f.predicted_gain, "severity": f.severity, **f.evidence}


def test_hot_tablespace_on_inner_partition_is_moved_outer_with_a_gain() -> None:
    w = workload([
        AreaSpec("hot", size_gb=20, read_iops=200, zone=(0.90, 0.94)),
        AreaSpec("warm", size_gb=30, read_iops=20, zone=(0.05, 0.11)),
        AreaSpec("bulk", size_gb=150, read_iops=2, zone=(0.11, 0.41)),
    ])
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    hot = finding(report, "HOT_ON_INNER")
    assert hot["subject"] == "hot"
    assert hot["service_ms_outer"] < hot["service_ms_now"]  # type: ignore[operator]
    assert report.plan is not None
    target = next(p for p in report.plan.placements if p.area == "hot")
    assert target.zone_start < 0.1, "the plan puts the hot area at the outer edge"
    times = next(t for t in report.plan.service_times if t.area == "hot")
    assert times.after_ms < times.before_ms
    assert report.plan.predicted_gain > 0
    assert report.plan.predicted_after_ms < report.plan.predicted_before_ms


def test_wal_outer_and_random_data_inner_is_cross_surface_with_the_penalty() -> None:
    w = workload([
        AreaSpec("WAL", kind="wal", size_gb=4, write_iops=100, write_kb=16, random_share=None, syncs=40,
                 zone=(0.0, 0.008)),
        AreaSpec("data", size_gb=40, read_iops=150, zone=(0.9, 0.98)),
    ])
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    cross = finding(report, "CROSS_SURFACE")
    assert cross["spread"] > 0.8  # type: ignore[operator]
    assert cross["penalty_ms"] > 1.0  # type: ignore[operator]
    assert cross["mean_ms_packed"] < cross["mean_ms_now"]  # type: ignore[operator]
    assert {cross["outer_area"], cross["inner_area"]} == {"WAL", "data"}
    # the same two streams packed together: no cross-surface finding
    packed = workload([
        AreaSpec("WAL", kind="wal", size_gb=4, write_iops=100, write_kb=16, random_share=None, syncs=40,
                 zone=(0.0, 0.008)),
        AreaSpec("data", size_gb=40, read_iops=150, zone=(0.008, 0.088)),
    ])
    assert "CROSS_SURFACE" not in codes(advise(AdviceRequest(packed, models(), generated_at=AT)))
    assert "WAL_SHARES_ACTUATOR" in codes(report)


def test_archive_on_the_outer_band_is_reported() -> None:
    w = workload([
        AreaSpec("archive", kind="archive", size_gb=120, write_iops=3, write_kb=1024, random_share=None,
                 zone=(0.0, 0.24)),
        AreaSpec("data", size_gb=50, read_iops=120, zone=(0.6, 0.7)),
    ])
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    arch = finding(report, "ARCHIVE_ON_OUTER")
    assert arch["subject"] == "archive" and arch["displaced_area"] == "data"
    assert report.plan is not None
    order = [p.area for p in sorted(report.plan.placements, key=lambda p: p.zone_start)]
    assert order.index("data") < order.index("archive")


def test_ssd_profile_gives_solid_state_and_no_zone_plan() -> None:
    profile = DiskProfile(target="/dev/nvme0n1", device="/dev/nvme0n1", size_bytes=DISK_BYTES,
                          measured_at="2026-11-21T09:00:00+00:00", engine="builtin", block_size_bytes=4096,
                          band_iops={"outer": 9000.0, "inner": 9100.0}, classification="solid-state",
                          classification_reason="outer and inner bands equally fast, no seek cost")
    physics = ModelPhysics(model(), solid_state=True)
    m = Models(default=physics, per_disk={"nvme0n1": physics}, profiles={"nvme0n1": profile})
    w = workload([AreaSpec("hot", size_gb=20, read_iops=200, zone=(0.9, 0.94))],
                 devices=[Device("nvme0n1", "/dev/nvme0n1", DISK_BYTES, rotational=False)])
    w = replace(w, layout=replace(w.layout, locations=tuple(replace(loc, disk="nvme0n1")  # type: ignore[arg-type]
                                                            for loc in w.layout.locations)))  # type: ignore[union-attr]
    report = advise(AdviceRequest(w, m, generated_at=AT))
    assert "SOLID_STATE" in codes(report)
    assert "HOT_ON_INNER" not in codes(report)
    assert report.plan is None
    # pre-migration planning onto a measured SSD: no zone plan either
    pre = advise(AdviceRequest(replace(w, layout=None), m, PlanOptions(), generated_at=AT))
    assert pre.plan is None and "SOLID_STATE" in codes(pre)


def test_a_rotating_measurement_outranks_the_kernels_solid_state_flag() -> None:
    """A loop device over FUSE says rotational=0; the bench saw seeks, so zones matter."""
    profile = DiskProfile(target="/dev/loop7", device="/dev/loop7", size_bytes=DISK_BYTES,
                          measured_at="2026-11-21T09:00:00+00:00", engine="builtin", block_size_bytes=4096,
                          band_iops={"outer": 160.0, "inner": 150.0}, full_stroke_iops=80.0,
                          classification="rotational", classification_reason="full stroke half the band IOPS")
    physics = ModelPhysics(model())
    m = Models(default=physics, per_disk={"loop7": physics}, profiles={"loop7": profile})
    w = workload([AreaSpec("hot", size_gb=20, read_iops=200, zone=(0.9, 0.94))],
                 devices=[Device("loop7", "/dev/loop7", DISK_BYTES, rotational=False)])
    w = replace(w, layout=replace(w.layout, locations=tuple(replace(loc, disk="loop7")  # type: ignore[arg-type]
                                                            for loc in w.layout.locations)))  # type: ignore[union-attr]
    report = advise(AdviceRequest(w, m, generated_at=AT))
    assert "SOLID_STATE" not in codes(report)
    assert "HOT_ON_INNER" in codes(report)


def test_lvm_volume_gives_placement_unknown_with_what_to_do() -> None:
    w = workload([
        AreaSpec("hot", size_gb=20, read_iops=200, placement_known=False, reason="dm-0: LVM logical volume (striped)"),
        AreaSpec("other", size_gb=20, read_iops=10, zone=(0.1, 0.14)),
    ])
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    unknown = finding(report, "PLACEMENT_UNKNOWN")
    assert "LVM" in str(unknown["reason"])
    assert unknown["io_share"] > 0.9  # type: ignore[operator]
    action = next(f.action for f in report.findings if f.code == "PLACEMENT_UNKNOWN")
    assert "lvs" in action or "dmsetup" in action


def test_low_io_share_is_not_io_bound_and_moves_nothing() -> None:
    specs = [AreaSpec("hot", size_gb=20, read_iops=200, zone=(0.9, 0.94)),
             AreaSpec("bulk", size_gb=150, read_iops=2, zone=(0.0, 0.3))]
    report = advise(AdviceRequest(workload(specs, io_share=0.05), models(), generated_at=AT))
    gate = finding(report, "NOT_IO_BOUND")
    assert gate["io_wait_share"] == 0.05 and gate["threshold"] == 0.2
    assert report.plan is None
    assert any("--force" in w for w in report.warnings)
    forced = advise(AdviceRequest(workload(specs, io_share=0.05), models(), PlanOptions(force=True), generated_at=AT))
    assert forced.plan is not None and forced.plan.placements
    assert "NOT_IO_BOUND" not in codes(advise(AdviceRequest(workload(specs, io_share=0.5), models(), generated_at=AT)))
    apart = [AreaSpec("a", size_gb=20, read_iops=200, zone=(0.9, 0.94)),
             AreaSpec("b", size_gb=20, read_iops=150, zone=(0.0, 0.04))]
    idle = [f for f in advise(AdviceRequest(workload(apart, io_share=0.05), models(), generated_at=AT)).findings
            if f.code == "CROSS_SURFACE"]
    busy = [f for f in advise(AdviceRequest(workload(apart, io_share=0.5), models(), generated_at=AT)).findings
            if f.code == "CROSS_SURFACE"]
    assert busy[0].severity in ("medium", "high") and idle[0].severity == "low", "capped when not IO bound"
    assert busy[0].predicted_gain == idle[0].predicted_gain


def test_commit_rate_near_rotation_is_commit_bound() -> None:
    near = workload([AreaSpec("WAL", kind="wal", size_gb=2, write_iops=120, random_share=None, syncs=115,
                              zone=(0.0, 0.004))])
    found = finding(advise(AdviceRequest(near, models(), generated_at=AT)), "COMMIT_BOUND")
    assert found["rotation_limit_per_s"] == 120.0 and found["rpm"] == 7200
    far = workload([AreaSpec("WAL", kind="wal", size_gb=2, write_iops=30, random_share=None, syncs=20,
                             zone=(0.0, 0.004))])
    assert "COMMIT_BOUND" not in codes(advise(AdviceRequest(far, models(), generated_at=AT)))


def test_commit_rate_above_rotation_is_cache_lies() -> None:
    def profile(commits: float) -> DiskProfile:
        return DiskProfile(target="/dev/sdb", device="/dev/sdb", size_bytes=DISK_BYTES,
                           measured_at="2026-11-21T09:00:00+00:00", engine="builtin", block_size_bytes=4096,
                           commit_per_s=commits, rpm=7200, classification="rotational")

    w = workload([AreaSpec("hot", size_gb=20, read_iops=200, zone=(0.0, 0.04))])
    physics = ModelPhysics(model())
    lying = advise(AdviceRequest(w, Models(default=physics, profiles={"sdb": profile(1900.0)}), generated_at=AT))
    lie = finding(lying, "CACHE_LIES")
    assert lie["severity"] == "critical" and lie["ratio"] > 15  # type: ignore[operator]
    honest = advise(AdviceRequest(w, Models(default=physics, profiles={"sdb": profile(112.0)}), generated_at=AT))
    assert "CACHE_LIES" not in codes(honest)


def test_misaligned_partition_is_reported() -> None:
    parts = [Partition("sda1", "sda", 1, 63 * 512, 100 * 10**9), Partition("sda2", "sda", 2, 1 << 30, 10**9)]
    devices = [Device("sda", "/dev/sda", DISK_BYTES, rotational=True, physical_block_bytes=4096)]
    report = advise(AdviceRequest(workload([AreaSpec("hot", read_iops=10, zone=(0.0, 0.02))], partitions=parts,
                                           devices=devices),
                    models(), generated_at=AT))
    bad = [f for f in report.findings if f.code == "MISALIGNED"]
    assert [f.subject for f in bad] == ["sda1"]
    assert bad[0].severity == "high" and bad[0].evidence["offset_in_block"] == (63 * 512) % 4096


def test_two_disks_give_the_wal_its_own_actuator() -> None:
    w = workload([
        AreaSpec("WAL", kind="wal", size_gb=4, write_iops=150, write_kb=16, random_share=None, syncs=60),
        AreaSpec("data", size_gb=60, read_iops=200),
        AreaSpec("idx", size_gb=20, read_iops=120),
    ], with_layout=False)
    one = advise(AdviceRequest(w, models(), PlanOptions(disks=1), generated_at=AT))
    two = advise(AdviceRequest(w, models(), PlanOptions(disks=2), generated_at=AT))
    assert one.plan is not None and two.plan is not None
    wal_disk = {p.disk for p in two.plan.partitions if "WAL" in p.areas}
    data_disks = {p.disk for p in two.plan.partitions if {"data", "idx"} & set(p.areas)}
    assert len(wal_disk) == 1 and not wal_disk & data_disks
    assert "own actuator" in two.plan.method
    assert two.plan.predicted_after_ms < one.plan.predicted_after_ms
