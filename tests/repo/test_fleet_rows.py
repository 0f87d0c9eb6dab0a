"""The fleet ranking believes only rows whose documents are what they claim, and loses no detail.

The collectors' role may insert any row. On a real repository holding three real snapshots
of one instance, rows a collector could insert by hand (a document that does not decode
with absurd totals, another snapshot's document under another time, an instance whose every
row is garbage) are skipped and named, the real instance's advice is unchanged, the garbage
instance sinks to the bottom, and ``fleet show`` still works. What ``fleet show`` says about
the IO share is what ``advisor report`` says on the same snapshots.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer

pytestmark = [pytest.mark.pg, pytest.mark.slow]


def _row(instance: str, taken: dt.datetime, started: str, reads: int, document: str) -> str:
    quoted = document.replace("'", "''")
    return ("INSERT INTO advisor.snapshots (instance_id, taken_at, server_started_at, version, format_version, "
            "tool_version, files, reads, writes, read_bytes, write_bytes, io_wait_share, digest, document) VALUES "
            f"('{instance}', '{taken.isoformat()}', '{started}', '18', 1, 'x', 1, {reads}, 1, 0, 0, NULL, 'd', "
            f"'{quoted}'::jsonb);")


def _share_notes(warnings: list[str]) -> list[str]:
    return [w for w in warnings if "IO share" in w]


def test_rows_that_are_not_what_they_claim_are_skipped_and_named(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    dbname = repo.split("dbname=")[1].split()[0]
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    assert run_advisor("push", "--repo", repo, *map(str, real_snapshots), env=env).returncode == 0
    clean = run_advisor("fleet", "report", "--repo", repo, "--since", "1d", "-f", "json")
    assert clean.returncode == 0, clean.stderr
    [real] = json.loads(clean.stdout)["instances"]
    shown_clean = run_advisor("fleet", "show", real["instance_id"], "--repo", repo, "--since", "1d", "-f", "json")
    assert shown_clean.returncode == 0, shown_clean.stderr

    # fleet show says about the IO share what advisor report says on the same two snapshots
    single = run_advisor("report", "--snapshot", str(real_snapshots[0]), str(real_snapshots[-1]), "-f", "json")
    assert single.returncode == 0, single.stderr
    expected = _share_notes(json.loads(single.stdout)["warnings"])
    assert expected, "the report names why the IO share is or is not known"
    assert _share_notes(json.loads(shown_clean.stdout)["report"]["warnings"]) == expected

    first = json.loads(real_snapshots[0].read_text())
    taken = [dt.datetime.fromisoformat(json.loads(p.read_text())["taken_at"]) for p in real_snapshots]
    started = first["server"]["started_at"]
    repo_server.psql(
        "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fleet_c') THEN "
        "CREATE ROLE fleet_c LOGIN IN ROLE advisor_collector; END IF; END $$")
    repo_server.psql(
        _row(real["instance_id"], taken[0] + (taken[1] - taken[0]) / 2, started, 2**62, '{"document": "snapshot"}')
        + _row(real["instance_id"], taken[1] + (taken[2] - taken[1]) / 2, started, 2**62, real_snapshots[0].read_text())
        + "INSERT INTO advisor.instances (instance_id, dbms, identity, host, name) "
          "VALUES ('postgres:0-bogus', 'postgres', '0-bogus', 'bogus', 'bogus');"
        + _row("postgres:0-bogus", taken[0], started, 1, "[]")
        + _row("postgres:0-bogus", taken[1], started, 5, '"text"'),
        dbname=dbname, user="fleet_c")

    done = run_advisor("fleet", "report", "--repo", repo, "--since", "1d", "-f", "json")
    assert done.returncode == 0, done.stderr
    ranked = json.loads(done.stdout)["instances"]
    assert [r["instance_id"] for r in ranked] == [real["instance_id"], "postgres:0-bogus"]
    again, bogus = ranked
    assert again["period"] == real["period"] and again["busiest"] == real["busiest"]
    assert len(again["skipped"]) == 2 and bogus["period"] is None
    assert any("format_version missing" in s for s in again["skipped"]), again["skipped"]
    assert any("the document says it was taken at" in s for s in again["skipped"]), again["skipped"]
    # the garbage instance: one row skipped leaves one snapshot, so there is nothing to advise
    assert len(bogus["skipped"]) == 1 and "found not an advisor document" in bogus["skipped"][0]
    assert bogus["warnings"] == ["no readable snapshot pair or workload in the period: nothing to advise"]
    assert done.stderr.count("advisor: warning: skipped a snapshot row: ") == 3, done.stderr

    terminal = run_advisor("fleet", "report", "--repo", repo, "--since", "1d", env={"COLUMNS": "200"})
    assert terminal.returncode == 0, terminal.stderr
    lines = terminal.stdout.splitlines()
    rows = [(line.split(), lines[n + 1].split()) for n, line in enumerate(lines) if line[:3] in (" 1 ", " 2 ")]
    assert [(r[:2], under[:1]) for r, under in rows] == [
        (["1", real["instance_id"]], [f"{real['host']}/{real['name']}"]),
        (["2", "postgres:0-bogus"], ["bogus/bogus"])], terminal.stdout

    shown = run_advisor("fleet", "show", real["instance_id"], "--repo", repo, "--since", "1d", "-f", "json")
    assert shown.returncode == 0, shown.stderr
    after, before = json.loads(shown.stdout)["report"], json.loads(shown_clean.stdout)["report"]
    assert {**after, "generated_at": ""} == {**before, "generated_at": ""}
    assert shown.stderr.count("skipped a snapshot row") == 2
