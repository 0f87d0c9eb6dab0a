"""Preconditions are said before the interval, and a long interval is not silent.

With ``track_io_timing`` off (PostgreSQL's default) the first report said ``IO share of DB
time: -`` ten minutes later; ``collect --interval 600`` printed "watching for 600 s" and
nothing until the end. Now the warning, with the fix, comes before the wait, and the wait
reports the elapsed time. Real servers, real processes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.collect import sampling
from advisor.collect.context import CollectOptions
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, available_versions, running_postgres

pytestmark = pytest.mark.pg


@pytest.fixture(scope="module")
def untimed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    version = max(available_versions())
    with running_postgres(version, tmp_path_factory.mktemp("untimed")) as server:
        yield server


def test_timing_off_is_said_before_the_wait_with_the_fix(untimed: PgServer, tmp_path: Path) -> None:
    done = run_advisor("collect", "--dsn", untimed.dsn, "--interval", "2", "-o", str(tmp_path / "w.json"))
    assert done.returncode in (0, 4), done.stderr
    lines = done.stderr.splitlines()
    warning = next(i for i, line in enumerate(lines) if "track_io_timing is off" in line)
    watching = next(i for i, line in enumerate(lines) if "watching for 2 s" in line)
    assert warning < watching, lines
    assert "ALTER SYSTEM SET track_io_timing = on" in lines[warning] and "IO share of DB time" in lines[warning]
    assert any("track_wal_io_timing is off" in line for line in lines[:watching])


def test_a_single_snapshot_says_it_too_and_timed_servers_hear_nothing(untimed: PgServer, tmp_path: Path) -> None:
    single = run_advisor("collect", "--dsn", untimed.dsn, "-o", str(tmp_path / "s.json"))
    assert "track_io_timing is off" in single.stderr
    untimed.psql("ALTER SYSTEM SET track_io_timing = on; ALTER SYSTEM SET track_wal_io_timing = on; "
                 "SELECT pg_reload_conf();")
    try:
        timed = run_advisor("collect", "--dsn", untimed.dsn, "-o", str(tmp_path / "t.json"))
        assert timed.returncode in (0, 4) and "timing is off" not in timed.stderr, timed.stderr
    finally:
        untimed.psql("ALTER SYSTEM RESET track_io_timing; ALTER SYSTEM RESET track_wal_io_timing; "
                     "SELECT pg_reload_conf();")


def test_the_wait_reports_the_elapsed_time(untimed: PgServer) -> None:
    heard: list[str] = []
    seen_first = []
    plugins = sampling.find_plugins("postgres")
    with sampling.LiveSession(plugins, untimed.dsn, CollectOptions(statement_timeout_s=30.0)) as session:
        first, second = sampling.sample_pair(session, 2.0, heard.append, after_first=seen_first.append,
                                             tick_every_s=0.5)
    ticks = [line for line in heard if line.startswith("watching: ")]
    assert len(ticks) >= 2 and ticks[-1].endswith("of 2 s"), heard
    assert seen_first == [first] and second.wait.source == "pg_stat_activity" and second.wait.samples >= 3


def test_a_collection_ends_with_a_summary_of_what_it_holds(untimed: PgServer, tmp_path: Path) -> None:
    done = run_advisor("collect", "--dsn", untimed.dsn, "--interval", "1", "-o", str(tmp_path / "w.json"))
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("advisor: postgres ") and " databases, " in last and " files, " in last, last
    assert "paths located on" in last and "workload over 1 s: " in last and "files rated" in last
