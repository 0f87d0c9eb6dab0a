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


def test_only_the_snapshot_whose_removal_restores_the_order_is_blamed() -> None:
    from advisor.repo.comparable import misdated

    same = ["2026-11-20T00:00:00+00:00"] * 6
    assert misdated([10, 20, 80, 30, 40, 50], same) == {2}  # dated early: its neighbours agree without it
    assert misdated([10, 20, 30, 5, 8, 12], same) == set()  # a reset of the statistics: nobody is blamed
    assert misdated([10, 20, 30, 5], [*same[:3], "2026-11-20T01:00:00+00:00"]) == set()  # a restart


def test_a_dropped_relation_is_no_clock_step(real_snapshots: list[Path]) -> None:
    from advisor.repo.comparable import not_comparable

    a, b = load_snapshot(real_snapshots[0]), load_snapshot(real_snapshots[2])
    busiest = max(a.files, key=lambda f: f.reads)
    dropped = replace(b, files=tuple(f for f in b.files if f.file_id != busiest.file_id))
    assert not_comparable(a, dropped) is None
    backwards = replace(a, taken_at=b.taken_at)
    assert not_comparable(replace(b, taken_at=a.taken_at), backwards) == "clock"  # b's counters dated before a's
