"""Reset, restart and crash detection between two real snapshots (reference §4.5)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.collect.context import build_snapshot
from advisor.errors import StatsReset
from advisor.model import Snapshot, save
from advisor.rates.workload import diff
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, running_postgres
from tests.helpers.pg_checks import EXERCISED, collect_context

pytestmark = [pytest.mark.pg, pytest.mark.slow]


def snap(server: PgServer) -> Snapshot:
    return build_snapshot(collect_context(server), [])


@pytest.fixture(scope="module", params=[15, 18], ids=lambda v: f"pg{v}")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    version = int(request.param)
    with running_postgres(version, tmp_path_factory.mktemp(f"reset{version}")) as started:
        EXERCISED.add(version)
        started.psql("CREATE TABLE t AS SELECT g AS id FROM generate_series(1, 20000) g; CHECKPOINT;")
        yield started


def _read(server: PgServer) -> None:
    server.psql("SELECT count(*) FROM t")


def test_quiet_interval_has_no_warning(server: PgServer) -> None:
    a = snap(server)
    _read(server)
    workload = diff(a, snap(server))
    # Autovacuum may create files meanwhile ("new files" warnings); no rule may fire.
    assert not [w for w in workload.warnings if w.startswith(("restart", "stats-reset", "timing"))]
    assert workload.interval_s > 0 and not any(r.lower_bound for r in workload.rates)


def test_pg_stat_reset_refuses(server: PgServer, tmp_path: Path) -> None:
    _read(server)
    a = snap(server)
    server.psql("SELECT pg_stat_reset()")
    b = snap(server)
    with pytest.raises(StatsReset) as caught:
        diff(a, b)
    assert "rule stats-reset" in caught.value.message and "database:postgres" in caught.value.message
    relaxed = diff(a, b, allow_reset=True)
    assert any(w.startswith("stats-reset:") for w in relaxed.warnings)
    assert any(r.lower_bound for r in relaxed.rates), "relation counters went back to zero"
    # The same through the CLI: exit 9, one line, no traceback.
    save(a, tmp_path / "a.json")
    save(b, tmp_path / "b.json")
    done = run_advisor("workload", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert done.returncode == 9
    assert done.stderr.startswith("advisor: error: rule stats-reset") and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_reset_shared(server: PgServer) -> None:
    a = snap(server)
    server.psql("SELECT pg_stat_reset_shared('bgwriter')")
    warned = diff(a, snap(server))  # only the bgwriter view: a warning, not a refusal
    assert any("stats_reset of bgwriter" in w for w in warned.warnings)
    a = snap(server)
    server.psql("SELECT pg_stat_reset_shared('wal')")
    with pytest.raises(StatsReset, match="stats_reset of wal"):
        diff(a, snap(server))


def test_clean_restart_warns_only(server: PgServer) -> None:
    _read(server)
    a = snap(server)
    server.restart("fast")
    workload = diff(a, snap(server))
    assert any(w.startswith("restart:") for w in workload.warnings)
    assert not any(r.lower_bound for r in workload.rates), "a clean restart keeps the counters"


def test_crash_restart_refuses(server: PgServer) -> None:
    _read(server)
    a = snap(server)
    server.restart("immediate")  # crash recovery discards all statistics
    b = snap(server)
    with pytest.raises(StatsReset, match="rule stats-reset"):
        diff(a, b)
    relaxed = diff(a, b, allow_reset=True)
    assert any(w.startswith("restart:") for w in relaxed.warnings)
    assert any(r.lower_bound for r in relaxed.rates)


def test_table_created_in_the_interval_is_rated_from_zero(server: PgServer) -> None:
    server.psql("DROP TABLE IF EXISTS born_later")
    a = snap(server)
    server.psql("CREATE TABLE born_later AS SELECT g AS id FROM generate_series(1, 5000) g")
    workload = diff(a, snap(server))
    assert any(r.name == "public.born_later" and r.size_bytes > 0 for r in workload.rates)
    assert any("rated from zero" in w for w in workload.warnings)
