"""A clock stepped back makes no false busiest window: the intervals around the misdated snapshot
are marked and left out of the ranking, with a warning.

Eight snapshots 15 minutes apart derived from a real pair (``fleetgen.derive``: counters grow
with the real increase, the host's monotonic clock with the steps); the seventh is dated 65
minutes early, as a host whose wall clock was stepped back would date it. Its interval from
the second snapshot then holds 75 minutes of IO in 10 minutes (7.5x the real rate).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.model import load_snapshot, save
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer
from tests.repo.fleetgen import derive

pytestmark = [pytest.mark.pg, pytest.mark.slow]

START = dt.datetime(2026, 11, 20, 8, 0, tzinfo=dt.UTC)


def _series(real_snapshots: list[Path], root: Path) -> list[Path]:
    a, b = load_snapshot(real_snapshots[0]), load_snapshot(real_snapshots[2])
    [(_n, series)] = list(derive(a, b, 1, 8, START))
    early = dt.datetime.fromisoformat(series[6].taken_at) - dt.timedelta(minutes=65)
    series[6] = replace(series[6], taken_at=early.isoformat())
    paths = []
    for n, snap in enumerate(series):
        path = root / f"s{n}.json"
        save(snap, path)
        paths.append(path)
    return paths


def test_a_snapshot_dated_early_makes_no_busiest_window(repo_server: PgServer, repo: str,
                                                        real_snapshots: list[Path], tmp_path: Path) -> None:
    paths = _series(real_snapshots, tmp_path)
    assert load_snapshot(paths[6]).layout is not None and load_snapshot(paths[6]).layout.diskstats_at_monotonic_s
    pushed = run_advisor("push", "--repo", repo, *map(str, paths), env={"ADVISOR_SPOOL": str(tmp_path / "spool")})
    assert pushed.returncode == 0, pushed.stderr
    misdated = load_snapshot(paths[6]).taken_at
    for command in (("fleet", "report"), ("fleet", "show", "db000.example.net")):
        done = run_advisor(*command, "--repo", repo, "--since", "30d", "-f", "json")
        assert done.returncode == 0, done.stderr
        doc = json.loads(done.stdout)
        [item] = doc["instances"] if "instances" in doc else [doc["instance"]]
        ends = [w["ended_at"] for w in item["busiest"]] + [w["started_at"] for w in item["busiest"]]
        assert not any(dt.datetime.fromisoformat(t) == dt.datetime.fromisoformat(misdated) for t in ends), \
            (command, item["busiest"])
        assert any("clock" in w for w in item["warnings"]), (command, item["warnings"])
