"""Live V$ sampling through the replay harness: 11.2, 12.1, 19c, 19c CDB and 2-node RAC."""

from __future__ import annotations

import dataclasses

import pytest

from advisor.model import FileRate, Snapshot
from advisor.rates.workload import file_rate, zero_baseline
from tests.oracle.oracle_replay import Replay, take
from tests.oracle.oracle_scenarios import INTERVAL_S, SCENARIOS, STARTUP, Scenario


def rates(first: Snapshot, second: Snapshot) -> dict[str, FileRate]:
    import datetime as dt

    interval = (dt.datetime.fromisoformat(second.taken_at) - dt.datetime.fromisoformat(first.taken_at)).total_seconds()
    before = {f.file_id: f for f in first.files}
    return {
        f.file_id: file_rate(before.get(f.file_id) or zero_baseline(f), f, interval, timing=True)
        for f in second.files
    }


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_snapshot_pair_gives_per_file_rates(replay: Replay, name: str) -> None:
    scenario = SCENARIOS[name]
    first = take(replay, scenario.connection(0))
    second = take(replay, scenario.connection(1))
    assert second.taken_at > first.taken_at
    r = rates(first, second)
    users = next(v for v in r.values() if v.tablespace == "USERS")
    assert users.read_iops == pytest.approx(6000 / INTERVAL_S)
    assert users.write_iops == pytest.approx(1800 / INTERVAL_S)
    assert users.read_latency_ms == pytest.approx(8.0)  # 4800 cs = 48 s over 6000 reads
    assert users.random_share == pytest.approx(0.8)
    assert users.mean_read_kb == pytest.approx(24000 * 8192 / 6000 / 1024)
    temp = r["temp:1:4000"]
    assert (temp.kind, temp.read_iops, temp.read_latency_ms) == ("temp", pytest.approx(5.0), pytest.approx(5.0))
    redo = r["redo:1:1"]
    assert redo.kind == "redo" and redo.path == "/u04/redo/redo01a.log"
    assert redo.write_iops == pytest.approx(50.0) and redo.write_latency_ms == pytest.approx(0.5)
    assert r["redo:1:2"].write_iops == pytest.approx(50.0) and r["redo:1:2"].read_iops == 0
    archive = r["archive"]
    factor = 1.4 if scenario.instances == 2 else 1.0  # RAC: instance 2 archives 0.4x as much
    assert archive.path == "/u06/arch" and archive.write_iops == pytest.approx(100 / INTERVAL_S * factor)
    assert archive.write_latency_ms == pytest.approx(20.0)
    assert second.wait.io_wait_share == pytest.approx(0.55)
    assert second.server.identity == first.server.identity
    undo = [v for v in r.values() if v.tablespace == "UNDOTBS1"]
    assert [v.kind for v in undo] == ["undo"]


def test_version_picks_the_right_sql_files(replay: Replay) -> None:
    old = SCENARIOS["11.2"].connection(0)
    take(replay, old)
    texts = {s.marker: s.sql for s in old.statements}
    assert "con_id" not in texts["filestat"] and "version_full" not in texts["instance"]
    assert "containers" not in texts  # not a CDB
    new = SCENARIOS["19c"].connection(0)
    snapshot = take(replay, new)
    texts = {s.marker: s.sql for s in new.statements}
    assert "con_id" in texts["filestat"] and "version_full" in texts["instance"]
    assert snapshot.server.version == "19.21.0.0.0" and snapshot.server.major == 19
    assert new.module == "advisor" and new.call_timeout == 30_000 and new.closed


