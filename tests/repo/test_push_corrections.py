"""Corrections land: a different document under a key the repository holds replaces it, and says so.

Real PostgreSQL: a snapshot and a workload pushed again with other content (the digest
differs) replace the stored row and its interval summaries, by the owner and by the
collectors' insert-only role alike; the same bytes again stay a no-op; and the choice of
``--keep-documents`` travels with a document that waits in the spool.
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


def _more_reads(source: Path, target: Path, extra: int) -> Path:
    """*source* with *extra* more reads (8 KiB each) on its busiest file: the same key, another document."""
    doc = json.loads(source.read_text())
    busiest = max(doc["files"], key=lambda f: f["reads"])
    busiest["reads"] += extra
    busiest["read_bytes"] += extra * 8192
    target.write_text(json.dumps(doc))
    return target


def _iops(server: PgServer, dsn: str) -> list[float]:
    rows = server.psql("SELECT db_iops FROM advisor.interval_summaries WHERE source = 'snapshots' "
                       "ORDER BY ended_at", dbname=_dbname(dsn))
    return [float(v) for v in rows.split()]


def test_a_corrected_snapshot_replaces_the_stored_one_and_its_summaries(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    s0, s1, s2 = real_snapshots
    first = run_advisor("push", "--repo", repo, str(s0), str(s1), str(s2), env=env)
    assert first.returncode == 0 and "pushed 3 new, 0 already" in first.stderr, first.stderr
    before = _iops(repo_server, repo)
    assert len(before) == 2
    fixed1 = _more_reads(s1, tmp_path / "fixed1.json", 500_000)
    fixed2 = _more_reads(s2, tmp_path / "fixed2.json", 500_000)
    again = run_advisor("push", "--repo", repo, str(fixed1), str(fixed2), env=env)
    assert again.returncode == 0, again.stderr
    assert "pushed 0 new, 2 replaced, 0 already in the repository" in again.stderr, again.stderr
    assert f"{fixed1}: replaced the snapshot stored for postgres:" in again.stderr, again.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 3
    digests = repo_server.psql("SELECT digest FROM advisor.snapshots ORDER BY taken_at", dbname=_dbname(repo))
    import hashlib
    assert digests.split()[1:] == [hashlib.sha256(p.read_bytes()).hexdigest() for p in (fixed1, fixed2)]
    after = _iops(repo_server, repo)
    assert len(after) == 2 and after[0] > before[0] + 100, (before, after)  # made again from the correction
    same = run_advisor("push", "--repo", repo, str(fixed1), env=env)
    assert same.returncode == 0 and "pushed 0 new, 1 already in the repository" in same.stderr, same.stderr
    assert "replaced" not in same.stderr


def test_a_corrected_workload_replaces_the_stored_one_by_the_collectors_role(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    repo_server.psql("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fleet_c') THEN "
                     "CREATE ROLE fleet_c LOGIN IN ROLE advisor_collector; END IF; END $$")
    collector = repo_server.dsn_for(_dbname(repo), "fleet_c")
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    work = tmp_path / "w.json"
    made = run_advisor("workload", str(real_snapshots[0]), str(real_snapshots[2]), "-f", "json", "-o", str(work))
    assert made.returncode == 0, made.stderr
    first = run_advisor("push", "--repo", collector, str(work), env=env)
    assert first.returncode == 0 and "pushed 1 new" in first.stderr, first.stderr
    summarised = run_advisor("repo", "summarize", "--dsn", repo)
    assert summarised.returncode == 0 and "into 1 interval summaries" in summarised.stderr, summarised.stderr
    doc = json.loads(work.read_text())
    doc["rates"][0]["read_iops"] += 1000.0
    fixed = tmp_path / "w-fixed.json"
    fixed.write_text(json.dumps(doc))
    again = run_advisor("push", "--repo", collector, str(fixed), env=env)
    assert again.returncode == 0 and "pushed 0 new, 1 replaced, 0 already" in again.stderr, again.stderr
    assert f"{fixed}: replaced the workload stored for postgres:" in again.stderr, again.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.workloads") == 1
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.interval_summaries") == 0  # gone with it
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.arrivals") == 1  # made again by the next drain
    stored = repo_server.psql("SELECT document->'rates'->0->>'read_iops' FROM advisor.workloads",
                              dbname=_dbname(repo))
    assert float(stored) == doc["rates"][0]["read_iops"]


def test_keep_documents_travels_with_a_spooled_document(repo_server: PgServer, repo: str,
                                                        real_snapshots: list[Path], tmp_path: Path) -> None:
    dbname = _dbname(repo)
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    repo_server.psql(f"ALTER DATABASE {dbname} SET default_transaction_read_only = on")
    try:
        refused = run_advisor("push", "--repo", repo, "--keep-documents", str(real_snapshots[0]), env=env)
        plain = run_advisor("push", "--repo", repo, str(real_snapshots[1]), env=env)
    finally:
        repo_server.psql(f"ALTER DATABASE {dbname} RESET default_transaction_read_only")
    assert refused.returncode == 1 and "1 waiting in" in refused.stderr, refused.stderr
    assert plain.returncode == 1 and "2 waiting in" in plain.stderr, plain.stderr
    later = run_advisor("push", "--repo", repo, env=env)  # no --keep-documents now
    assert later.returncode == 0 and "pushed 2 new" in later.stderr, later.stderr
    kept = repo_server.psql("SELECT taken_at = %s::timestamptz FROM advisor.snapshots WHERE document IS NOT NULL"
                            .replace("%s", "'" + json.loads(real_snapshots[0].read_text())["taken_at"] + "'"),
                            dbname=dbname)
    assert kept == "t"  # the first one whole, as its push asked; the second packed only
