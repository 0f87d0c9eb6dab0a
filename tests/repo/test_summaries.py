"""Interval summaries computed at arrival stay right under bad input, on a real repository.

Real snapshots of the repository's own server (``advisor collect``) are pushed twice, out of
order, after a restart, under a changed identity, and the summaries are compared with what
``advisor report`` says on the same two snapshots. A summary written by another engine
version is recomputed, never mixed; a repository at schema version 2 upgrades in place.
"""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from advisor.repo.schema import MIGRATIONS
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import count

pytestmark = [pytest.mark.pg, pytest.mark.slow]
ROW = ("SELECT concat_ws(';', to_char(started_at, 'HH24:MI:SS.US'), to_char(ended_at, 'HH24:MI:SS.US'), "
       "round(db_iops::numeric, 6), verdict, reset, array_to_string(findings, ',')) "
       "FROM advisor.interval_summaries WHERE source = 'snapshots' ORDER BY ended_at")


def _push(repo: str, tmp_path: Path, *paths: Path) -> str:
    done = run_advisor("push", "--repo", repo, *map(str, paths), env={"ADVISOR_SPOOL": str(tmp_path / "spool")})
    assert done.returncode == 0, done.stderr
    return done.stderr


def _rows(server: PgServer, repo: str) -> list[str]:
    return server.psql(ROW, dbname=repo.split("dbname=")[1].split()[0]).splitlines()


def _variant(source: Path, target: Path, **server: str) -> Path:
    doc = json.loads(source.read_text())
    doc["server"].update(server)
    target.write_text(json.dumps(doc))
    return target


def test_twice_and_out_of_order_give_the_summaries_of_the_ordered_pushes(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    s0, s1, s2 = real_snapshots
    _push(repo, tmp_path, s0, s2)  # s1 arrives late
    assert len(_rows(repo_server, repo)) == 1  # s0 .. s2
    _push(repo, tmp_path, s1)
    late = _rows(repo_server, repo)
    assert len(late) == 2, late  # the s0 .. s2 summary is gone: s0 .. s1 and s1 .. s2 instead
    stamp = "SELECT string_agg(computed_at::text, ',' ORDER BY ended_at) FROM advisor.interval_summaries"
    dbname = repo.split("dbname=")[1].split()[0]
    before = repo_server.psql(stamp, dbname=dbname)
    assert "pushed 0 new, 3 already" in _push(repo, tmp_path, s0, s1, s2)
    assert repo_server.psql(stamp, dbname=dbname) == before, "a snapshot pushed twice recomputes nothing"

    ordered = repo_server.dsn_for(f"{dbname}_ordered")
    repo_server.psql(f"CREATE DATABASE {dbname}_ordered")
    assert run_advisor("repo", "init", "--dsn", ordered).returncode == 0
    _push(ordered, tmp_path, s0, s1, s2)
    assert _rows(repo_server, ordered) == late

    # each summary is what `advisor report` says on the same two snapshots
    for a, b in ((s0, s1), (s1, s2)):
        single = run_advisor("report", "--snapshot", str(a), str(b), "-f", "json")
        assert single.returncode == 0, single.stderr
        report = json.loads(single.stdout)
        taken = json.loads(b.read_text())["taken_at"]
        row = repo_server.psql(f"SELECT planned, array_to_string(findings, ','), before_ms FROM "
                               f"advisor.interval_summaries WHERE ended_at = '{taken}'", dbname=dbname).split("|")
        assert row[0] == ("t" if report["plan"] else "f")
        assert row[1] == ",".join(dict.fromkeys(f["code"] for f in report["findings"]))
        if report["plan"]:
            assert float(row[2]) == pytest.approx(report["plan"]["predicted_before_ms"], rel=1e-9)


def test_restart_and_identity_change(repo_server: PgServer, repo: str, real_snapshots: list[Path],
                                     tmp_path: Path) -> None:
    s0, s1, s2 = real_snapshots
    restarted = _variant(s2, tmp_path / "restarted.json", started_at="2099-01-01T00:00:00+00:00")
    other = _variant(s2, tmp_path / "other.json", identity="another-cluster")
    _push(repo, tmp_path, s0, s1, restarted, other)
    rows = _rows(repo_server, repo)
    assert len(rows) == 2 and [r.split(";")[4] for r in rows] == ["f", "t"], rows
    # the other identity is another instance: nothing spans the two
    assert count(repo_server, repo, "SELECT count(DISTINCT instance_id) FROM advisor.snapshots") == 2
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.interval_summaries WHERE instance_id LIKE "
                                    "'%another-cluster'") == 0
    done = run_advisor("fleet", "report", "--repo", repo, "--since", "1d", "-f", "json")
    assert done.returncode == 0, done.stderr
    [item] = [i for i in json.loads(done.stdout)["instances"] if i["period"]]
    assert item["warnings"] == ["1 interval across a restart, a stats reset or a clock step left out"]
    first, second = (json.loads(p.read_text())["taken_at"] for p in (s0, s1))
    assert item["period"]["started_at"][:19] == first[:19] and item["period"]["ended_at"][:19] == second[:19]


