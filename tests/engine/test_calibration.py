"""Read rates calibrated against the kernel's diskstats: scaled, apportioned, or kept as reported."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.calibrate import calibrate_reads
from advisor.model import Partition
from tests.engine.calibration_rows import HOT, WAL, mib, on_partitions, rows, stat
from tests.helpers.clock import AT
from tests.helpers.workloads import DISK_BYTES, GB, AreaSpec, models


def test_five_percent_of_the_reads_reaching_the_partition_scales_them_and_says_so() -> None:
    w = on_partitions([HOT, WAL], {"orders": "sda3", "WAL": "sda1"},
                      [stat("sda3", 100.0, mib(100)), stat("sda1", 3.0, 0.05), stat("sda", 103.0, 0.1, False, 1.0)])
    raw = advise(AdviceRequest(replace(w, diskstats=()), models(), generated_at=AT))
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    orders = rows(report)["orders"]
    assert orders["read_iops"] == pytest.approx(100.0, rel=1e-3)
    assert orders["db_read_iops"] == pytest.approx(2000.0)
    assert orders["read_mb_s"] == pytest.approx(mib(100), rel=1e-3)
    assert orders["disk_read_share"] == pytest.approx(0.05, rel=1e-3)
    assert rows(raw)["orders"]["read_iops"] == pytest.approx(2000.0)
    assert rows(report)["WAL"]["write_iops"] == pytest.approx(60.0), "writes are never scaled"
    note = next(n for n in report.warnings if n.startswith("sda3:"))
    assert "100.0 reads/s" in note and "2000.0 reads/s" in note and "orders" in note and "upper bound" in note
    cached = [f for f in report.findings if f.code == "READS_CACHED"]
    assert [f.subject for f in cached] == ["sda3"] and cached[0].severity == "low"
    assert cached[0].evidence["disk_read_share"] == pytest.approx(0.05, rel=1e-3)
    assert cached[0].evidence["kernel_read_iops"] == 100.0 and cached[0].evidence["db_read_iops"] == 2000.0
    assert "READS_CACHED" not in {f.code for f in raw.findings}
    # the placement evidence and the plan use the disk's reads, not the buffer misses
    hot = next(f for f in report.findings if f.code == "HOT_ON_INNER")
    assert hot.evidence["iops"] == pytest.approx(100.0, rel=1e-3)
    assert report.plan is not None
    # uncalibrated, the 2,000 buffer misses/s would be random reads no 7,200 rpm disk serves: no plan on them
    assert raw.plan is None and "MODEL_DOES_NOT_FIT" in {f.code for f in raw.findings}
    assert {t.area: t.iops for t in report.plan.service_times}["orders"] == pytest.approx(100.0, rel=1e-3)


def test_without_diskstats_nothing_changes_and_the_rates_are_called_unverified() -> None:
    w = on_partitions([HOT, WAL], {"orders": "sda3", "WAL": "sda1"})
    cal = calibrate_reads(w)
    assert cal.rates == w.rates and not cal.measured
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    orders = rows(report)["orders"]
    assert orders["read_iops"] == pytest.approx(2000.0) and orders["disk_read_share"] is None
    assert any("database's own" in n and "unverified" in n for n in report.warnings)
    assert "READS_CACHED" not in {f.code for f in report.findings}
    # AWR imports and snapshots without host layout carry no layout at all
    assert calibrate_reads(replace(w, layout=None, diskstats=(stat("sda3", 1.0, 0.01),))).rates == w.rates


def test_the_kernel_seeing_more_reads_never_scales_up() -> None:
    w = on_partitions([HOT], {"orders": "sda3"}, [stat("sda3", 2600.0, 30.0)])
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    assert rows(report)["orders"]["read_iops"] == pytest.approx(2000.0)
    assert rows(report)["orders"]["disk_read_share"] == 1.0
    assert any(n.startswith("sda3:") and "rates kept" in n for n in report.warnings)
    assert "READS_CACHED" not in {f.code for f in report.findings}


def test_a_partition_shared_by_two_areas_is_apportioned_by_their_database_reads() -> None:
    a = AreaSpec("orders", size_gb=20, read_iops=300, zone=(0.65, 0.70))
    b = AreaSpec("items", size_gb=20, read_iops=100, zone=(0.71, 0.75))
    c = AreaSpec("history", size_gb=20, read_iops=50, zone=(0.31, 0.35))
    w = on_partitions([a, b, c], {"orders": "sda3", "items": "sda3", "history": "sda2"},
                      [stat("sda3", 40.0, mib(40)), stat("sda2", 50.0, mib(50))])
    got = rows(advise(AdviceRequest(w, models(), generated_at=AT)))
    assert got["orders"]["read_iops"] == pytest.approx(30.0, rel=1e-3)
    assert got["items"]["read_iops"] == pytest.approx(10.0, rel=1e-3)
    assert got["orders"]["disk_read_share"] == got["items"]["disk_read_share"] == pytest.approx(0.1, rel=1e-3)
    assert got["history"]["read_iops"] == pytest.approx(50.0) and got["history"]["disk_read_share"] == 1.0
    device = next(d for d in calibrate_reads(w).devices if d.device == "sda3")
    assert set(device.areas) == {"orders", "items"} and device.db_read_iops == pytest.approx(400.0)


def test_merged_requests_cut_iops_but_keep_the_bytes_and_are_not_called_cached() -> None:
    scan = AreaSpec("facts", size_gb=40, read_iops=1600, read_kb=8, random_share=0.0, zone=(0.65, 0.70))
    w = on_partitions([scan], {"facts": "sda3"}, [stat("sda3", 100.0, mib(1600))])
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    facts = rows(report)["facts"]
    assert facts["read_iops"] == pytest.approx(100.0, rel=1e-3)
    assert facts["read_mb_s"] == pytest.approx(mib(1600), rel=1e-3)
    assert facts["disk_read_share"] == pytest.approx(1.0)
    assert facts["area_class"] == "scan"
    assert "READS_CACHED" not in {f.code for f in report.findings}


def test_a_disk_row_alone_calibrates_all_files_on_that_disk() -> None:
    a = AreaSpec("orders", size_gb=20, read_iops=300, zone=(0.65, 0.70))
    b = AreaSpec("history", size_gb=20, read_iops=100, zone=(0.31, 0.35))
    w = on_partitions([a, b], {"orders": "sda3", "history": "sda2"}, [stat("sda", 20.0, mib(20), partition=False)])
    cal = calibrate_reads(w)
    assert [(d.device, d.level) for d in cal.devices] == [("sda", "disk")]
    got = rows(advise(AdviceRequest(w, models(), generated_at=AT)))
    assert got["orders"]["read_iops"] == pytest.approx(15.0, rel=1e-3)
    assert got["history"]["read_iops"] == pytest.approx(5.0, rel=1e-3)
    # with a row for sda3 too, sda3's own reads are taken off the disk's for the files elsewhere
    both = on_partitions([a, b], {"orders": "sda3", "history": "sda2"},
                         [stat("sda", 30.0, mib(30), partition=False), stat("sda3", 25.0, mib(25))])
    got = rows(advise(AdviceRequest(both, models(), generated_at=AT)))
    assert got["orders"]["read_iops"] == pytest.approx(25.0, rel=1e-3)
    assert got["history"]["read_iops"] == pytest.approx(5.0, rel=1e-3)


def test_a_whole_disk_file_system_uses_the_disk_row() -> None:
    whole = (Partition("sda", "sda", 0, 0, DISK_BYTES),)
    w = on_partitions([HOT], {"orders": "sda"}, [stat("sda", 200.0, mib(200), partition=False)], partitions=whole)
    cal = calibrate_reads(w)
    assert [(d.device, d.level, d.disk) for d in cal.devices] == [("sda", "disk", "sda")]
    assert rows(advise(AdviceRequest(w, models(), generated_at=AT)))["orders"]["read_iops"] == pytest.approx(200.0,
                                                                                                             rel=1e-3)


def test_files_of_unknown_placement_stay_as_reported_and_are_counted_in_a_note() -> None:
    lvm = AreaSpec("lost", size_gb=5, read_iops=500, placement_known=False, reason="LVM")
    w = on_partitions([HOT, lvm], {"orders": "sda3"}, [stat("sda3", 100.0, mib(100))])
    assert w.layout is not None
    locs = tuple(replace(loc, partition=None, disk=None) if "/lost/" in loc.path else loc for loc in w.layout.locations)
    w = replace(w, layout=replace(w.layout, locations=locs), rates=(*w.rates, replace(
        w.rates[0], file_id="nowhere", path="/elsewhere/x", tablespace="nowhere", read_iops=7.0, size_bytes=GB)))
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    got = rows(report)
    assert got["lost"]["read_iops"] == pytest.approx(500.0) and got["lost"]["disk_read_share"] is None
    assert got["nowhere"]["read_iops"] == pytest.approx(7.0)
    assert got["orders"]["read_iops"] == pytest.approx(100.0, rel=1e-3)
    assert any(n.startswith("2 files (507.0 reads/s) have no device counters") for n in report.warnings)


def test_bigger_kernel_requests_do_not_turn_random_lookups_into_a_scan() -> None:
    lookups = AreaSpec("orders", size_gb=20, read_iops=2000, random_share=None, zone=(0.65, 0.70))
    # readahead: a quarter as many requests as buffer misses, 1.2 times their bytes (capped at 1)
    w = on_partitions([lookups], {"orders": "sda3"}, [stat("sda3", 500.0, mib(2000) * 1.2)])
    raw = advise(AdviceRequest(replace(w, diskstats=()), models(), generated_at=AT))
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    assert rows(raw)["orders"]["area_class"] == rows(report)["orders"]["area_class"] == "random-read"
    assert rows(report)["orders"]["read_iops"] == pytest.approx(500.0, rel=1e-3)
    assert rows(report)["orders"]["read_mb_s"] == pytest.approx(mib(2000), rel=1e-3)


def test_a_scan_sharing_a_partition_with_lookups_does_not_lend_them_its_merge_factor() -> None:
    """Kernel calibration per area: 78 random lookups/s keep their count beside a scan merged 16:1.

    One factor for the partition (181.6 kernel reads / 1,722 database blocks) made the lookups
    8.2 IOPS, a share of 4.5 % where the disk served them 43 % of its requests.
    """
    lookups = AreaSpec("orders", size_gb=20, read_iops=78, read_kb=8, random_share=1.0, zone=(0.65, 0.70))
    scan = AreaSpec("facts", size_gb=40, read_iops=1644, read_kb=8, random_share=0.0, zone=(0.71, 0.75))
    merged = 1644 * 8 / 127  # the scan's 8 KiB blocks reached the disk as 127 KiB requests
    w = on_partitions([lookups, scan], {"orders": "sda3", "facts": "sda3"},
                      [stat("sda3", 78 + merged, mib(1644) + mib(78))])
    got = rows(advise(AdviceRequest(w, models(), generated_at=AT)))
    assert got["orders"]["read_iops"] == pytest.approx(78.0, rel=1e-3)
    assert got["facts"]["read_iops"] == pytest.approx(merged, rel=1e-3)
    assert got["facts"]["area_class"] == "scan" and got["orders"]["area_class"] == "random-read"
    device = next(d for d in calibrate_reads(w).devices if d.device == "sda3")
    assert device.by_pattern and device.random_iops_factor == pytest.approx(1.0)
    assert device.sequential_request_kib == pytest.approx(mib(1644) * 1024 / merged, rel=1e-3)
    # the same partition without the pattern (no single-block share known): one factor, as before
    blind = replace(w, rates=tuple(replace(r, random_share=None) for r in w.rates))
    assert not next(d for d in calibrate_reads(blind).devices if d.device == "sda3").by_pattern


def test_cached_bytes_scale_both_patterns_alike_and_never_below_the_largest_request() -> None:
    """Half the bytes served by the page cache: the lookups lose half; the scan's requests follow its bytes."""
    lookups = AreaSpec("orders", size_gb=20, read_iops=100, read_kb=8, random_share=1.0, zone=(0.65, 0.70))
    scan = AreaSpec("facts", size_gb=40, read_iops=1000, read_kb=8, random_share=0.0, zone=(0.71, 0.75))
    w = on_partitions([lookups, scan], {"orders": "sda3", "facts": "sda3"},
                      [stat("sda3", 50.0, (mib(1000) + mib(100)) / 2)])
    got = rows(advise(AdviceRequest(w, models(), generated_at=AT)))
    # the kernel's 50 requests are all the lookups' half: the scan still moved its bytes, so it gets at
    # least one request per MAX_MERGED_REQUEST_KIB and the lookups the rest
    assert got["facts"]["read_iops"] >= (mib(1000) / 2) * 1000 / 1024 * 0.99
    assert got["orders"]["read_iops"] + got["facts"]["read_iops"] == pytest.approx(50.0, rel=1e-3)
    assert got["orders"]["read_iops"] <= 50.0


