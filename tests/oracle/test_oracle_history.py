"""Statspack (free) and AWR (licensed) history, and the licensing guard on DBA_HIST_*."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.collect.context import CollectContext
from advisor.collectors.oracle import OracleCollector, history_workload
from advisor.errors import BadInput, StatsReset, Unsupported
from advisor.model import Workload
from tests.oracle.oracle_replay import ReplayConnection
from tests.oracle.oracle_scenarios import SCENARIOS, statspack_recordings


def connection(**kwargs: object) -> ReplayConnection:
    scenario = SCENARIOS["11.2"]
    return ReplayConnection(scenario.version, statspack_recordings(scenario, **kwargs))  # type: ignore[arg-type]


def touched_dba_hist(conn: ReplayConnection) -> list[str]:
    return [s.marker for s in conn.statements if "dba_hist" in s.sql.lower()]


def check_rates(workload: Workload) -> None:
    by_id = {r.file_id: r for r in workload.rates}
    users = by_id["data:4:/u02/oradata/ORCL/users01.dbf"]
    assert workload.interval_s == 3600
    assert users.read_iops == pytest.approx(100.0) and users.read_latency_ms == pytest.approx(8.0)
    assert users.write_iops == pytest.approx(30.0) and users.random_share == pytest.approx(0.8)
    temp = by_id["temp:1:/u03/oradata/ORCL/temp01.dbf"]
    assert temp.kind == "temp" and temp.read_iops == pytest.approx(5.0)
    assert by_id["data:3:/u01/oradata/ORCL/undotbs01.dbf"].kind == "undo"
    redo = by_id["redo:1:1"]
    assert redo.write_iops == pytest.approx(50.0) and redo.write_latency_ms == pytest.approx(0.5)
    assert redo.path == "/u04/redo/redo01a.log"
    assert workload.wait.io_wait_share == pytest.approx(0.3)  # 36 s sequential read per 120 s DB time


def test_statspack_between_two_snaps() -> None:
    conn = connection()
    workload = history_workload(conn, {"statspack": "10:11"})
    assert workload.source == "statspack" and workload.server.identity == "1234567890"
    check_rates(workload)
    assert not touched_dba_hist(conn)
    binds = next(s.binds for s in conn.statements if s.marker == "statspack_filestat")
    assert binds == {"begin_snap": 10, "end_snap": 11, "dbid": 1234567890, "instance_number": 1}


def test_statspack_refuses_a_restart_between_snaps() -> None:
    with pytest.raises(StatsReset, match="restarted between statspack snapshots 10 and 11"):
        history_workload(connection(restart=True), {"statspack": (10, 11)})


@pytest.mark.parametrize(
    ("snaps", "message"), [("10:99", "snapshot 99 not found"), ("11:10", "lower"), ("x", "BEGIN:END")]
)
def test_statspack_bad_ranges(snaps: str, message: str) -> None:
    with pytest.raises(BadInput, match=message):
        history_workload(connection(), {"statspack": snaps})


def test_a_snapshot_without_a_time_is_bad_input_not_a_traceback() -> None:
    recordings = statspack_recordings(SCENARIOS["11.2"])
    served = recordings["statspack_snapshot"]

    def blank_begin(binds: Any) -> list[dict[str, Any]]:
        return [{**row, "SNAP_TIME": None} if row["SNAP_ID"] == 10 else row for row in served(binds)]

    recordings["statspack_snapshot"] = blank_begin
    conn = ReplayConnection(SCENARIOS["11.2"].version, recordings)
    with pytest.raises(BadInput, match="snapshots 10 and 11 have no positive time between them"):
        history_workload(conn, {"statspack": "10:11"})


def test_awr_needs_the_diagnostics_pack_flag() -> None:
    conn = ReplayConnection("11.2.0.4.0", statspack_recordings(SCENARIOS["11.2"], prefix="awr"))
    with pytest.raises(Unsupported, match="Diagnostics Pack"):
        history_workload(conn, {"awr": "10:11"})
    assert conn.statements == [] and not touched_dba_hist(conn)
    workload = history_workload(conn, {"awr": "10:11", "diagnostics_pack": True})
    check_rates(workload)
    assert workload.source == "awr"
    assert set(touched_dba_hist(conn)) >= {"awr_filestat", "awr_snapshot", "awr_system_event"}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_live_collection_never_reads_dba_hist(name: str) -> None:
    conn = SCENARIOS[name].connection(0)
    OracleCollector().collect(conn, CollectContext(options={"diagnostics_pack": False}))
    assert conn.statements and not touched_dba_hist(conn)
    assert all("/* advisor:" in s.sql for s in conn.statements)
