"""What `repo init`, `repo prune` and `repo summarize` say, on a real repository, is what happened.

A role without CREATE on the database is told that (not sent to the collectors' role); a
reader's prune is refused before it announces anything; a drain counts the summaries it
leaves in the table, not the ones it wrote and rewrote across batches.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import count

pytestmark = [pytest.mark.pg, pytest.mark.slow]


def _dbname(dsn: str) -> str:
    return dsn.split("dbname=")[1].split()[0]


def _role(server: PgServer, name: str, member_of: str = "") -> None:
    grant = f" IN ROLE {member_of}" if member_of else ""
    server.psql(f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{name}') THEN "
                f"CREATE ROLE {name} LOGIN{grant}; END IF; END $$")


def test_init_without_create_names_the_missing_privilege(repo_server: PgServer, tmp_path: Path) -> None:
    repo_server.psql("CREATE DATABASE repo_no_create")
    _role(repo_server, "plain_user")
    done = run_advisor("repo", "init", "--dsn", repo_server.dsn_for("repo_no_create", "plain_user"))
    assert done.returncode == 5, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "advisor_collector role" not in line and "collectors need" not in line, line
    assert "plain_user lacks CREATE on database repo_no_create" in line, line
    assert "the database owner or a superuser" in line, line


def _dated(source: Path, root: Path, taken_at: str) -> Path:
    doc = json.loads(source.read_text())
    doc["taken_at"] = taken_at
    path = root / f"snap-{taken_at[:16].replace(':', '')}.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_readers_prune_is_refused_before_it_announces_anything(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    old = _dated(real_snapshots[0], tmp_path, "2026-01-15T10:00:00+00:00")
    pushed = run_advisor("push", "--repo", repo, str(old), env={"ADVISOR_SPOOL": str(tmp_path / "spool")})
    assert pushed.returncode == 0, pushed.stderr
    _role(repo_server, "fleet_r", "advisor_reader")
    reader = repo_server.dsn_for(_dbname(repo), "fleet_r")
    done = run_advisor("repo", "prune", "--dsn", reader, "--keep", "90d")
    assert done.returncode == 5, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "removing" not in done.stderr, done.stderr
    assert line.startswith("advisor: error: pruning the repository: role fleet_r may not ") and "DELETE" in line, line
    assert "the repository's owner" in line, line
    dry = run_advisor("repo", "prune", "--dsn", reader, "--keep", "90d", "--dry-run")  # saying is allowed
    assert dry.returncode == 0 and "would remove everything before" in dry.stderr, dry.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 1


def test_a_drain_counts_the_summaries_it_leaves(repo_server: PgServer, repo: str, real_snapshots: list[Path],
                                                tmp_path: Path) -> None:
    """Three snapshots drained two arrivals at a time: the interval at the batch edge is made twice, kept once."""
    from advisor.fleet.summaries import default_summarizer, drain
    from advisor.repo.connection import connect
    from advisor.repo.documents import load_file
    from advisor.repo.ingest import push_many

    with connect(repo) as conn:
        push_many(conn, [load_file(p) for p in real_snapshots])
        done = drain(conn, default_summarizer(), batch=2)
    assert done.arrivals == 3
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.interval_summaries") == 2
    assert done.summaries == 2
