"""Grouping files into areas, locating them, and classifying them."""

from __future__ import annotations

import subprocess
from dataclasses import replace

import pytest

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.areas import DATA_DIRECTORY, group_areas
from advisor.engine.classify import classify
from advisor.engine.planner import PlanOptions
from advisor.model import Device, FileRate, HostLayout, Location, Workload
from tests.helpers.clock import AT
from tests.helpers.workloads import DISK_BYTES, AreaSpec, models, workload


def rate(file_id: str, path: str, kind: str = "data", ts: str = "ts", read_iops: float = 10.0,
         size: int = 10**9, random_share: float | None = 0.9, read_kb: float = 8.0, write_iops: float = 0.0,
         container: str = "app") -> FileRate:
    return FileRate(file_id, path, kind, ts, container, size, read_iops, write_iops,  # type: ignore[arg-type]
                    read_iops * read_kb / 1000, write_iops * 8 / 1000, read_kb, 8.0, random_share, None, None)


def test_files_group_by_tablespace_and_kind_with_summed_rates() -> None:
    rates = [rate(f"d{i}", f"/pg/ts/{i}", ts="app", read_iops=5.0) for i in range(100)]
    rates += [rate("w", "/pg/pg_wal", kind="wal", ts="", read_iops=0.0, write_iops=50.0, random_share=None),
              rate("t", "/pg/tmp", kind="temp", ts="app", read_iops=3.0, random_share=None, read_kb=64)]
    areas = {a.name: a for a in group_areas(rates)}
    assert set(areas) == {"app (tablespace)", "app (temp)", "WAL"}
    app = areas["app (tablespace)"]
    assert app.files == 100 and app.read_iops == 500.0 and app.size_bytes == 100 * 10**9
    assert list(areas)[0] == "app (tablespace)", "hottest area first"
    assert areas["WAL"].write_iops == 50.0 and areas["WAL"].tablespace is None


def test_location_through_parent_directory_and_symlink_and_main_disk() -> None:
    layout = HostLayout("h", devices=(Device("sda", "/dev/sda", DISK_BYTES), Device("sdb", "/dev/sdb", DISK_BYTES)),
                        locations=(
                            Location("/data/ts1", "sda", "sda2", 0.5, 0.6, 1, 0, 0.55),
                            Location("/real/wal", "sdb", "sdb1", 0.0, 0.01, 1, 0, 0.005),
                            Location("/data/ts2/a", "sda", "sda1", 0.1, 0.2, 1, 3 * 10**9, 0.15),
                            Location("/data/ts2/b", "sdb", "sdb1", 0.8, 0.9, 1, 10**9, 0.85),
                        ),
                        mapped_paths={"/pg/pg_wal": "/real/wal"})
    rates = [rate("1", "/data/ts1/base/16384/1", ts="ts1"), rate("2", "/pg/pg_wal", kind="wal", ts=""),
             rate("3", "/data/ts2/a", ts="ts2", size=3 * 10**9), rate("4", "/data/ts2/b", ts="ts2", size=10**9)]
    areas = {a.name: a for a in group_areas(rates, layout)}
    assert (areas["ts1"].disk, areas["ts1"].zone_start, areas["ts1"].zone_end) == ("sda", 0.5, 0.6)
    assert (areas["WAL"].disk, areas["WAL"].partition) == ("sdb", "sdb1")
    spread = areas["ts2"]
    assert spread.disk == "sda" and spread.disks == ("sda", "sdb")
    assert (spread.zone_start, spread.zone_end) == (0.1, 0.2), "zones of the main disk only, never mixed"


def test_classes_follow_the_documented_rules() -> None:
    rates = [rate("r", "/r", ts="random", read_iops=100.0, random_share=0.9),
             rate("s", "/s", ts="scan", read_iops=50.0, random_share=0.05, read_kb=256),
             rate("w", "/w", ts="writes", read_iops=10.0, write_iops=60.0),
             rate("c", "/c", ts="cold", read_iops=0.1),
             rate("u", "/u", ts="unknown", read_iops=40.0, random_share=None, read_kb=8),
             rate("a", "/a", kind="archive", ts="", read_iops=0.0, write_iops=1.0, random_share=None)]
    classes = {c.area.name: c.cls for c in classify(group_areas(rates))}
    assert classes == {"random": "random-read", "scan": "scan", "writes": "write-heavy", "cold": "cold",
                       "unknown": "random-read", "archive": "archive"}


