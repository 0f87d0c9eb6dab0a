"""A plan that moves one hot relation alone runs on a real server and the relation moves.

Tablespace ``big`` holds a cold table (never read) and a hot one with its primary key. The
hot table is larger than the 16 MB of shared buffers, so every sequential scan misses in
them (the bulk-read ring): its misses are counted per relation. ``advisor plan`` on the
workload of two collected snapshots places the hot table with its index alone, and its
postgres_objects.sql, run with psql, leaves the hot table and its index in the new
tablespace (their relfilenode files are under its directory) and the cold table where it was.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from advisor.demo.embedded import owned_dir
from tests.helpers.cli import run_advisor
from tests.helpers.pg import available_versions, running_postgres
from tests.helpers.pg_checks import EXERCISED

pytestmark = [pytest.mark.pg, pytest.mark.slow]


def test_plan_moves_one_hot_relation_alone_and_it_moves(tmp_path: Path) -> None:
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries on this machine")
    version = max(versions)
    # the reads must reach the disk: the plan counts only what the kernel saw read (calibration),
    # and a table just written sits in the page cache (debug_io_direct exists from 16 on)
    settings = {"debug_io_direct": "data"} if version >= 16 else None
    with running_postgres(version, tmp_path, tablespaces={"big": tmp_path / "ts_big"}, settings=settings) as server:
        EXERCISED.add(version)
        server.psql(
            # autovacuum off: its reads of either table in the interval are not what the test measures
            "CREATE TABLE cold (id int, pad text) WITH (autovacuum_enabled = off) TABLESPACE big;"
            "INSERT INTO cold SELECT g, repeat('c', 400) FROM generate_series(1, 120000) g;"
            "CREATE TABLE hot (id int PRIMARY KEY USING INDEX TABLESPACE big, pad text) "
            "WITH (autovacuum_enabled = off) TABLESPACE big;"
            "INSERT INTO hot SELECT g, repeat('h', 200) FROM generate_series(1, 90000) g;"
            "VACUUM ANALYZE hot; VACUUM ANALYZE cold; CHECKPOINT;"
        )
        first, second, load = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "w.json"
        assert run_advisor("collect", "--dsn", server.dsn, "--output", str(first)).returncode == 0
        server.psql("SET enable_indexscan = off; SET enable_bitmapscan = off;"
                    + "SELECT count(*) FROM hot WHERE pad <> '';" * 6
                    + "SET enable_seqscan = off; SELECT count(*) FROM hot WHERE id % 7 = 0 AND id > 0;")
        assert run_advisor("collect", "--dsn", server.dsn, "--output", str(second)).returncode == 0
        done = run_advisor("workload", str(first), str(second), "--output", str(load), "--format", "json")
        assert done.returncode == 0, done.stderr
        scripts, mounts = tmp_path / "scripts", tmp_path / "mnt"
        plan = run_advisor("plan", "--workload", str(load), "--preset", "class-7200-desktop", "--force",
                           "--mount-root", str(mounts), "--scripts", str(scripts), "--format", "json",
                           "--min-gain", "0")
        assert plan.returncode == 0, plan.stderr
        placed = {p["area"] for p in json.loads(plan.stdout)["plan"]["placements"]}
        assert "postgres:public.hot" in placed and "big" in placed
        sql = (scripts / "postgres_objects.sql").read_text()
        for location in re.findall(r"LOCATION '([^']+)'", sql):
            owned_dir(Path(location))  # the planned partition's directory, as the DBA prepares it
        server.psql(sql)
        rows = server.psql(
            "SELECT c.relname || '|' || COALESCE(t.spcname, 'pg_default') || '|' || pg_relation_filepath(c.oid) "
            "FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace "
            "WHERE c.relname IN ('hot', 'hot_pkey', 'cold') ORDER BY 1"
        ).splitlines()
    where = {name: (space, path) for name, space, path in (r.split("|") for r in rows)}
    new_space = re.search(r'SET TABLESPACE "([^"]+)"', sql)
    assert new_space is not None
    assert where["hot"][0] == where["hot_pkey"][0] == new_space.group(1)
    assert where["cold"][0] == "big"
    hot_dir = re.findall(r"LOCATION '([^']+)'", sql)[0]
    assert (Path(hot_dir).is_dir() and any(Path(hot_dir).rglob(Path(where["hot"][1]).name)))