def test_temp_alone_on_a_partition_takes_the_kernels_reads_and_write_requests() -> None:
    """340.9 temp 'IOPS' of 8 KiB were 10.7 writes/s of 255 KiB and 3.8 reads/s the database never counts."""
    temp = AreaSpec("temp", kind="temp", size_gb=10, write_iops=340.9, write_kb=8, random_share=None,
                    zone=(0.31, 0.35))
    w = on_partitions([HOT, temp], {"orders": "sda3", "temp": "sda2"},
                      [stat("sda3", 2000.0, mib(2000)), replace(stat("sda2", 3.8, 0.39), w_s=10.7,
                                                                 write_mb_s=mib(340.9))])
    report = advise(AdviceRequest(w, models(), generated_at=AT))
    got = rows(report)["temp"]
    assert got["write_iops"] == pytest.approx(10.7, rel=1e-3)
    assert got["read_iops"] == pytest.approx(3.8, rel=1e-3) and got["read_mb_s"] == pytest.approx(0.39, rel=1e-3)
    assert got["mb_s"] == pytest.approx(mib(340.9) + 0.39, rel=1e-3)  # the bytes written stay the database's
    assert any(n.startswith("Temp on sda2") for n in report.warnings)
    # temp sharing a partition with a tablespace keeps the database's figures (whose requests are whose is unknown)
    shared = on_partitions([HOT, temp], {"orders": "sda3", "temp": "sda3"},
                           [replace(stat("sda3", 2000.0, mib(2000)), w_s=10.7, write_mb_s=mib(340.9))])
    assert rows(advise(AdviceRequest(shared, models(), generated_at=AT)))["temp"]["write_iops"] == pytest.approx(340.9)


