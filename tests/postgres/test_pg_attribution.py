"""Reads of a table in one tablespace are attributed to that tablespace, not another one."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import VERSIONS_FOR_TESTS, running_postgres
from tests.helpers.pg_checks import EXERCISED

pytestmark = [pytest.mark.pg, pytest.mark.slow]


@pytest.mark.parametrize("version", VERSIONS_FOR_TESTS, ids=lambda v: f"pg{v}")
def test_reads_land_in_their_tablespace(version: int, tmp_path: Path) -> None:
    spaces = {"fast": tmp_path / "disk_a", "slow": tmp_path / "disk_b"}
    with running_postgres(version, tmp_path, tablespaces=spaces) as server:
        EXERCISED.add(version)
        server.psql(
            "CREATE TABLE big (id int, pad text) TABLESPACE fast;"
            "INSERT INTO big SELECT g, repeat('p', 900) FROM generate_series(1, 6000) g;"
            "CREATE INDEX big_id ON big (id) TABLESPACE slow;"
            "CREATE TABLE cold (id int) TABLESPACE slow; INSERT INTO cold SELECT generate_series(1, 5000);"
            "CHECKPOINT;"
        )
        heap_blocks = int(server.psql("SELECT pg_relation_size('big') / 8192"))
        server.restart("fast")  # empties shared_buffers; counters survive a clean restart
        a, b = tmp_path / "a.json", tmp_path / "b.json"
        assert run_advisor("collect", "--dsn", server.dsn, "-o", str(a)).returncode == 0
        server.psql("SET enable_indexscan = off; SET enable_bitmapscan = off; SELECT count(pad) FROM big;")
        assert run_advisor("collect", "--dsn", server.dsn, "-o", str(b)).returncode == 0
        done = run_advisor("workload", str(a), str(b), "--format", "json")
        assert done.returncode == 0, done.stderr
    workload = json.loads(done.stdout)
    reads: dict[str, float] = defaultdict(float)
    for rate in workload["rates"]:
        blocks = rate["blocks_read_per_s"] or rate["read_iops"]  # 18 combines a scan's blocks into fewer IOs
        reads[rate["tablespace"]] += blocks * workload["interval_s"]
    assert heap_blocks > 500
    assert reads["fast"] >= 0.9 * heap_blocks, reads
    assert reads["fast"] <= heap_blocks + 5, reads
    # The planner reads the btree metapage of big_id (in slow) once; nothing else touches slow.
    assert reads["slow"] <= 2, reads
    cold = [r for r in workload["rates"] if r["name"] == "public.cold"]
    assert len(cold) == 1 and cold[0]["read_iops"] == 0
    big = [r for r in workload["rates"] if r["name"] == "public.big"]
    assert len(big) == 1 and big[0]["write_iops"] is None
    # a sequential scan (pg_stat_io bulkread, 16+): 8 KiB blocks before 18, combined IOs on 18
    if version >= 16:
        random_ios = big[0]["random_share"] * big[0]["read_iops"]  # a random IO reads one block
        assert random_ios < 0.1 * (big[0]["blocks_read_per_s"] or big[0]["read_iops"]), big[0]
        assert big[0]["random_share"] < 0.5  # classified a scan
    else:
        assert big[0]["random_share"] is None  # no pg_stat_io: the pattern is unknown
    assert big[0]["mean_read_kb"] == 8.0 if version < 18 else big[0]["mean_read_kb"] >= 32.0
