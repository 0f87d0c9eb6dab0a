"""A real PostgreSQL server holds the fleet repositories of these tests: one database per test.

The server is shared by the session (starting one costs seconds); each test gets a fresh
database initialised with ``advisor repo init`` so tests cannot see each other's rows. Roles
are cluster-wide, so the insert-only and read-only group roles are shared, which is also
how a real cluster with several repositories behaves.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, available_versions, running_postgres

_COUNTER = itertools.count()


@pytest.fixture(scope="session")
def repo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    """One PostgreSQL server (the newest available) for every repository of the session."""
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries available")
    with running_postgres(max(versions), tmp_path_factory.mktemp("repo")) as server:
        yield server


@pytest.fixture()
def repo(repo_server: PgServer) -> str:
    """A fresh, initialised repository database; its superuser DSN."""
    name = f"repo{os.getpid()}_{next(_COUNTER)}"
    repo_server.psql(f"CREATE DATABASE {name}")
    dsn = repo_server.dsn_for(name)
    done = run_advisor("repo", "init", "--dsn", dsn)
    assert done.returncode == 0, done.stderr
    return dsn


@pytest.fixture(scope="session")
def real_snapshots(repo_server: PgServer, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three real snapshots of the repository's own server (advisor collect), a few seconds apart."""
    base = tmp_path_factory.mktemp("snaps")
    repo_server.psql("CREATE TABLE IF NOT EXISTS busy (id int, pad text);"
                     "INSERT INTO busy SELECT g, repeat('b', 100) FROM generate_series(1, 20000) g;")
    paths = []
    for n in range(3):
        repo_server.psql("SELECT count(*) FROM busy;")
        path = base / f"snap{n}.json"
        done = run_advisor("collect", "--dsn", repo_server.dsn, "-o", str(path))
        assert done.returncode in (0, 4), done.stderr
        paths.append(path)
    return paths

