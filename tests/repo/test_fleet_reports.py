"""The fleet ranks imported AWR/Statspack reports: three Oracle instances, two hours each.

The reports are rendered by the fixture generators (tests/oracle/fixtures) with each
instance's own name, DBID, host, hours and read latency, imported with ``collect
--from-report`` and pushed into a real repository. Reports state no file sizes, so no
saving can be predicted: each instance says "sizes unknown: give --sizes" and they rank by
the read time their reports measured. One instance is then imported again with a sizes
file and pushed: the ranking takes that row, plans it, and never ranks its negative
"saving" as one.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import count
from tests.repo.awrgen import report_of, sizes_of

pytestmark = [pytest.mark.pg]

UNTIL = "2026-11-21T00:00:00+00:00"
INSTANCES = (("SALES", "1000000", "sales1", 1.0, False), ("HR", "1000001", "hr1", 3.0, True),
             ("DWH", "1000002", "dwh1", 2.0, False))
"""(database, DBID, instance, read latency factor, Statspack instead of AWR)."""


def _imports(tmp_path: Path) -> list[Path]:
    workloads = []
    for n, (db, dbid, instance, latency, statspack) in enumerate(INSTANCES):
        for hour in (8, 12):
            name = f"{db}-{hour}.{'txt' if statspack else 'html'}"
            report = report_of(tmp_path / name, db_name=db, dbid=dbid, instance=instance,
                               host=f"ora{n}.example.net", begin=dt.datetime(2026, 11, 20, hour),
                               snap=100 + hour, latency=latency, statspack=statspack)
            out = tmp_path / f"{db}-{hour}.json"
            done = run_advisor("collect", "--from-report", str(report), "-o", str(out))
            assert done.returncode == 0, done.stderr
            workloads.append(out)
    return workloads


def _fleet(repo: str, *extra: str) -> dict:  # type: ignore[type-arg]
    done = run_advisor("fleet", "report", "--repo", repo, "--since", "7d", "--until", UNTIL, "-f", "json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_imported_reports_are_ranked_by_what_is_known(repo_server: PgServer, repo: str, tmp_path: Path) -> None:
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    pushed = run_advisor("push", "--repo", repo, *map(str, _imports(tmp_path)), env=env)
    assert pushed.returncode == 0 and "pushed 6 new" in pushed.stderr, pushed.stderr

    fleet = _fleet(repo)
    assert fleet["format_version"] == 3
    ranked = fleet["instances"]
    assert [r["instance_id"] for r in ranked] == ["oracle:1000001:hr1", "oracle:1000002:dwh1",
                                                   "oracle:1000000:sales1"], "slowest reads first"
    for r in ranked:
        assert r["snapshots"] == 0 and r["workloads"] == 2
        period = r["period"]
        assert period["label"] == "all workloads" and period["verdict"] == "sizes unknown"
        assert not period["planned"] and period["saved_s_per_h"] == 0
        assert "--sizes" in period["note"] and "sql show sizes" in period["note"]
        assert period["interval_s"] == 7200.0
        assert [w["interval_s"] for w in r["busiest"]] == [3600.0, 3600.0]
        assert [w["started_at"][11:16] for w in r["busiest"]] == ["08:00", "12:00"]
    sources = {r["instance_id"]: r["busiest"][0]["source"] for r in ranked}
    assert sources == {"oracle:1000001:hr1": "statspack", "oracle:1000002:dwh1": "awr-html",
                       "oracle:1000000:sales1": "awr-html"}
    reads = [r["period"]["read_s_per_h"] for r in ranked]
    assert reads[0] == pytest.approx(reads[2] * 3, rel=0.02) and reads[1] == pytest.approx(reads[2] * 2, rel=0.02)
    assert ranked[1]["evidence"] == "2 workloads (awr-html)"

    terminal = run_advisor("fleet", "report", "--repo", repo, "--since", "7d", "--until", UNTIL,
                           env={"COLUMNS": "80"})
    assert terminal.returncode == 0, terminal.stderr
    assert max(len(line) for line in terminal.stdout.splitlines()) <= 80
    for r in ranked:
        assert r["instance_id"] in terminal.stdout, "an instance id is never cut"
    assert terminal.stdout.count("sizes unknown: give") == 3 and "2 workloads (statspack)" in terminal.stdout

    # the same hours imported again with sizes: a row of its own, which the ranking takes
    sizes = sizes_of(tmp_path / "sales-sizes.csv", db_name="SALES", dbid="1000000")
    for hour in (8, 12):
        again = run_advisor("collect", "--from-report", str(tmp_path / f"SALES-{hour}.html"), "--sizes", str(sizes),
                            "--push", repo, "-o", str(tmp_path / f"SALES-{hour}-sized.json"), env=env)
        assert again.returncode == 0 and "pushed 1 new" in again.stderr, again.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.workloads") == 8
    sized = {r["instance_id"]: r for r in _fleet(repo)["instances"]}["oracle:1000000:sales1"]
    assert all(w["source"] == "awr-html+sizes" and w["planned"] for w in sized["busiest"])
    period = sized["period"]
    assert period["planned"] and period["verdict"] != "sizes unknown"
    expected = "saves" if period["saved_share"] >= 0.05 else (
        "no change worth making" if period["saved_s_per_h"] > 0 else "nothing to gain")
    assert period["verdict"] == expected

    show = run_advisor("fleet", "show", "oracle:1000001:hr1", "--repo", repo, "--since", "7d", "--until", UNTIL,
                       env={"COLUMNS": "80"})
    assert show.returncode == 0, show.stderr
    lines = show.stdout.splitlines()
    assert "2 workloads (statspack)" in lines[0]
    assert any(line.startswith(" workload 1 ") for line in lines) and any(" statspack " in f" {line} "
                                                                          for line in lines)
    assert "tablespaces (workload 2)" in show.stdout and "USERS" in show.stdout
    assert max(len(line) for line in lines) <= 80
    chosen = run_advisor("fleet", "show", "oracle:1000001:hr1", "--repo", repo, "--since", "7d", "--until", UNTIL,
                         "--window", "workload 1", "-f", "json")
    assert chosen.returncode == 0, chosen.stderr
    detail = json.loads(chosen.stdout)
    assert detail["window"] == "workload 1" and detail["report"]["plan"] is None
    assert any(w.startswith("No plan: file sizes unknown") for w in detail["report"]["warnings"])


def test_a_workload_row_that_is_not_what_it_claims_is_skipped_and_named(repo_server: PgServer, repo: str,
                                                                         tmp_path: Path) -> None:
    """The collectors' role may insert any row: a workload is believed only as its own instance's and interval's."""
    sales = report_of(tmp_path / "sales.html", db_name="SALES", dbid="1000000", instance="sales1",
                      host="ora0.example.net", begin=dt.datetime(2026, 11, 20, 8), snap=100)
    work = tmp_path / "sales.json"
    assert run_advisor("collect", "--from-report", str(sales), "-o", str(work)).returncode == 0
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    assert run_advisor("push", "--repo", repo, str(work), env=env).returncode == 0
    clean = _fleet(repo)["instances"]
    document = work.read_text().replace("'", "''")
    dbname = repo.split("dbname=")[1].split()[0]
    repo_server.psql(
        "INSERT INTO advisor.instances (instance_id, dbms, identity, host, name) VALUES "
        "('oracle:999:x', 'oracle', '999', 'forged', 'X');"
        "INSERT INTO advisor.workloads (instance_id, started_at, ended_at, source, interval_s, digest, document) "
        f"VALUES ('oracle:999:x', '2026-11-20 08:00', '2026-11-20 09:00', 'awr-html', 3600, 'd', '{document}');"
        "INSERT INTO advisor.workloads (instance_id, started_at, ended_at, source, interval_s, digest, document) "
        f"VALUES ('oracle:1000000:sales1', '2026-11-20 12:00', '2026-11-20 13:00', 'awr-html', 3600, 'd', "
        "'{\"document\": \"workload\"}');", dbname=dbname)
    done = run_advisor("fleet", "report", "--repo", repo, "--since", "7d", "--until", UNTIL, "-f", "json")
    assert done.returncode == 0, done.stderr
    ranked = {r["instance_id"]: r for r in json.loads(done.stdout)["instances"]}
    real, forged = ranked["oracle:1000000:sales1"], ranked["oracle:999:x"]
    assert real["period"] == clean[0]["period"] and real["workloads"] == 1
    assert len(real["skipped"]) == 1 and "2026-11-20T12:00" in real["skipped"][0]
    assert forged["period"] is None and "a workload of oracle:1000000:sales1" in forged["skipped"][0]
    assert done.stderr.count("advisor: warning: skipped a workload row: repository workload") == 2, done.stderr
