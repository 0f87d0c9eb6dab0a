"""The pure disk-map builder behind `advisor audit`, and audit's refusal of bad input."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.engine.audit_map import audit_workload, build_audit, build_audit_maps
from advisor.engine.disk_models import load_models
from advisor.errors import BadInput, StatsReset
from advisor.model import (
    FileIO,
    Snapshot,
    Workload,
    save,
)
from advisor.rates.workload import diff, since_start
from advisor.render.diskmap import render_disk_maps
from tests.helpers.cli import run_advisor
from tests.helpers.snapshots import SERVER, file_io, two_disk_layout

GIB = 1 << 30


FILES = [
    file_io("1", "/fast/a", "data", "fast", 600, None),
    file_io("2", "/fast/b", "index", "fast", 300, None),
    file_io("3", "/slow/c", "data", "slow", 100, None),
    file_io("w", "/wal", "wal", "", 0, 1000),
    file_io("t", "/tmpfs/t", "temp", "pg_default", 0, 0),
    file_io("x", "/split/x", "data", "split", 1, None),
    file_io("y", "/split/y", "data", "split", 1, None),
]




def _snapshot(taken_at: str, files: list[FileIO]) -> Snapshot:
    return Snapshot(SERVER, taken_at, tuple(files), layout=two_disk_layout())


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
    before = [file_io("1", "/fast/a", "data", "fast", 100, None), file_io("w", "/wal", "wal", "", 50, 100),
              file_io("t", "/tmpfs/t", "temp", "pg_default", 0, 0), file_io("n", "/slow/n", "temp", "late", 0, 0)]
    after = [file_io("1", "/fast/a", "data", "fast", 400, None), file_io("w", "/wal", "wal", "", 10, 20),
             file_io("t", "/tmpfs/t", "temp", "pg_default", 5, 5), file_io("n2", "/slow/c", "temp", "new", 9, 9)]
    workload = diff(_snapshot("2026-01-01T01:00:00+00:00", before), _snapshot("2026-01-01T01:00:10+00:00", after),
                    allow_reset=True)
    # the two layouts carry the same diskstats: the kernel saw no reads, and the map (as the report's
    # tables) would scale the database's 30 reads/s to none; without diskstats they are kept as reported
    assert build_audit_maps(workload).maps[0].areas[0].io == 0.0
    result = build_audit_maps(replace(workload, diskstats=()))
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


def test_the_engine_chooses_since_start_for_one_snapshot_and_diff_for_two() -> None:
    one = _snapshot("2026-01-01T01:00:00+00:00", FILES)
    alone = audit_workload([one])
    assert alone.source == "snapshot" and alone.interval_s == 3600.0  # since the server started
    later = _snapshot("2026-01-01T01:00:10+00:00", [replace(f, reads=f.reads * 2) for f in FILES])
    pair = audit_workload([one, later])
    assert pair.source == "snapshots" and pair.interval_s == 10.0
    reset = replace(later, server=replace(SERVER, started_at="2026-01-01T01:00:05+00:00"))
    assert any("restart" in w for w in audit_workload([one, reset]).warnings)  # a reset is a warning
    with pytest.raises(StatsReset, match="identity"):
        audit_workload([one, replace(later, server=replace(SERVER, identity="43"))])
    with pytest.raises(BadInput, match="no host layout"):
        audit_workload([replace(one, layout=None)])
    report = build_audit([one, later], load_models(None, None, None))
    assert report.maps.heat_unit == "IO/s" and report.taken_at == later.taken_at



def test_audit_refuses_bad_input(tmp_path: Path) -> None:
    assert run_advisor("audit").returncode == 6
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"document": "snapshot", "format_version": 1, "server": ')
    done = run_advisor("audit", "--snapshot", str(corrupt))
    assert done.returncode == 6 and "Traceback" not in done.stderr
    server = SERVER
    no_layout = tmp_path / "remote.json"
    save(Snapshot(server, "2026-01-01T00:00:00+00:00", ()), no_layout)
    done = run_advisor("audit", "--snapshot", str(no_layout))
    assert done.returncode == 6 and "no host layout" in done.stderr
    with_layout = tmp_path / "local.json"
    save(Snapshot(server, "2026-01-01T00:00:00+00:00", tuple(FILES), layout=two_disk_layout()), with_layout)
    done = run_advisor("audit", "--snapshot", str(with_layout), str(with_layout))
    assert done.returncode == 6 and "not later" in done.stderr
    done = run_advisor("audit", "--snapshot", str(with_layout), "--format", "json")
    assert done.returncode == 0 and '"tablespace fast"' in done.stdout
    document = json.loads(done.stdout)
    assert (document["document"], document["format_version"]) == ("audit", 1)
    other = tmp_path / "other.json"
    save(replace(_snapshot("2026-01-01T02:00:00+00:00", FILES), server=replace(SERVER, identity="43")), other)
    done = run_advisor("audit", "--snapshot", str(with_layout), str(other))
    assert done.returncode == 9 and "rule identity" in done.stderr, "another server is never a reset"
