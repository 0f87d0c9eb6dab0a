"""Pushing documents into a real PostgreSQL repository: idempotence, spool, bad input, lost sessions."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from advisor.repo.schema import MIGRATIONS
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import count

pytestmark = [pytest.mark.pg, pytest.mark.slow]


def _spool_env(tmp_path: Path) -> dict[str, str]:
    return {"ADVISOR_SPOOL": str(tmp_path / "spool")}


def test_init_creates_versioned_month_partitioned_schema(repo_server: PgServer, repo: str) -> None:
    again = run_advisor("repo", "init", "--dsn", repo)
    assert again.returncode == 0 and "already current" in again.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.schema_version") == len(MIGRATIONS)
    kinds = repo_server.psql("SELECT relname || ':' || relkind::text FROM pg_class c JOIN pg_namespace n "
                             "ON n.oid = c.relnamespace WHERE nspname = 'advisor' AND relkind IN ('p', 'r') "
                             "ORDER BY 1", dbname=repo.split("dbname=")[1].split()[0]).split()
    assert {"snapshots:p", "snapshot_files:p", "workloads:p", "reports:p", "instances:r", "disk_profiles:r"} \
        <= set(kinds)


def test_same_snapshot_twice_is_one_row_with_its_files(repo_server: PgServer, repo: str,
                                                       real_snapshots: list[Path], tmp_path: Path) -> None:
    env = _spool_env(tmp_path)
    first = run_advisor("push", "--repo", repo, str(real_snapshots[0]), env=env)
    assert first.returncode == 0, first.stderr
    assert "pushed 1 new, 0 already" in first.stderr
    second = run_advisor("push", "--repo", repo, str(real_snapshots[0]), str(real_snapshots[1]), env=env)
    assert second.returncode == 0 and "pushed 1 new, 1 already" in second.stderr, second.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 2
    # stored packed, the file locations once for the instance (the same layout), no per-file rows
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots WHERE packed IS NOT NULL "
                                    "AND document IS NULL") == 2
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.layouts") == count(
        repo_server, repo, "SELECT count(DISTINCT layout_digest) FROM advisor.snapshots")  # one per content
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshot_files") == 0
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.instances") == 1
    # the month partition exists and holds the rows
    assert count(repo_server, repo, "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhparent "
                                    "WHERE c.relname = 'snapshots'") >= 1


def test_foreign_newer_and_corrupt_documents_are_refused_and_nothing_is_sent(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    newer = json.loads(real_snapshots[0].read_text())
    newer["format_version"] = 99
    (tmp_path / "newer.json").write_text(json.dumps(newer))
    (tmp_path / "foreign.json").write_text(json.dumps({"name": "not ours", "rows": [1, 2]}))
    (tmp_path / "cut.json").write_text(real_snapshots[0].read_text()[:5000])
    for bad, words in (("newer.json", "newer than this advisor"), ("foreign.json", "not an advisor document"),
                       ("cut.json", "not valid JSON")):
        done = run_advisor("push", "--repo", repo, str(real_snapshots[1]), str(tmp_path / bad),
                           env=_spool_env(tmp_path))
        assert done.returncode == 6, done.stderr
        assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 0
    assert not (tmp_path / "spool").exists() or not list((tmp_path / "spool").iterdir())


def test_repository_newer_than_the_tool_is_refused_and_the_document_waits(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    dbname = repo.split("dbname=")[1].split()[0]
    repo_server.psql("INSERT INTO advisor.schema_version VALUES (99, 'from the future')", dbname=dbname)
    done = run_advisor("push", "--repo", repo, str(real_snapshots[0]), env=_spool_env(tmp_path))
    assert done.returncode == 7, done.stderr
    assert "schema version 99, newer than this advisor" in done.stderr
    assert len(list((tmp_path / "spool").glob("*.json"))) == 1
    assert run_advisor("repo", "init", "--dsn", repo).returncode == 7
    assert run_advisor("fleet", "report", "--repo", repo).returncode == 7
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 0


def test_not_a_repository_says_run_init(repo_server: PgServer, real_snapshots: list[Path], tmp_path: Path) -> None:
    repo_server.psql("CREATE DATABASE plain_db")
    done = run_advisor("push", "--repo", repo_server.dsn_for("plain_db"), str(real_snapshots[0]),
                       env=_spool_env(tmp_path))
    assert done.returncode == 6 and "advisor repo init" in done.stderr, done.stderr


def test_push_while_repository_down_spools_and_arrives_exactly_once(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    env = _spool_env(tmp_path)
    repo_server.stop()
    try:
        down = run_advisor("push", "--repo", repo, str(real_snapshots[0]), str(real_snapshots[1]), env=env)
        again = run_advisor("push", "--repo", repo, str(real_snapshots[1]), env=env)  # spooled twice: one file
    finally:
        repo_server.start()
    assert down.returncode == 3, down.stderr
    assert "2 waiting in" in down.stderr
    assert again.returncode == 3
    assert len(list((tmp_path / "spool").glob("*.json"))) == 2
    up = run_advisor("push", "--repo", repo, str(real_snapshots[2]), env=env)
    assert up.returncode == 0, up.stderr
    assert "pushed 3 new, 0 already in the repository (2 from the spool)" in up.stderr
    assert list((tmp_path / "spool").glob("*.json")) == []
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 3
    rerun = run_advisor("push", "--repo", repo, *map(str, real_snapshots), env=env)
    assert rerun.returncode == 0 and "pushed 0 new, 3 already" in rerun.stderr
    assert count(repo_server, repo,
                 "SELECT count(DISTINCT taken_at) FROM advisor.snapshots WHERE packed IS NOT NULL") == 3
    # the owner's pushes summarise at arrival: two intervals, each once, the queue empty
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.interval_summaries") == 2
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.arrivals") == 0


def test_session_killed_mid_push_leaves_nothing_half_written(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    import psycopg

    env = _spool_env(tmp_path)
    assert run_advisor("push", "--repo", repo, str(real_snapshots[0]), env=env).returncode == 0  # month exists
    result: dict[str, object] = {}
    with psycopg.connect(repo) as blocker:
        # hold the summariser's queue: the push inserts its snapshot row, then its trigger waits
        blocker.execute("LOCK TABLE advisor.arrivals IN ACCESS EXCLUSIVE MODE")
        worker = threading.Thread(target=lambda: result.setdefault(
            "done", run_advisor("push", "--repo", repo, str(real_snapshots[1]), env=env)))
        worker.start()
        pid = None
        for _ in range(200):
            row = psycopg.connect(repo, autocommit=True).execute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = 'advisor-repo' "
                "AND wait_event_type = 'Lock'").fetchone()
            if row:
                pid = row[0]
                break
            time.sleep(0.05)
        assert pid is not None, "the push never waited on the lock"
        with psycopg.connect(repo, autocommit=True) as killer:
            killer.execute("SELECT pg_terminate_backend(%s)", (pid,))
        blocker.rollback()
    worker.join(60)
    done = result["done"]
    assert done.returncode == 3, done.stderr  # type: ignore[attr-defined]
    assert "connection was lost" in done.stderr  # type: ignore[attr-defined]
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 1  # the killed one rolled back
    assert len(list((tmp_path / "spool").glob("*.json"))) == 1
    retry = run_advisor("push", "--repo", repo, env=env)
    assert retry.returncode == 0 and "pushed 1 new" in retry.stderr, retry.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots WHERE packed IS NOT NULL "
                                    "AND layout_digest IS NOT NULL") == 2


def test_tls_settings_reach_libpq(repo_server: PgServer, repo: str, real_snapshots: list[Path],
                                  tmp_path: Path) -> None:
    done = run_advisor("push", "--repo", repo + " sslmode=require", str(real_snapshots[0]), env=_spool_env(tmp_path))
    assert done.returncode == 3
    assert "SSL" in done.stderr and len(done.stderr.strip().splitlines()) == 2  # the error, and the spool line


def test_a_document_carrying_a_password_is_refused(repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    doc = json.loads(real_snapshots[0].read_text())
    doc["server"]["settings"]["primary_conninfo"] = "host=primary user=rep password=s3cret"
    path = tmp_path / "secret.json"
    path.write_text(json.dumps(doc))
    done = run_advisor("push", "--repo", repo, str(path), env=_spool_env(tmp_path))
    assert done.returncode == 6 and "looks like a password" in done.stderr
    assert "s3cret" not in done.stderr


def test_collect_push_sends_the_snapshot(repo_server: PgServer, repo: str, tmp_path: Path) -> None:
    done = run_advisor("collect", "--dsn", repo_server.dsn, "--push", repo, env=_spool_env(tmp_path))
    assert done.returncode in (0, 4), done.stderr
    assert "pushed 1 new" in done.stderr
    assert done.stdout == ""  # pushed, not printed
    assert "wrote " not in done.stderr  # the temporary file it wrote and removed is not announced
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 1


def test_collector_role_only_inserts_and_reader_role_only_reads(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    dbname = repo.split("dbname=")[1].split()[0]
    repo_server.psql(
        "DO $$ BEGIN "
        "IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fleet_c') THEN "
        "CREATE ROLE fleet_c LOGIN IN ROLE advisor_collector; END IF; "
        "IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fleet_r') THEN "
        "CREATE ROLE fleet_r LOGIN IN ROLE advisor_reader; END IF; END $$")
    collector, reader = repo_server.dsn_for(dbname, "fleet_c"), repo_server.dsn_for(dbname, "fleet_r")
    env = _spool_env(tmp_path)
    first = run_advisor("push", "--repo", collector, str(real_snapshots[0]), env=env)
    assert first.returncode == 0, first.stderr
    twice = run_advisor("push", "--repo", collector, str(real_snapshots[0]), env=env)
    assert twice.returncode == 0 and "0 new, 1 already" in twice.stderr, twice.stderr
    for statement in ("SELECT count(*) FROM advisor.snapshots", "DELETE FROM advisor.snapshots",
                      "UPDATE advisor.instances SET host = 'x'", "CREATE TABLE advisor.x (i int)"):
        with pytest.raises(RuntimeError, match="permission denied"):
            repo_server.psql(statement, dbname=dbname, user="fleet_c")
    denied = run_advisor("push", "--repo", reader, str(real_snapshots[1]), env=env)
    assert denied.returncode == 5 and "advisor_collector" in denied.stderr, denied.stderr
    assert len(list((tmp_path / "spool").glob("*.json"))) == 1  # kept until the grant is fixed
    assert run_advisor("fleet", "report", "--repo", reader, "--since", "30d").returncode == 0
    with pytest.raises(RuntimeError, match="permission denied"):
        repo_server.psql("DELETE FROM advisor.snapshots", dbname=dbname, user="fleet_r")
    assert repo_server.psql("SELECT count(*) FROM advisor.snapshots", dbname=dbname, user="fleet_r") == "1"


def test_workloads_reports_and_disk_profiles_are_pushed_once(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    workload, report, profile = tmp_path / "w.json", tmp_path / "r.json", tmp_path / "disk.json"
    made = [
        run_advisor("collect", "--dsn", repo_server.dsn, "--interval", "1", "-o", str(workload)),
        run_advisor("report", "--snapshot", str(real_snapshots[0]), str(real_snapshots[2]), "-f", "json",
                    "-o", str(report)),
        run_advisor("bench", "--scratch-file", str(tmp_path / "scratch"), "--size", "64M", "--tests", "zones",
                    "--zones", "3", "--runs", "1", "--budget-per-test", "1", "--engine", "builtin",
                    "-o", str(profile)),
    ]
    assert all(m.returncode in (0, 4) for m in made), [m.stderr for m in made]
    env = _spool_env(tmp_path)
    files = [str(workload), str(report), str(profile)]
    first = run_advisor("push", "--repo", repo, *files, env=env)
    assert first.returncode == 0 and "pushed 3 new, 0 already" in first.stderr, first.stderr
    again = run_advisor("push", "--repo", repo, *files, env=env)
    assert again.returncode == 0 and "pushed 0 new, 3 already" in again.stderr, again.stderr
    for table in ("workloads", "reports", "disk_profiles"):
        assert count(repo_server, repo, f"SELECT count(*) FROM advisor.{table}") == 1
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.workloads WHERE instance_id IN "
                                    "(SELECT instance_id FROM advisor.instances)") == 1


def test_a_batch_counts_each_new_snapshot_once(repo_server: PgServer, repo: str, real_snapshots: list[Path]) -> None:
    """One COPY batch holding a snapshot twice and one already there: one new row, nothing doubled."""
    from advisor.repo.connection import connect
    from advisor.repo.documents import load_file
    from advisor.repo.ingest import push, push_many

    s0, s1, s2 = (load_file(p) for p in real_snapshots)
    with connect(repo) as conn:
        assert push(conn, s1) == "new"
        assert push_many(conn, [s0, s0, s1, s2]).count("new") == 2
        assert push_many(conn, [s2, s1, s0]) == ["present"] * 3
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 3
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.arrivals") == 3  # queued once each
