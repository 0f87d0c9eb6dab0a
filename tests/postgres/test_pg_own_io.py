"""The collector's own catalog reads are not workload: two collects with nothing running between
them show no IO, on a server whose catalogs are cold (just restarted), while the raw counters
moved; a real workload's figures are what its counters say. Real servers, PostgreSQL 15 and 18
(and 16/17 where their binaries are present)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import msgspec
import pytest

from advisor.model import Snapshot, load_snapshot
from advisor.rates.patterns import scans_between
from advisor.rates.workload import diff
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, available_versions, running_postgres

pytestmark = pytest.mark.pg

VERSIONS = sorted(v for v in available_versions() if v >= 15)


def collect(server: PgServer, out: Path) -> Snapshot:
    done = run_advisor("collect", "--dsn", server.dsn, "-o", str(out))
    assert done.returncode in (0, 4), done.stderr
    return load_snapshot(out)


def raw_reads(a: Snapshot, b: Snapshot) -> dict[str, int]:
    before = {f.file_id: f.reads for f in a.files}
    return {f.file_id: f.reads - before.get(f.file_id, 0) for f in b.files if f.reads != before.get(f.file_id, 0)}


STARTUP_CATALOGS = {"pg_catalog.pg_authid", "pg_catalog.pg_authid_oid_index", "pg_catalog.pg_authid_rolname_index",
                    "pg_catalog.pg_database", "pg_catalog.pg_database_datname_index",
                    "pg_catalog.pg_database_oid_index", "pg_catalog.pg_am"}
"""Catalogs a new connection reads or scans while it starts (authentication, finding its database,
its access methods): sent before its first query, so the collector cannot see them as its own
(own_io.py)."""


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"pg{v}")
def test_back_to_back_collects_show_no_catalog_io_as_workload(version: int, tmp_path: Path) -> None:
    with running_postgres(version, tmp_path) as server:
        server.psql("CREATE DATABASE app2; CREATE TABLE t (id int, body text); "
                    "INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 50000) g;")
        server.restart()  # the catalogs are read from disk again by whoever touches them first
        a = collect(server, tmp_path / "a.json")
        b = collect(server, tmp_path / "b.json")
        c = collect(server, tmp_path / "c.json")
    moved = raw_reads(a, b)
    assert sum(moved.values()) > 100, "the collector's first reads of cold catalogs must show in the raw counters"
    assert any(f.collector_reads for f in a.files)
    names = {f.file_id: f.name for f in b.files}
    cold = diff(a, b)
    left = {names[r.file_id]: round(r.read_iops * cold.interval_s) for r in cold.rates if r.read_iops}
    # of the collector's reads on cold catalogs, only those of its connections' start are left (a few blocks)
    assert set(left) <= STARTUP_CATALOGS and sum(left.values()) <= 8, left
    warm = diff(b, c)  # the catalogs cached: nothing at all
    assert [(r.name, r.read_iops) for r in warm.rates if r.read_iops] == []
    for first, second in ((a, b), (b, c)):  # the collector's catalog scans are its own
        assert {names[file_id] for file_id in scans_between(first, second)} <= STARTUP_CATALOGS
    assert raw_scans(b, c) > 10  # ... though the raw counters moved


def raw_scans(a: Snapshot, b: Snapshot) -> int:
    before = {f.file_id: f.scans or 0 for f in a.files}
    return sum((f.scans or 0) - before.get(f.file_id, 0) for f in b.files if f.kind == "data")


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"pg{v}")
def test_a_real_workloads_reads_are_its_counters(version: int, tmp_path: Path) -> None:
    with running_postgres(version, tmp_path, settings={"shared_buffers": "16MB"}) as server:
        server.psql("CREATE TABLE t (id int, body text); "
                    "INSERT INTO t SELECT g, repeat(md5(g::text), 8) FROM generate_series(1, 200000) g;")
        oid = server.psql("SELECT 't'::regclass::oid")
        server.restart()
        a = collect(server, tmp_path / "a.json")
        # larger than shared_buffers: reads; one backend, so two scans
        server.psql("SET max_parallel_workers_per_gather = 0; SELECT count(*) FROM t; SELECT count(*) FROM t;")
        b = collect(server, tmp_path / "b.json")
    table = f"postgres/{oid}"
    assert raw_reads(a, b)[table] > 2000  # 2 x ~7,000 blocks, most of them missed (a ring buffer for a large scan)
    assert not any(f.collector_reads for f in a.files if f.file_id == table)
    # the same workload as if the collector had recorded nothing of its own: the table's reads are equal;
    # only the share of them that were scans is truer (the collector's catalog scans no longer take a part)
    unrecorded = replace(a, files=tuple(msgspec.structs.replace(f, collector_reads=0, collector_scans=0)
                                        for f in a.files))
    (mine,) = [r for r in diff(a, b).rates if r.file_id == table]
    (plain,) = [r for r in diff(unrecorded, b).rates if r.file_id == table]
    assert mine.read_mb_s == plain.read_mb_s > 0 and mine.blocks_read_per_s == plain.blocks_read_per_s
    if version < 16:  # no pg_stat_io: nothing to share out, the rates are the same in every field
        assert mine == plain
    else:
        assert mine.random_share is not None and plain.random_share is not None
        assert mine.random_share <= plain.random_share
    assert scans_between(a, b)[table] == 2
