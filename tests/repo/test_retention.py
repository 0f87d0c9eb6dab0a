"""Retention and time bounds on a real repository: unambiguous durations, a plan printed
before anything goes, ``--dry-run``, partitions with unreadable bounds skipped and named, and
document times outside 1970..2199 refused before they can make such a partition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.errors import BadInput
from advisor.repo.retention import parse_duration
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer
from tests.helpers.pg_checks import count


@pytest.mark.parametrize(("text", "seconds"), [
    ("15min", 900), ("12h", 43200), ("90d", 7776000), ("2w", 1209600), ("6mo", 6 * 30 * 86400), ("1y", 365 * 86400),
    ("100y", 36500 * 86400)])
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text, "--keep").total_seconds() == seconds


@pytest.mark.parametrize(("text", "words"), [
    ("1m", "'m' could mean minutes or months; write 1min for minutes or 1mo for months"),
    ("9999999999d", "at most 100 years (36500d)"), ("101y", "at most 100 years"),
    ("0d", "positive duration"), ("-1d", "positive duration"), ("90", "positive duration"), ("", "positive duration"),
    ("3 fortnights", "positive duration")])
def test_bad_durations(text: str, words: str) -> None:
    with pytest.raises(BadInput, match="--keep") as caught:
        parse_duration(text, "--keep")
    assert words in caught.value.one_line()


def test_minutes_where_only_minutes_make_sense() -> None:
    assert parse_duration("15m", "--every", minutes_m=True).total_seconds() == 900



def _dated(source: Path, root: Path, taken_at: str) -> Path:
    doc = json.loads(source.read_text())
    doc["taken_at"] = taken_at
    path = root / f"snap-{taken_at[:10]}.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.pg
@pytest.mark.slow
def test_document_times_are_bounded(repo_server: PgServer, repo: str, real_snapshots: list[Path],
                                    tmp_path: Path) -> None:
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    for taken_at in ("9999-12-31T00:00:00+00:00", "1969-12-31T23:59:59+00:00"):
        done = run_advisor("push", "--repo", repo, str(_dated(real_snapshots[0], tmp_path, taken_at)), env=env)
        assert done.returncode == 6, done.stderr
        assert f"taken_at is '{taken_at}'; a time must lie between 1970-01-01 and 2199-12-31" in done.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 0
    for args, code, words in ((["--until", "0001-01-01T00:00:00"], 6, "between 1970-01-01 and 2199-12-31"),
                              (["--since", "1m"], 6, "write 1min for minutes or 1mo for months")):
        shown = run_advisor("fleet", "report", "--repo", repo, *args)
        assert shown.returncode == code and words in shown.stderr, shown.stderr
        assert "internal error" not in shown.stderr


@pytest.mark.pg
@pytest.mark.slow
def test_prune_plans_dry_runs_and_skips_partitions_it_cannot_read(
        repo_server: PgServer, repo: str, real_snapshots: list[Path], tmp_path: Path) -> None:
    dbname = repo.split("dbname=")[1].split()[0]
    env = {"ADVISOR_SPOOL": str(tmp_path / "spool")}
    old = _dated(real_snapshots[0], tmp_path, "2026-01-15T10:00:00+00:00")
    later = tmp_path / "later"
    later.mkdir()
    old2 = _dated(real_snapshots[1], later, "2026-01-15T10:15:00+00:00")
    pushed = run_advisor("push", "--repo", repo, str(old), str(old2), str(real_snapshots[2]), env=env)
    assert pushed.returncode == 0, pushed.stderr
    # partitions a repository could hold before document times were bounded
    repo_server.psql("CREATE TABLE advisor.snapshots_999912 PARTITION OF advisor.snapshots "
                     "FOR VALUES FROM ('9999-12-01 00:00:00+00') TO ('10000-01-01 00:00:00+00');"
                     "CREATE TABLE advisor.workloads_bc PARTITION OF advisor.workloads "
                     "FOR VALUES FROM ('0044-03-01 00:00:00+00 BC') TO ('0044-04-01 00:00:00+00 BC')", dbname=dbname)

    ambiguous = run_advisor("repo", "prune", "--dsn", repo, "--keep", "1m")
    assert ambiguous.returncode == 6 and "write 1min for minutes or 1mo for months" in ambiguous.stderr
    huge = run_advisor("repo", "prune", "--dsn", repo, "--keep", "9999999999d")
    assert huge.returncode == 6 and "at most 100 years" in huge.stderr and "internal" not in huge.stderr

    dry = run_advisor("repo", "prune", "--dsn", repo, "--keep", "90d", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    dropped = "snapshots_202601, interval_summaries_202601, summary_hourly_202601, summary_daily_202601"
    assert ("2 snapshots, 0 workloads, 0 reports, 0 disk profiles from 2026-01-15T10:00:00+00:00 to "
            f"2026-01-15T10:15:00+00:00; partitions dropped whole: {dropped}") in dry.stderr, dry.stderr
    assert "would remove everything before" in dry.stderr
    for name in ("snapshots_999912", "workloads_bc"):
        assert f"warning: partition {name} skipped" in dry.stderr
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 3  # nothing removed
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.summary_daily WHERE bucket < '2026-02-01'") == 1

    done = run_advisor("repo", "prune", "--dsn", repo, "--keep", "90d")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-2].startswith("advisor: removing everything before") and "2 snapshots" in lines[-2]
    assert f"dropped partitions: {dropped}" in lines[-1], lines
    assert count(repo_server, repo, "SELECT count(*) FROM advisor.snapshots") == 1
    for table in ("interval_summaries", "summary_hourly", "summary_daily"):  # gone with their months
        assert count(repo_server, repo, f"SELECT count(*) FROM advisor.{table} WHERE "
                                        f"{'bucket' if 'summary_' in table else 'ended_at'} < '2026-02-01'") == 0
        assert repo_server.psql(f"SELECT to_regclass('advisor.{table}_202601') IS NULL", dbname=dbname) == "t"
    assert repo_server.psql("SELECT to_regclass('advisor.snapshots_999912') IS NOT NULL", dbname=dbname) == "t"
