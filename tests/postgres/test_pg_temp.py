"""Temp bytes go to the tablespaces a database's own temp_tablespaces names (ALTER DATABASE ... SET)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import VERSIONS_FOR_TESTS, PgServer, running_postgres
from tests.helpers.pg_checks import EXERCISED

pytestmark = [pytest.mark.pg, pytest.mark.slow]

SPILL = "SET work_mem = '64kB'; SELECT count(*) FROM (SELECT g FROM generate_series(1, 200000) g ORDER BY g DESC) s;"
STATS_WAIT_S = 10.0
"""How long to wait for a finished session's counters: a backend reports them as it exits, after psql has
returned (once, in a clean-clone run, the next query still read 0 temp bytes for the second spill)."""


def _temp_bytes(server: PgServer) -> dict[str, int]:
    """Each database's temp bytes, once both have counted theirs or after STATS_WAIT_S."""
    deadline = time.monotonic() + STATS_WAIT_S
    while True:
        written = {row.split("|")[0]: int(row.split("|")[1]) for row in server.psql(
            "SELECT datname, temp_bytes FROM pg_stat_database WHERE datname IN ('reports', 'postgres')").splitlines()}
        if all(written.values()) or time.monotonic() > deadline:
            return written
        time.sleep(0.1)


@pytest.mark.parametrize("version", VERSIONS_FOR_TESTS, ids=lambda v: f"pg{v}")
def test_a_database_setting_of_temp_tablespaces_is_followed(version: int, tmp_path: Path) -> None:
    with running_postgres(version, tmp_path, tablespaces={"scratch": tmp_path / "scratch"}) as server:
        EXERCISED.add(version)
        server.psql("CREATE DATABASE reports; ALTER DATABASE reports SET temp_tablespaces = 'scratch'; "
                    "GRANT CREATE ON TABLESPACE scratch TO PUBLIC;")
        a, b = tmp_path / "a.json", tmp_path / "b.json"
        assert run_advisor("collect", "--dsn", server.dsn, "-o", str(a)).returncode == 0
        server.psql(SPILL, dbname="reports")  # spills to scratch: the database's own setting
        server.psql(SPILL)  # the postgres database has none: its default tablespace
        written = _temp_bytes(server)
        assert run_advisor("collect", "--dsn", server.dsn, "-o", str(b)).returncode == 0
        done = run_advisor("workload", str(a), str(b), "--format", "json")
        assert done.returncode == 0, done.stderr
    snap = json.loads(b.read_text())
    temp = {f["file_id"]: f for f in snap["files"] if f["kind"] == "temp"}
    assert written["reports"] > 0 and written["postgres"] > 0
    assert temp["temp/scratch"]["write_bytes"] == written["reports"]
    assert temp["temp/pg_default"]["write_bytes"] == written["postgres"]
