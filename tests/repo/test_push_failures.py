"""Pushes that meet concurrency or a failing repository: nothing lost, every failure spooled.

Real processes against a real PostgreSQL repository: eight pushers creating the same month
partition at once, a repository that turned read-only, ``collect --push`` into it, and a
repository that is down while documents already wait in the spool.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import psycopg
import pytest

from tests.helpers.cli import run_advisor, start_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import count

pytestmark = [pytest.mark.pg, pytest.mark.slow]

PUSHERS = 8


def _variants(source: Path, root: Path, month: str, n: int) -> list[Path]:
    """*n* snapshots of *n* different instances, all taken in *month* (YYYY-MM)."""
    doc = json.loads(source.read_text())
    paths = []
    for i in range(n):
        doc["taken_at"] = f"{month}-{i + 1:02d}T12:00:00+00:00"
        doc["server"]["identity"] = f"race-{month}-{i}"
        path = root / f"race-{month}-{i}.json"
        path.write_text(json.dumps(doc))
        paths.append(path)
    return paths


def _dbname(dsn: str) -> str:
    return dsn.split("dbname=")[1].split()[0]


def _waiting_on_lock(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'advisor-repo' "
                           "AND wait_event_type = 'Lock'").fetchone()
    return int(row[0]) if row else 0


def test_eight_pushers_creating_one_month_all_arrive(repo_server: PgServer, repo: str,
                                                     real_snapshots: list[Path], tmp_path: Path) -> None:
    """All eight wait for the partition lock, then go one after the other: none may fail or be lost.

    The test holds ensure_month's advisory lock until every pusher waits on it, so each one
    has looked for the month's partition (and found none) before the first creates it: the
    interleaving that lost documents, made certain instead of left to chance.
    """
    paths = _variants(real_snapshots[0], tmp_path, "2027-02", PUSHERS)
    spool = tmp_path / "spool"
    with psycopg.connect(repo) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(hashtext('advisor.ensure_month'))")
        pushers = [start_advisor("push", "--repo", repo, "--spool", str(spool), str(p))
                   for p in paths]
        deadline = time.monotonic() + 120
        while _waiting_on_lock(repo) < PUSHERS and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _waiting_on_lock(repo) == PUSHERS, "the pushers never all waited for the partition"
        holder.rollback()
    outcomes = [(p.wait(120), p.stderr.read() if p.stderr else "") for p in pushers]
    assert [code for code, _ in outcomes] == [0] * PUSHERS, outcomes
    assert all("pushed 1 new" in err for _, err in outcomes), outcomes
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == PUSHERS
    assert count(repo_server, repo, "SELECT count(DISTINCT instance_id) FROM advisor.layouts") == PUSHERS
    assert not list(spool.glob("*.json"))


def test_eight_pushers_at_once_in_fresh_months(repo_server: PgServer, repo: str,
                                               real_snapshots: list[Path], tmp_path: Path) -> None:
    """No lock held by the test: eight processes started together, three months in a row."""
    for month in ("2027-03", "2027-04", "2027-05"):
        paths = _variants(real_snapshots[0], tmp_path, month, PUSHERS)
        pushers = [start_advisor("push", "--repo", repo, "--spool", str(tmp_path / "spool"), str(p))
                   for p in paths]
        outcomes = [(p.wait(120), p.stderr.read() if p.stderr else "") for p in pushers]
        assert [code for code, _ in outcomes] == [0] * PUSHERS, outcomes
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 3 * PUSHERS


def test_ensure_month_refuses_times_outside_the_sane_range(repo_server: PgServer, repo: str) -> None:
    for at in ("294276-01-01 00:00:00+00", "0044-03-15 00:00:00+00 BC", "9999-12-31 00:00:00+00",
               "1969-12-31 23:59:59+00"):
        with pytest.raises(RuntimeError, match="outside 1970-01-01"):
            repo_server.psql(f"SELECT advisor.ensure_month('snapshots', '{at}')", dbname=_dbname(repo))
    assert count(repo_server, repo, "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhparent "
                                    "WHERE c.relname = 'snapshots'") == 0


def test_read_only_repository_keeps_the_documents_in_the_spool(repo_server: PgServer, repo: str,
                                                              real_snapshots: list[Path], tmp_path: Path) -> None:
    dbname = _dbname(repo)
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    repo_server.psql(f"ALTER DATABASE {dbname} SET default_transaction_read_only = on")
    try:
        refused = run_advisor("push", "--repo", repo, str(real_snapshots[0]), str(real_snapshots[1]), env=env)
        scratch = tmp_path / "tmp"
        scratch.mkdir()
        sampled = run_advisor("collect", "--dsn", repo_server.dsn, "--push", repo, env={**env, "TMPDIR": str(scratch)})
        unreachable = run_advisor("collect", "--dsn", "host=127.0.0.1 port=1 connect_timeout=2", "--push", repo,
                                  env={**env, "TMPDIR": str(scratch)})
    finally:
        repo_server.psql(f"ALTER DATABASE {dbname} RESET default_transaction_read_only")
    assert refused.returncode == 1, refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert lines[-2].endswith(f"; 2 waiting in {tmp_path / 'spool'} for the next run"), lines
    assert lines[-1].startswith("advisor: error: pushing ") and "read-only transaction" in lines[-1], lines
    assert "internal error" not in refused.stderr and "Traceback" not in refused.stderr
    # collect --push: the sample is spooled, and no temporary file it deletes is announced
    assert sampled.returncode == 1, sampled.stderr
    assert "wrote " not in sampled.stderr and "3 waiting in" in sampled.stderr, sampled.stderr
    assert len(list((tmp_path / "spool").glob("*.json"))) == 3
    assert unreachable.returncode == 3, unreachable.stderr  # nothing collected, nothing to push
    assert list(scratch.iterdir()) == []  # the temporary documents are gone, the sample is in the spool
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 0
    later = run_advisor("push", "--repo", repo, env=env)
    assert later.returncode == 0 and "pushed 3 new, 0 already in the repository (3 from the spool)" in later.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 3


def test_a_document_the_repository_refuses_is_not_spooled(repo_server: PgServer, repo: str,
                                                         real_snapshots: list[Path], tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    made = run_advisor("report", "--snapshot", str(real_snapshots[0]), str(real_snapshots[2]), "-f", "json",
                       "-o", str(report))
    assert made.returncode == 0, made.stderr
    doc = json.loads(report.read_text())
    doc["generated_at"] = "9999-12-31T00:00:00+00:00"
    far = tmp_path / "far.json"
    far.write_text(json.dumps(doc))
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    done = run_advisor("push", "--repo", repo, str(far), str(real_snapshots[0]), env=env)
    assert done.returncode == 6, done.stderr
    assert "refused the document" in done.stderr and "outside 1970-01-01" in done.stderr, done.stderr
    assert "pushed 1 new" in done.stderr  # the other document went in
    assert not list((tmp_path / "spool").glob("*.json"))
    # found in the spool (an earlier advisor spooled it): set aside, and the queue goes on behind it
    spool = tmp_path / "spool"
    spool.mkdir(mode=0o700, exist_ok=True)
    for raw in (far.read_bytes(), real_snapshots[1].read_bytes()):
        (spool / f"{hashlib.sha256(raw).hexdigest()}.json").write_bytes(raw)
    drained = run_advisor("push", "--repo", repo, env=env)
    assert drained.returncode == 0, drained.stderr
    assert "set aside as" in drained.stderr and "refused the document" in drained.stderr, drained.stderr
    assert "pushed 1 new, 0 already in the repository (1 from the spool)" in drained.stderr
    assert [p.suffix for p in spool.iterdir()] == [".rejected"]


def test_a_push_to_a_down_repository_counts_what_waits(repo_server: PgServer, repo: str,
                                                       real_snapshots: list[Path], tmp_path: Path) -> None:
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    repo_server.stop()
    try:
        first = run_advisor("push", "--repo", repo, str(real_snapshots[0]), str(real_snapshots[1]), env=env)
        again = run_advisor("push", "--repo", repo, env=env)  # nothing new: only the spool
        more = run_advisor("push", "--repo", repo, str(real_snapshots[2]), env=env)
    finally:
        repo_server.start()
    assert first.returncode == again.returncode == more.returncode == 3
    assert f"; 2 waiting in {tmp_path / 'spool'}" in again.stderr, again.stderr
    assert "; 3 waiting in" in more.stderr, more.stderr
