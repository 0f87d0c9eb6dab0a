"""The pure disk-map builder behind `advisor audit`, and audit's refusal of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.engine.audit_map import build_audit_maps
from advisor.model import (
    Device,
    DiskStat,
    FileIO,
    HostLayout,
    Location,
    Partition,
    ServerInfo,
    Snapshot,
    Workload,
    save,
)
from advisor.rates.workload import diff, since_start
from advisor.render.diskmap import render_disk_maps

GIB = 1 << 30


def _file(file_id: str, path: str, kind: str, tablespace: str, reads: int, writes: int | None) -> FileIO:
    return FileIO(file_id, path, kind, tablespace, "db", GIB, reads, writes, reads * 8192,  # type: ignore[arg-type]
                  None if writes is None else writes * 8192)


def _layout() -> HostLayout:
    disk = Device("sdb", "/dev/sdb", 100 * GIB, model="ST4000DM004", rotational=True, transport="sata")
    other = Device("sdc", "/dev/sdc", 100 * GIB, model="WD40EFRX", rotational=True, transport="sata")
    parts = (Partition("sdb1", "sdb", 1, 1 << 20, 20 * GIB, ("/fast",), "ext4", True),
             Partition("sdb2", "sdb", 2, 20 * GIB + (1 << 20), 80 * GIB - (2 << 20), ("/slow",), "ext4", True),
             Partition("sdc1", "sdc", 1, 1 << 20, 99 * GIB, ("/arch",), "xfs", False))
    locations = (
        Location("/fast/a", "sdb", "sdb1", 0.05, 0.06, 1, GIB, 0.055),
        Location("/fast/b", "sdb", "sdb1", 0.10, 0.12, 2, GIB, 0.11),
        Location("/slow/c", "sdb", "sdb2", 0.90, 0.95, 1, GIB, 0.92),
        Location("/wal", "sdc", "sdc1", 0.30, 0.31, 4, GIB, 0.305),
        Location("/tmpfs/t", None, None, None, None, 0, 0, placement_known=False, reason="tmpfs lives in memory"),
        Location("/split/x", "sdb", "sdb1", 0.2, 0.21, 1, GIB, 0.205),
        Location("/split/y", "sdc", "sdc1", 0.5, 0.51, 1, GIB, 0.505),
    )
    stats = (DiskStat("sdb", 1000, 0, 0, 1000, 0, 0, 0), DiskStat("sdb1", 1500, 0, 0, 0, 0, 0, 0, is_partition=True),
             DiskStat("sdb2", 500, 0, 0, 0, 0, 0, 0, is_partition=True), DiskStat("sdc", 10, 0, 0, 0, 0, 0, 0))
    return HostLayout("h", (disk, other), parts, locations, stats)


FILES = [
    _file("1", "/fast/a", "data", "fast", 600, None),
    _file("2", "/fast/b", "index", "fast", 300, None),
    _file("3", "/slow/c", "data", "slow", 100, None),
    _file("w", "/wal", "wal", "", 0, 1000),
    _file("t", "/tmpfs/t", "temp", "pg_default", 0, 0),
    _file("x", "/split/x", "data", "split", 1, None),
    _file("y", "/split/y", "data", "split", 1, None),
]


SERVER = ServerInfo("postgres", "18.1", 180001, "db1", "postgres", "42", "2026-01-01T00:00:00+00:00")


def _snapshot(taken_at: str, files: list[FileIO]) -> Snapshot:
    return Snapshot(SERVER, taken_at, tuple(files), layout=_layout())


def _since_start(files: list[FileIO]) -> Workload:
    return since_start(_snapshot("2026-01-01T01:00:00+00:00", files))


def test_maps_put_areas_on_their_disk_with_union_zones_and_shares() -> None:
    result = build_audit_maps(_since_start(FILES), cumulative=True)
    sdb, sdc = result.maps
    assert [r.label for r in sdb.partitions] == ["sdb1", "sdb2"]
    assert [r.label for r in sdb.areas] == ["tablespace fast", "tablespace slow"]  # outer first
    fast = sdb.areas[0]
    assert (fast.start, fast.end, fast.io) == (0.05, 0.12, 900.0)
    assert fast.mean == pytest.approx((0.055 + 0.11) / 2)
    assert fast.share == pytest.approx(900 / 2002) and fast.heat == pytest.approx(900 / 1000)
    assert [r.label for r in sdc.areas] == ["WAL"] and sdc.areas[0].heat == 1.0
    assert sdb.partitions[0].share == pytest.approx(0.75)  # 1500 of the disk's 2000 IOs
    assert "misaligned" in sdc.partitions[0].detail
    unplaced = {r.label: r for r in result.unplaced}
    assert set(unplaced) == {"temp (pg_default)", "tablespace split"}
    assert "tmpfs" in unplaced["temp (pg_default)"].detail and "sdb, sdc" in unplaced["tablespace split"].detail
    assert result.heat_unit == "IO (cumulative)"


def test_rates_mode_and_terminal_rendering() -> None:
    before = [_file("1", "/fast/a", "data", "fast", 100, None), _file("w", "/wal", "wal", "", 50, 100),
              _file("t", "/tmpfs/t", "temp", "pg_default", 0, 0), _file("n", "/slow/n", "temp", "late", 0, 0)]
    after = [_file("1", "/fast/a", "data", "fast", 400, None), _file("w", "/wal", "wal", "", 10, 20),
             _file("t", "/tmpfs/t", "temp", "pg_default", 5, 5), _file("n2", "/slow/c", "temp", "new", 9, 9)]
    workload = diff(_snapshot("2026-01-01T01:00:00+00:00", before), _snapshot("2026-01-01T01:00:10+00:00", after),
                    allow_reset=True)
    result = build_audit_maps(workload)
    assert result.heat_unit == "IO/s" and result.maps[0].areas[0].share == pytest.approx(30 / 34)
    assert result.maps[0].partitions[0].share is None, "no disk IO counted: no partition share made up"
    ios = {row.label: row.io for disk in result.maps for row in disk.areas} | {r.label: r.io for r in result.unplaced}
    # WAL went backwards: counted from zero; a new temp file has no baseline (not rated); "n" vanished
    assert ios == {"tablespace fast": 30.0, "WAL": 3.0, "temp (pg_default)": 1.0}
    assert result.maps[0].partitions[0].io == 0.0  # no diskstats pair: no made-up partition rate
    from rich.console import Console

    console = Console(width=100, record=True, color_system=None)
    for section in render_disk_maps(result, 100):
        console.print(section)
    text = console.export_text()
    assert "sdb  100.0 GiB  ST4000DM004" in text and "tablespace fast" in text and "IO/s" in text
    assert "areas with no known disk position" in text


def _advisor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, timeout=60)


def test_audit_refuses_bad_input(tmp_path: Path) -> None:
    assert _advisor("audit").returncode == 6
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"document": "snapshot", "format_version": 1, "server": ')
    done = _advisor("audit", "--snapshot", str(corrupt))
    assert done.returncode == 6 and "Traceback" not in done.stderr
    server = SERVER
    no_layout = tmp_path / "remote.json"
    save(Snapshot(server, "2026-01-01T00:00:00+00:00", ()), no_layout)
    done = _advisor("audit", "--snapshot", str(no_layout))
    assert done.returncode == 6 and "no host layout" in done.stderr
    with_layout = tmp_path / "local.json"
    save(Snapshot(server, "2026-01-01T00:00:00+00:00", tuple(FILES), layout=_layout()), with_layout)
    done = _advisor("audit", "--snapshot", str(with_layout), str(with_layout))
    assert done.returncode == 6 and "not later" in done.stderr
    done = _advisor("audit", "--snapshot", str(with_layout), "--format", "json")
    assert done.returncode == 0 and '"tablespace fast"' in done.stdout
    document = json.loads(done.stdout)
    assert (document["document"], document["format_version"]) == ("audit", 1)
    other = tmp_path / "other.json"
    save(replace(_snapshot("2026-01-01T02:00:00+00:00", FILES), server=replace(SERVER, identity="43")), other)
    done = _advisor("audit", "--snapshot", str(with_layout), str(other))
    assert done.returncode == 9 and "rule identity" in done.stderr, "another server is never a reset"