def test_two_disks_of_different_sizes_get_partitions_of_their_own_size() -> None:
    small = 100 * 10**9
    w = workload([AreaSpec("a", size_gb=10, read_iops=100, zone=(0.5, 0.6)),
                  AreaSpec("b", size_gb=5, read_iops=50, zone=(0.7, 0.72))],
                 devices=[Device("sda", "/dev/sda", DISK_BYTES), Device("sdb", "/dev/sdb", small)])
    layout = w.layout
    assert layout is not None
    moved = tuple(loc if "/b/" not in loc.path else Location(loc.path, "sdb", "sdb1", 0.7, 0.75, 1,
                                                                loc.size_bytes, 0.725) for loc in layout.locations)
    from dataclasses import replace

    report = advise(AdviceRequest(replace(w, layout=replace(layout, locations=moved)), models(), PlanOptions(),
                                  generated_at=AT))
    assert report.plan is not None
    parts = {p.disk: p for p in report.plan.partitions}
    assert set(parts) == {"sda", "sdb"}
    for disk, size in (("sda", DISK_BYTES), ("sdb", small)):
        part = parts[disk]
        assert abs(part.end_fraction - (part.start_bytes + part.size_bytes) / size) < 1e-9


def test_move_wal_without_data_directory_makes_the_user_name_it() -> None:
    w = workload([AreaSpec("WAL", kind="wal", size_gb=1, write_iops=50, random_share=None),
                  AreaSpec("hot", read_iops=100)], with_layout=False)
    w = replace_settings(w)
    report = advise(AdviceRequest(w, models(), PlanOptions(), generated_at=AT))
    assert report.plan is not None
    text = next(s.text for s in report.plan.scripts if s.name == "move_wal.sh")
    assert subprocess.run(["bash", "-n"], input=text, text=True).returncode == 0
    refused = subprocess.run(["sh", "-c", text], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert refused.returncode != 0 and "set PGDATA" in refused.stderr


def replace_settings(w: Workload) -> Workload:
    from dataclasses import replace

    return replace(w, server=replace(w.server, settings={}))


def test_wal_visits_per_io_come_from_its_flushes() -> None:
    wal = rate("w", "/pg/pg_wal", kind="wal", ts="", read_iops=0.0, write_iops=50.0, random_share=None)
    data = rate("d", "/pg/ts/1", ts="app", read_iops=100.0)
    areas = {a.name: a for a in group_areas([wal, data])}
    assert areas["WAL"].visits_per_io == 1.0, "no sync counter: every write is taken as a visit"
    assert areas["app"].visits_per_io is None, "data interleaves at random"
    synced = replace(wal, syncs_per_s=20.0)
    assert {a.name: a for a in group_areas([synced, data])}["WAL"].visits_per_io == 0.4
    idle = replace(wal, write_iops=0.0, write_mb_s=0.0)
    assert {a.name: a for a in group_areas([idle, data])}["WAL"].visits_per_io is None


def _rel(file_id: str, tablespace: str, size: int, read_iops: float) -> FileRate:
    return FileRate(file_id=file_id, path=f"/pg/{file_id}", kind="data", tablespace=tablespace,
                    container=file_id.split("/")[0], size_bytes=size, read_iops=read_iops, write_iops=None,
                    read_mb_s=read_iops / 128, write_mb_s=None, mean_read_kb=8.0, mean_write_kb=None,
                    random_share=1.0, read_latency_ms=None, write_latency_ms=None, name=f"x.{file_id}")


def test_catalogs_and_pg_global_are_one_data_directory_area_and_pg_default_keeps_user_tables() -> None:
    rates = [_rel("global/1262", "pg_global", 8192, 0.1), _rel("app/1259", "pg_default", 1 << 20, 5.0),
             _rel("app/2619", "pg_default", 1 << 21, 2.0), _rel("app/16384", "pg_default", 1 << 22, 30.0),
             _rel("app/16390", "hot", 1 << 23, 50.0)]
    areas = {a.name: a for a in group_areas(rates)}
    assert set(areas) == {DATA_DIRECTORY, "pg_default", "hot"}
    datadir = areas[DATA_DIRECTORY]
    assert datadir.size_bytes == 8192 + (1 << 20) + (1 << 21) and datadir.read_iops == pytest.approx(7.1)
    assert datadir.tablespace == "pg_global"
    assert areas["pg_default"].size_bytes == 1 << 22 and areas["pg_default"].read_iops == 30.0


def test_a_pg_default_holding_only_catalogs_writes_no_move() -> None:
    """Its IO is catalog reads, which no ALTER ... ALL IN TABLESPACE moves: no empty move, no area."""
    areas = group_areas([_rel("app/1259", "pg_default", 1 << 20, 5.0), _rel("app/16390", "hot", 1 << 23, 50.0)])
    assert "pg_default" not in {a.name for a in areas}


def test_temp_is_planned_for_what_the_interval_wrote_not_the_files_present() -> None:
    """No temp file exists at the snapshot (size 0), yet 2 MiB/s went to temp files: the partition holds it."""
    w = workload([AreaSpec("hot", size_gb=1, read_iops=200),
                  AreaSpec("temp", kind="temp", size_gb=0, write_iops=256, write_kb=8, random_share=None)])
    report = advise(AdviceRequest(w, models(), PlanOptions(force=True), generated_at=AT))
    assert report.plan is not None
    written = int(256 * 8 * 1024 * w.interval_s)
    temp = next(p for p in report.plan.partitions if "temp" in p.areas)
    assert temp.size_bytes >= written, (temp.size_bytes, written)
    assert any(n.startswith("temp: sized for") for n in report.plan.notes), report.plan.notes


def test_temp_sampled_above_its_counter_is_planned_for_the_high_water_mark() -> None:
    """The counters credit the temp bytes elsewhere (nothing written here), the sampled directory held 3 GB."""
    from dataclasses import replace

    w = workload([AreaSpec("hot", size_gb=1, read_iops=200),
                  AreaSpec("temp", kind="temp", size_gb=0, read_iops=1, random_share=None, path="/db/temp")])
    w = replace(w, temp_high_water_bytes={"/db/temp/f0": 3 * 10**9})
    report = advise(AdviceRequest(w, models(), PlanOptions(force=True), generated_at=AT))
    assert report.plan is not None
    temp = next(p for p in report.plan.partitions if "temp" in p.areas)
    assert temp.size_bytes >= 3 * 10**9, temp.size_bytes
    note = next(n for n in report.plan.notes if n.startswith("temp: sized for"))
    assert "high-water mark" in note and "no temp bytes were counted" in note


def test_temp_counter_above_the_mark_sizes_it_and_the_mark_is_named() -> None:
    from dataclasses import replace

    w = workload([AreaSpec("hot", size_gb=1, read_iops=200),
                  AreaSpec("temp", kind="temp", size_gb=0, write_iops=256, write_kb=8, random_share=None)])
    without = advise(AdviceRequest(w, models(), PlanOptions(force=True), generated_at=AT))
    assert without.plan is not None
    assert any("no high-water mark was sampled" in n for n in without.plan.notes), without.plan.notes
    marked = advise(AdviceRequest(replace(w, temp_high_water_bytes={"/db/temp/f0": 1 << 20}), models(),
                                  PlanOptions(force=True), generated_at=AT))
    assert marked.plan is not None
    assert any("the high-water mark sampled was 1.0 MiB" in n for n in marked.plan.notes), marked.plan.notes
    sizes = [next(p.size_bytes for p in r.plan.partitions if "temp" in p.areas) for r in (without, marked)
             if r.plan is not None]
    assert sizes[0] == sizes[1]  # the counter's bound is the larger: the mark changes nothing
