"""Every sql/postgres file that applies to a server runs on it and returns its row type's fields."""

from __future__ import annotations

import dataclasses

import psycopg
import pytest

from advisor.collect.sqlfiles import available, pick
from advisor.collectors.postgres.rows import DEFAULT_PARAMS, ROWS
from tests.helpers.pg import PgServer

pytestmark = pytest.mark.pg


def test_every_query_has_a_row_type() -> None:
    queries = {f.query for f in available("postgres")}
    assert queries == set(ROWS), "SQL files and row types must match one to one"


def test_columns_equal_row_fields_on_each_version(shared_server: PgServer) -> None:
    major = shared_server.version
    ran = []
    with psycopg.connect(shared_server.dsn, autocommit=True) as conn:
        for query, row_type in sorted(ROWS.items()):
            variants = [f for f in available("postgres") if f.query == query and f.min_major <= major]
            if not variants:
                continue  # e.g. io before 16
            sql = pick("postgres", query, major)
            with conn.cursor() as cur:
                cur.execute(sql.text.encode(), dict(DEFAULT_PARAMS.get(query, {})))
                columns = [d.name for d in cur.description or ()]
                rows = cur.fetchall()
            fields = [f.name for f in dataclasses.fields(row_type)]
            assert columns == fields, f"{sql.path}: columns differ from {row_type.__name__}"
            if query in ("server", "privileges", "wal", "checkpointer", "archiver", "activity", "waldir"):
                assert len(rows) == 1, f"{query} must return exactly one row"
            ran.append(f"{query}.v{sql.min_major}")
    expected_io = "io.v18" if major >= 18 else ("io.v16" if major >= 16 else None)
    assert (expected_io in ran) if expected_io else not any(r.startswith("io.") for r in ran)
    assert ("wal.v18" in ran) == (major >= 18)
    assert ("checkpointer.v17" in ran) == (major >= 17)


def test_run_query_returns_the_row_type_it_is_given(shared_server: PgServer) -> None:
    """Oracle's argument order (conn, row type, query, major); rows built by column name."""
    from advisor.collectors.postgres.rows import ServerRow, TablespaceRow
    from advisor.collectors.postgres.session import connect, run_query
    from advisor.errors import AdvisorError

    session = connect(shared_server.dsn, {})
    try:
        server = run_query(session.conn, ServerRow, "server", session.major)
        assert len(server) == 1 and isinstance(server[0], ServerRow)
        assert server[0].server_version_num == session.version_num
        spaces = run_query(session.conn, dict, "tablespaces", session.major)
        assert {"pg_default", "pg_global"} <= {row["spcname"] for row in spaces}
        assert list(spaces[0]) == [f.name for f in dataclasses.fields(TablespaceRow)]
        with pytest.raises((TypeError, AdvisorError)):  # a row type with other fields is never half-filled
            run_query(session.conn, ServerRow, "tablespaces", session.major)
    finally:
        session.conn.close()
