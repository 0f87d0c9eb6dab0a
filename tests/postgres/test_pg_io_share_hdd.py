"""The gate from counters on the emulated HDD: random reads are IO bound, cached work is not.

PostgreSQL runs on an ext4 partition of the emulated 7200 rpm disk and reads its data files
with ``debug_io_direct = data`` (O_DIRECT, as the demo does), so neither page cache answers
the reads. Three snapshots are collected separately by ``advisor collect``: random index
lookups between A and B, pure computation between B and C. ``advisor report --snapshot``
must find the first interval IO bound (share above 50 %) and the second not (below 20 %,
NOT_IO_BOUND), both from the counters alone: nobody samples pg_stat_activity meanwhile.
"""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.emulated import emulator_leaks, ext4_on_emulated_disk, require_fuse_and_loop
from tests.helpers.pg import PgServer, available_versions, running_postgres

pytestmark = [pytest.mark.alone, pytest.mark.root, pytest.mark.pg, pytest.mark.slow]

PRESET = "class-7200-desktop"
SCALE = 5.0
ROWS = 60_000  # about 14 MB of heap with the padding, against 16 MB of shared buffers read cold
LOOKUPS = 700
SETTINGS = {"track_io_timing": "on", "track_wal_io_timing": "on", "io_method": "sync"}


def _report(first: Path, second: Path) -> dict[str, object]:
    done = run_advisor("report", "--snapshot", str(first), str(second), "--preset", PRESET, "--format", "json")
    assert done.returncode == 0, done.stderr
    document: dict[str, object] = json.loads(done.stdout)
    return document


def _codes(report: dict[str, object]) -> set[str]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return {f["code"] for f in findings}


def _collect(server: PgServer, path: Path) -> None:
    done = run_advisor("collect", "--dsn", server.dsn, "--output", str(path))
    assert done.returncode == 0, done.stderr


def _run(server: PgServer, sql: str) -> None:
    """One statement in its own session; the session's close flushes its active time."""
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(sql)


def test_io_bound_and_cpu_bound_intervals_from_counters(tmp_path: Path) -> None:
    require_fuse_and_loop()
    versions = [v for v in available_versions() if v >= 16]  # debug_io_direct is 16+
    if not versions:
        pytest.skip("no PostgreSQL 16 or later on this machine")
    version = max(versions)
    settings = {k: v for k, v in SETTINGS.items() if version >= 18 or k != "io_method"}
    snaps = [tmp_path / f"{name}.json" for name in "abc"]
    with ext4_on_emulated_disk(tmp_path, PRESET, SCALE) as (_disk, mnt), running_postgres(
            version, mnt, settings=settings) as server:
        server.psql(f"CREATE TABLE t (id int PRIMARY KEY, pad text);"
                    f"INSERT INTO t SELECT g, repeat('x', 200) FROM generate_series(1, {ROWS}) g;"
                    "CHECKPOINT; ALTER SYSTEM SET debug_io_direct = 'data'")
        server.restart()
        _collect(server, snaps[0])
        _run(server, f"SELECT count((SELECT pad FROM t WHERE t.id = ids.k)) FROM (SELECT 1 + (random() * "
                     f"{ROWS - 1})::int AS k FROM generate_series(1, {LOOKUPS}) OFFSET 0) ids")
        _collect(server, snaps[1])
        _run(server, "SELECT count(DISTINCT md5(g::text)) FROM generate_series(1, 400000) g")
        _collect(server, snaps[2])
    io_bound, cpu_bound = _report(snaps[0], snaps[1]), _report(snaps[1], snaps[2])
    for report in (io_bound, cpu_bound):
        warnings = report["warnings"]
        assert isinstance(warnings, list)
        assert any("IO share of DB time from counters" in w for w in warnings), warnings
    share = io_bound["io_wait_share"]
    assert isinstance(share, float) and share > 0.5, io_bound["warnings"]
    assert "NOT_IO_BOUND" not in _codes(io_bound)
    share = cpu_bound["io_wait_share"]
    assert isinstance(share, float) and share < 0.2, cpu_bound["warnings"]
    assert "NOT_IO_BOUND" in _codes(cpu_bound)
    audit = run_advisor("audit", "--snapshot", str(snaps[1]), str(snaps[2]), "--format", "json")
    assert audit.returncode == 0, audit.stderr
    gate = [f for f in json.loads(audit.stdout)["findings"] if f["code"] == "NOT_IO_BOUND"]
    assert gate and gate[0]["evidence"]["source"] == "counters"
    assert emulator_leaks() == []
