"""IO share of DB time from the cumulative counters of two snapshots collected separately."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import VERSIONS_FOR_TESTS, PgServer, running_postgres
from tests.helpers.pg_checks import EXERCISED

pytestmark = pytest.mark.pg

TIMED = {"track_io_timing": "on", "track_wal_io_timing": "on"}
SLEEP_S = 1.2


def _collect(server: PgServer, path: Path) -> None:
    done = run_advisor("collect", "--dsn", server.dsn, "--output", str(path))
    assert done.returncode == 0, done.stderr


def _sleep_and_write(server: PgServer) -> None:
    """A session that is active for SLEEP_S seconds without IO, then writes (WAL).

    It disconnects before snapshot B: a closing session flushes its active time.
    """
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(f"SELECT pg_sleep({SLEEP_S})")
        conn.execute("CREATE TABLE IF NOT EXISTS w (x int); INSERT INTO w SELECT generate_series(1, 20000)")


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS_FOR_TESTS, ids=lambda v: f"pg{v}")
def test_report_from_two_saved_snapshots_gives_the_share_from_counters(version: int, tmp_path: Path) -> None:
    with running_postgres(version, tmp_path, settings=TIMED) as server:
        EXERCISED.add(version)
        first, second = tmp_path / "a.json", tmp_path / "b.json"
        _collect(server, first)
        _sleep_and_write(server)
        _collect(server, second)
        workload = run_advisor("workload", str(first), str(second), "--format", "json")
        report = run_advisor("report", "--snapshot", str(first), str(second), "--preset", "class-7200-desktop",
                             "--format", "json")
        text = run_advisor("report", "--snapshot", str(first), str(second), "--preset", "class-7200-desktop")
    assert workload.returncode == 0, workload.stderr
    wait = json.loads(workload.stdout)["wait"]
    assert wait["source"] == "counters"
    # the sleeping session alone was active SLEEP_S seconds; the collector's own queries add a little
    assert SLEEP_S <= wait["db_time_s"] < SLEEP_S + 5
    assert set(wait["io_time_parts_s"]) == {"data reads", "data writes", "WAL write+sync"}
    assert wait["io_wait_s"] == pytest.approx(sum(wait["io_time_parts_s"].values()), abs=0.01)
    # sleeping is not IO: most of the active time was not spent in IO
    assert wait["counter_io_wait_share"] == wait["io_wait_share"] < 0.5
    assert report.returncode == 0, report.stderr
    document = json.loads(report.stdout)
    assert document["io_wait_share"] == pytest.approx(wait["io_wait_share"])
    assert any("IO share of DB time from counters" in w for w in document["warnings"])
    assert text.returncode == 0, text.stderr
    assert "IO share of DB time from counters" in text.stdout + text.stderr


def test_timing_off_names_the_setting_and_falls_back(shared_server: PgServer, tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    _collect(shared_server, first)
    _collect(shared_server, second)
    done = run_advisor("workload", str(first), str(second))
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())  # lines wrap at the output's width
    assert "track_io_timing is off" in said
    assert "ALTER SYSTEM SET track_io_timing = on" in said
    wait = json.loads(run_advisor("workload", str(first), str(second), "--format", "json").stdout)["wait"]
    assert wait["counter_io_wait_share"] is None and wait["source"] != "counters"