def test_cdb_names_containers_and_joins_tablespaces_per_container(replay: Replay) -> None:
    snapshot = take(replay, SCENARIOS["19c-cdb"].connection(0))
    by_id = {f.file_id: f for f in snapshot.files}
    assert by_id["data:12:9100"].container == "SALES" and by_id["data:12:9100"].tablespace == "USERS"
    assert by_id["data:13:9200"].container == "HR" and by_id["data:13:9200"].tablespace == "USERS"
    assert by_id["data:9:3100"].tablespace == "SYSTEM" and by_id["data:9:3100"].container == "SALES"
    # temp file 1 and data file 1 share FILE# but not the id
    assert by_id["temp:1:4000"].kind == "temp" and by_id["data:1:7"].kind == "data"
    assert by_id["redo:1:1"].container == "CDB1"
    assert snapshot.server.settings["cdb"] == "YES" and not snapshot.warnings


def test_cdb_without_container_data_warns(replay: Replay) -> None:
    conn = SCENARIOS["19c-cdb"].connection(0)
    for query in ("datafile", "filestat", "tempfile", "tempstat"):
        rows = conn.recordings[query]
        assert isinstance(rows, list)
        conn.recordings[query] = [r for r in rows if r["CON_ID"] <= 1]
    snapshot = take(replay, conn)
    assert any("CONTAINER_DATA=ALL" in w for w in snapshot.warnings)
    assert {f.container for f in snapshot.files if f.kind == "data"} == {"CDB$ROOT"}


def test_rac_sums_instances_and_keeps_redo_per_thread(replay: Replay) -> None:
    scenario = SCENARIOS["19c-rac"]
    first = take(replay, scenario.connection(0))
    second = take(replay, scenario.connection(1))
    r = rates(first, second)
    assert r["redo:2:1"].write_iops == pytest.approx(20.0)  # instance 2: 1200 writes per minute
    assert r["redo:2:1"].path == "/u04/redo/redo03a.log" and r["redo:2:1"].kind == "redo"
    assert second.server.instance == "orcl1,orcl2"
    assert second.server.started_at == "1:2026-11-01T08:00:00;2:2026-11-01T08:01:00"


def test_timed_statistics_false_gives_no_latency(replay: Replay) -> None:
    scenario = dataclasses.replace(SCENARIOS["11.2"], timed=False)
    first = take(replay, scenario.connection(0))
    second = take(replay, scenario.connection(1))
    assert all(f.read_time_ms is None and f.write_time_ms is None for f in second.files)
    assert any("TIMED_STATISTICS is FALSE" in w for w in second.warnings)
    assert second.wait.io_wait_share is None
    r = rates(first, second)
    assert r["data:4:9100"].read_iops == pytest.approx(100.0) and r["data:4:9100"].read_latency_ms is None


def test_restart_between_samples_changes_the_identity_clock(replay: Replay) -> None:
    import datetime as dt

    scenario: Scenario = SCENARIOS["19c"]
    first = take(replay, scenario.connection(0))
    second = take(replay, scenario.connection(1, startup=STARTUP + dt.timedelta(days=20)))
    assert first.server.identity == second.server.identity
    assert first.server.instance == second.server.instance
    assert first.server.started_at != second.server.started_at
    from advisor.errors import StatsReset
    from advisor.rates.workload import diff

    with pytest.raises(StatsReset, match="start time"):
        diff(first, second)


def test_snapshot_diff_through_the_shared_workload_api(replay: Replay) -> None:
    from advisor.rates.workload import diff

    scenario = SCENARIOS["19c-cdb"]
    first = take(replay, scenario.connection(0))
    second = take(replay, scenario.connection(1))
    result = diff(first, second)
    by_id = {r.file_id: r for r in result.rates}
    assert result.interval_s == pytest.approx(INTERVAL_S)
    assert by_id["data:12:9100"].read_iops == pytest.approx(100.0)
    assert by_id["data:12:9100"].read_latency_ms == pytest.approx(8.0)
    assert by_id["temp:3:4100"].read_iops == pytest.approx(10.0)
    assert by_id["redo:1:1"].write_iops == pytest.approx(50.0)
    assert by_id["archive"].write_iops == pytest.approx(100 / 60)
    assert result.wait.io_wait_share == pytest.approx(0.55)  # diffed cumulative DB time and IO wait
    assert result.wait.db_time_s == pytest.approx(120.0)