def test_a_stats_reset_marks_the_interval(repo_server: PgServer, repo: str, real_snapshots: list[Path],
                                          tmp_path: Path) -> None:
    s0, s1, _s2 = real_snapshots
    doc = json.loads(s1.read_text())
    doc["server"]["stats_reset"] = {**doc["server"]["stats_reset"], "database:postgres": "2099-01-01T00:00:00+00:00"}
    reset = tmp_path / "reset.json"
    reset.write_text(json.dumps(doc))
    _push(repo, tmp_path, s0, reset)
    [row] = _rows(repo_server, repo)
    assert row.split(";")[4] == "t", row  # the counters the files are read from were reset: left out of sums
    done = run_advisor("fleet", "report", "--repo", repo, "--since", "1d", "-f", "json")
    assert done.returncode == 0, done.stderr
    [item] = json.loads(done.stdout)["instances"]
    assert item["warnings"] == ["1 interval across a restart, a stats reset or a clock step left out"]
    assert item["period"]["interval_s"] == 0 and item["period"]["saved_s_per_h"] == 0


def test_a_summary_of_another_engine_is_recomputed_not_mixed(repo_server: PgServer, repo: str,
                                                            real_snapshots: list[Path], tmp_path: Path) -> None:
    _push(repo, tmp_path, *real_snapshots)
    dbname = repo.split("dbname=")[1].split()[0]
    clean = run_advisor("fleet", "report", "--repo", repo, "--since", "1d", "-f", "json")
    assert clean.returncode == 0, clean.stderr
    repo_server.psql("UPDATE advisor.interval_summaries SET engine_version = '0.0.1/summary-0', db_iops = 99999;"
                     "UPDATE advisor.summary_hourly SET engine_version = '0.0.1/summary-0', ios = 99999;"
                     "UPDATE advisor.summary_daily SET engine_version = '0.0.1/summary-0', ios = 99999",
                     dbname=dbname)  # what an older release wrote
    repo_server.psql("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fleet_r') THEN "
                     "CREATE ROLE fleet_r LOGIN IN ROLE advisor_reader; END IF; END $$")
    reader = run_advisor("fleet", "report", "--repo", repo_server.dsn_for(dbname, "fleet_r"), "--since", "1d",
                         "-f", "json")
    assert reader.returncode == 0, reader.stderr
    assert "2 interval summaries were made by another engine version" in reader.stderr
    assert json.loads(reader.stdout)["instances"] == [], "a stale summary is left out, never mixed"
    owner = run_advisor("fleet", "report", "--repo", repo, "--since", "1d", "-f", "json")
    assert owner.returncode == 0, owner.stderr
    strip = ("generated_at", "since", "until")
    assert ({k: v for k, v in json.loads(owner.stdout).items() if k not in strip}
            == {k: v for k, v in json.loads(clean.stdout).items() if k not in strip})
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.interval_summaries WHERE db_iops = 99999") == 0


def test_a_repository_at_schema_2_upgrades_and_keeps_its_snapshots(repo_server: PgServer, real_snapshots: list[Path],
                                                                    tmp_path: Path) -> None:
    repo_server.psql("CREATE DATABASE repo_at_two")
    dsn = repo_server.dsn_for("repo_at_two")
    s0, s1, s2 = real_snapshots
    with psycopg.connect(dsn) as conn:  # what `repo init` of the previous release made, and a push into it
        for migration in MIGRATIONS[:2]:
            conn.execute(migration.statements)
            conn.execute("INSERT INTO advisor.schema_version (version, description) VALUES (%s, %s)",
                         (migration.version, migration.description))
        doc = json.loads(s0.read_text())
        conn.execute("SELECT advisor.ensure_month('snapshots', %s)", (doc["taken_at"],))
        conn.execute("INSERT INTO advisor.instances (instance_id, dbms, identity, host, name) VALUES (%s, %s, %s, "
                     "%s, %s)", (f"postgres:{doc['server']['identity']}", "postgres", doc["server"]["identity"],
                                 doc["server"]["host"], doc["server"]["name"]))
        conn.execute("INSERT INTO advisor.snapshots (instance_id, taken_at, server_started_at, version, "
                     "format_version, tool_version, files, reads, writes, read_bytes, write_bytes, digest, document) "
                     "VALUES (%s, %s, %s, '18', 1, 'x', 1, 0, 0, 0, 0, 'd', %s::jsonb)",
                     (f"postgres:{doc['server']['identity']}", doc["taken_at"], doc["server"]["started_at"],
                      s0.read_text()))
    refused = run_advisor("push", "--repo", dsn, str(s1), env={"ADVISOR_SPOOL": str(tmp_path / "spool")})
    assert refused.returncode == 6 and "schema version 2" in refused.stderr
    init = run_advisor("repo", "init", "--dsn", dsn)
    assert init.returncode == 0 and "applied migration 3" in init.stderr, init.stderr
    _push(dsn, tmp_path, s2)  # the spooled s1 goes first
    assert count(repo_server, dsn, "SELECT count(*) FROM advisor.snapshots WHERE document IS NOT NULL") == 1
    assert count(repo_server, dsn, "SELECT count(*) FROM advisor.snapshots WHERE packed IS NOT NULL") == 2
    # the old row (a jsonb document) is read back for the interval it opens
    assert len(_rows(repo_server, dsn)) == 2
    done = run_advisor("fleet", "report", "--repo", dsn, "--since", "1d", "-f", "json")
    assert done.returncode == 0, done.stderr
    [item] = json.loads(done.stdout)["instances"]
    assert item["snapshots"] == 3 and item["skipped"] == []
