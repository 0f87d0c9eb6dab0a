"""``fleet show`` prints the report ``advisor report`` prints over the same window.

Both go through the one entry (``advise(AdviceRequest)``), so the report of a window shown
by the fleet carries what the command's carries: the model basis and why, the findings, why
there is no plan, the outcome, and for a report import its coverage of the report's own
totals. Real snapshots of a real PostgreSQL server (tests/repo/conftest.py) and the AWR
sample with its sizes file are pushed into a real repository; the fleet's report of the
whole period (snapshots) and of the workload is compared field by field with
``advisor report`` over the same first and last snapshot, and the same workload file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import TREE, run_advisor
from tests.helpers.pg import PgServer

pytestmark = [pytest.mark.pg]

SAMPLES = TREE / "advisor" / "samples"
SAME = ("model_basis", "findings", "no_plan", "outcome", "areas", "coverage", "io_wait_share", "interval_s")
"""What a person reads off a report and the fleet must not say otherwise."""


def _json(*args: str, env: dict[str, str | None] | None = None) -> dict[str, Any]:
    done = run_advisor(*args, "-f", "json", env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _same(shown: dict[str, Any], report: dict[str, Any]) -> None:
    for name in SAME:
        assert shown[name] == report[name], name


def test_fleet_show_and_report_say_the_same_of_one_window(repo_server: PgServer, repo: str,
                                                          real_snapshots: list[Path], tmp_path: Path) -> None:
    env: dict[str, str | None] = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    awr = tmp_path / "awr.json"
    done = run_advisor("collect", "--from-report", str(SAMPLES / "awr_12.1.0.2.html"), "--sizes",
                       str(SAMPLES / "sizes12.txt"), "-o", str(awr))
    assert done.returncode in (0, 4), done.stderr
    pushed = run_advisor("push", "--repo", repo, *map(str, real_snapshots), str(awr), env=env)
    assert pushed.returncode == 0, pushed.stderr
    window = ("--repo", repo, "--since", "9000d")
    ranking = _json("fleet", "report", *window)
    keys = {i["dbms"]: i["instance_id"] for i in ranking["instances"]}
    for preset in ((), ("--preset", "class-7200-desktop")):
        shown = _json("fleet", "show", keys["postgres"], *window, *preset)
        report = _json("report", "--snapshot", str(real_snapshots[0]), str(real_snapshots[-1]), *preset)
        assert shown["window"] == "period"
        assert report["model_basis"], "the report says which model judged the disks and why"
        _same(shown["report"], report)

    imported = _json("fleet", "show", keys["oracle"], *window, "--window", "workload 1")
    report = _json("report", "--workload", str(awr))
    assert report["coverage"], "an import says how much of the report's stated IO it accounts for"
    _same(imported["report"], report)

    # the terminal says the model and why in the same words
    terminal = run_advisor("fleet", "show", keys["postgres"], *window)
    assert terminal.returncode == 0, terminal.stderr
    said = run_advisor("report", "--snapshot", str(real_snapshots[0]), str(real_snapshots[-1]))
    model_line = next(line.strip() for line in said.stdout.splitlines() if "disk model:" in line)
    assert model_line in {line.strip() for line in terminal.stdout.splitlines()}