def test_the_disk_map_shows_the_areas_tables_figures() -> None:
    """The map of a report and its Areas table: the same calibrated IO and the same shares (not 1.6k vs 104)."""
    from advisor.engine.audit_map import build_audit_maps

    w = on_partitions([HOT, WAL], {"orders": "sda3", "WAL": "sda1"},
                      [stat("sda3", 100.0, mib(100)), stat("sda1", 3.0, 0.05), stat("sda", 103.0, 0.1, False, 1.0)])
    table = rows(advise(AdviceRequest(w, models(), generated_at=AT)))
    mapped = {r.label: r for m in build_audit_maps(w).maps for r in m.areas}
    orders = next(r for label, r in mapped.items() if "orders" in label)
    assert orders.io == pytest.approx(table["orders"]["iops"], rel=1e-3)
    assert orders.share == pytest.approx(table["orders"]["io_share"], abs=1e-3)
    lost = {r.label: r for m in build_audit_maps(w, cache_kept=False).maps for r in m.areas}
    assert next(r for label, r in lost.items() if "orders" in label).io == pytest.approx(2000.0)


def test_data_page_writes_of_the_one_area_on_a_partition_are_the_kernels_writes_there() -> None:
    """PostgreSQL counts no writes per relation: the ledger's 37 % of requests were invisible to the plan."""
    ledger = AreaSpec("ledger", size_gb=20, read_iops=15.6, zone=(0.65, 0.70))
    w = on_partitions([ledger, WAL], {"ledger": "sda3", "WAL": "sda1"},
                      [replace(stat("sda3", 15.6, mib(15.6)), w_s=9.2, write_mb_s=0.3), stat("sda1", 0.0, 0.0)])
    w = replace(w, rates=tuple(replace(r, write_iops=None, write_mb_s=None) if r.kind != "wal" else r
                               for r in w.rates))
    assert rows(advise(AdviceRequest(w, models(),
                                     generated_at=AT)))["ledger"]["write_iops"] == 0.0  # unknown: no server figure
    counted = replace(w, relation_write_mb_s=0.5)  # pg_stat_io: the server wrote data pages
    report = advise(AdviceRequest(counted, models(), generated_at=AT))
    assert rows(report)["ledger"]["write_iops"] == pytest.approx(9.2, rel=1e-3)
    assert any(n.startswith("sda3: the kernel's 9.2 writes/s") and "ledger" in n for n in report.warnings)
    # never more bytes than the server wrote (the kernel also counts the journal and other processes)
    capped = rows(advise(AdviceRequest(replace(w, relation_write_mb_s=0.15), models(), generated_at=AT)))["ledger"]
    assert capped["write_iops"] == pytest.approx(4.6, rel=1e-3)
    # a partition writing less than once a second: its file system's journal, given to no area
    quiet = replace(counted, diskstats=(replace(stat("sda3", 15.6, mib(15.6)), w_s=0.4, write_mb_s=0.01),
                                        stat("sda1", 0.0, 0.0)))
    assert rows(advise(AdviceRequest(quiet, models(), generated_at=AT)))["ledger"]["write_iops"] == 0.0
