"""`repo init` on a repository whose schema_version table lost its rows, and a push of a NUL.

Real repositories on a real server: every table there but no version row is repaired (the
row is written again and pushes work); only the empty table there is migrated from scratch;
a schema there in part is refused with one line (exit 6), never an exit 1 on "relation
already exists".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.repo.schema import CURRENT_VERSION
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import count

pytestmark = [pytest.mark.pg, pytest.mark.slow]


def _dbname(dsn: str) -> str:
    return dsn.split("dbname=")[1].split()[0]


def test_lost_version_row_is_recorded_again(repo_server: PgServer, repo: str, real_snapshots: list[Path],
                                            tmp_path: Path) -> None:
    repo_server.psql("DELETE FROM advisor.schema_version", dbname=_dbname(repo))
    done = run_advisor("repo", "init", "--dsn", repo)
    assert done.returncode == 0, done.stderr
    assert "schema_version was empty: recorded again" in done.stderr
    # version 1 recorded again, then the later migrations (CREATE OR REPLACE) applied on top
    assert count(repo_server, repo, "SELECT max(version) FROM advisor.schema_version") == CURRENT_VERSION
    pushed = run_advisor("push", "--repo", repo, str(real_snapshots[0]), env={"ADVISOR_SPOOL": str(tmp_path)})
    assert pushed.returncode == 0, pushed.stderr


def test_only_an_empty_version_table_is_migrated(repo_server: PgServer) -> None:
    name = "repo_bare_version"
    repo_server.psql(f"DROP DATABASE IF EXISTS {name}; CREATE DATABASE {name}")
    repo_server.psql("CREATE SCHEMA advisor; CREATE TABLE advisor.schema_version (version int PRIMARY KEY, "
                     "description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())", dbname=name)
    dsn = repo_server.dsn_for(name)
    done = run_advisor("repo", "init", "--dsn", dsn)
    assert done.returncode == 0, done.stderr
    assert count(repo_server, dsn, "SELECT count(*) FROM advisor.instances") == 0  # the schema is whole


def test_a_schema_there_in_part_is_one_line_exit_6(repo_server: PgServer, repo: str) -> None:
    repo_server.psql("DELETE FROM advisor.schema_version; DROP TABLE advisor.reports CASCADE", dbname=_dbname(repo))
    done = run_advisor("repo", "init", "--dsn", repo)
    assert done.returncode == 6, done.stderr
    assert done.stderr.count("\n") == 1 and "missing: reports" in done.stderr and "cannot repair" in done.stderr


def test_a_document_with_a_nul_is_refused_not_an_internal_error(repo: str, real_snapshots: list[Path],
                                                                tmp_path: Path) -> None:
    text = real_snapshots[0].read_text()
    damaged = tmp_path / "nul.json"
    damaged.write_text(text.replace('"pg_default"', '"pg_de\\u0000fault"'))
    assert damaged.read_text() != text
    done = run_advisor("push", "--repo", repo, str(damaged), env={"ADVISOR_SPOOL": str(tmp_path / "spool")})
    assert done.returncode == 6, done.stderr
    assert "NUL character" in done.stderr and done.stderr.count("\n") == 1
