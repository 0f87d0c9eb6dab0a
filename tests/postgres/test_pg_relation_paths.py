"""Relation paths built by the collector are the server's own (pg_relation_filepath).

The collector computes each path from relfilenode, tablespace and database oid instead of
asking pg_relation_filepath per relation (which cost two thirds of the query); these tests
hold it to the server's answer for every relation of every database, through tablespace
symlinks, for mapped catalogs, shared catalogs and in-place tablespaces.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import collect_context

pytestmark = pytest.mark.pg

ALL_RELATIONS = (
    "SELECT CASE WHEN c.relisshared THEN 'global' ELSE current_database() END || '/' || c.oid || '|' "
    "|| pg_relation_filepath(c.oid) FROM pg_class c "
    "WHERE c.relkind IN ('r', 't', 'm', 'i', 'S') AND c.relpersistence <> 't'"
)


def _server_paths(server: PgServer, dbname: str) -> dict[str, str]:
    """file_id → real path of the first segment, as the server names it."""
    out = {}
    for line in server.psql(ALL_RELATIONS, dbname=dbname).splitlines():
        file_id, _, filepath = line.partition("|")
        out[file_id] = os.path.realpath(server.datadir / filepath)
    return out


@pytest.fixture
def in_place_tablespace(shared_server: PgServer) -> Iterator[str]:
    """A table in an in-place tablespace (LOCATION '' under allow_in_place_tablespaces, 15+)."""
    server = shared_server
    server.psql("SET allow_in_place_tablespaces = on; CREATE TABLESPACE inplace LOCATION '';")
    try:
        server.psql("CREATE TABLE in_place (id int) TABLESPACE inplace; INSERT INTO in_place VALUES (1);")
        yield "inplace"
    finally:
        server.psql("DROP TABLE IF EXISTS in_place;")
        server.psql("DROP TABLESPACE IF EXISTS inplace;")


def test_every_relation_path_is_the_servers_own(shared_server: PgServer, in_place_tablespace: str) -> None:
    context = collect_context(shared_server)
    expected: dict[str, str] = {}
    for dbname in shared_server.psql("SELECT datname FROM pg_database WHERE datallowconn").split():
        expected.update(_server_paths(shared_server, dbname))
    relations = [f for f in context.files if f.kind in ("data", "index", "toast", "sequence")]
    assert len(relations) > 300  # catalogs of every database, shared ones once, and the test tables
    for f in relations:
        assert f.file_id in expected, f.file_id
        assert os.path.realpath(f.path) == expected[f.file_id], f.file_id
        assert os.path.isfile(f.path), f.path
    # Nothing with storage is missing: every server relation is listed unless it is empty and unread.
    listed = {f.file_id for f in relations}
    for file_id, path in expected.items():
        if file_id not in listed:
            assert os.path.getsize(path) == 0, file_id
    mapped = [f for f in relations if f.name in ("pg_catalog.pg_class", "pg_catalog.pg_database")]
    assert {f.name for f in mapped} == {"pg_catalog.pg_class", "pg_catalog.pg_database"}  # relfilenode 0
    in_place = [f for f in relations if f.name == "public.in_place"]
    assert len(in_place) == 1 and in_place[0].tablespace == in_place_tablespace
    assert os.path.realpath(in_place[0].path).startswith(os.path.realpath(shared_server.datadir / "pg_tblspc"))


def test_tablespace_view_sums_the_relation_files(shared_server: PgServer) -> None:
    context = collect_context(shared_server)
    view = {row["spcname"]: row for row in context.views["pg_tablespace"]}
    assert set(view) >= {"pg_default", "pg_global", "fast", "slow"}
    for name, row in view.items():
        files = [f for f in context.files if f.tablespace == name and f.kind in ("data", "index", "toast", "sequence")]
        assert row["relation_bytes"] == sum(f.size_bytes for f in files), name
    assert view["fast"]["relation_bytes"] > 8192 * 10  # the hot table and its TOAST
    visits = context.views["relation_visits"]
    assert {v["datname"] for v in visits} >= {"postgres", "app2"}
    assert all(v["error"] is None and isinstance(v["files_seconds"], float) for v in visits)
