"""Segment rates between two Statspack (STATS$SEG_STAT) or AWR (DBA_HIST_SEG_STAT) snapshots."""

from __future__ import annotations

import pytest

from advisor.collectors.oracle import history_workload
from advisor.model import SegmentRate, Workload
from tests.oracle.oracle_replay import ReplayConnection, ora_error
from tests.oracle.oracle_scenarios import SCENARIOS, statspack_recordings


def _workload(prefix: str, conn: ReplayConnection | None = None) -> Workload:
    conn = conn or ReplayConnection("11.2.0.4.0", statspack_recordings(SCENARIOS["11.2"], prefix=prefix))
    options: dict[str, object] = {prefix: "10:11"} | ({"diagnostics_pack": True} if prefix == "awr" else {})
    return history_workload(conn, options)


def _by_id(workload: Workload) -> dict[str, SegmentRate]:
    return {s.segment_id: s for s in workload.segments}


def test_statspack_segments_are_end_minus_begin_in_blocks() -> None:
    workload = _workload("statspack")
    orders = _by_id(workload)["ORCL:SCOTT.ORDERS"]
    # one hour of 24,000 blocks read and 1,200 written per minute: 400 and 20 blocks/s (requests unknown)
    assert orders.read_iops == pytest.approx(400.0) and orders.write_iops == pytest.approx(20.0)
    assert orders.from_blocks and orders.direct_read_share == pytest.approx(0.25)
    assert orders.scans_per_s is None and orders.tablespace == "USERS"
    # SALES:P2026Q4 was below the Statspack threshold at snap 10: rated from zero, an upper bound, and said
    sales = _by_id(workload)["ORCL:SCOTT.SALES:P2026Q4"]
    assert sales.read_iops == pytest.approx(6_000 * 60 * 11 / 3600)
    assert any("first seen" in w and "SALES:P2026Q4" in w for w in workload.warnings)


def test_awr_segments_sum_the_deltas_after_the_begin_snap() -> None:
    conn = ReplayConnection("11.2.0.4.0", statspack_recordings(SCENARIOS["11.2"], prefix="awr"))
    workload = _workload("awr", conn)
    orders = _by_id(workload)["ORCL:SCOTT.ORDERS"]
    assert orders.read_iops == pytest.approx(50.0) and orders.write_iops == pytest.approx(10.0)
    assert not orders.from_blocks and orders.scans_per_s == pytest.approx(0.1)
    assert any("top segments of each snapshot" in w for w in workload.warnings)
    binds = next(s.binds for s in conn.statements if s.marker == "awr_seg_stat")
    assert binds["begin_snap"] == 10 and binds["end_snap"] == 11


def test_statspack_never_reads_dba_hist_seg_stat() -> None:
    conn = ReplayConnection("11.2.0.4.0", statspack_recordings(SCENARIOS["11.2"]))
    _workload("statspack", conn)
    assert not [s for s in conn.statements if "dba_hist" in s.sql.lower()]
    assert "statspack_seg_stat" in {s.marker for s in conn.statements}


def test_a_missing_segment_table_costs_only_the_segments() -> None:
    conn = ReplayConnection("11.2.0.4.0", statspack_recordings(SCENARIOS["11.2"]))
    conn.errors["statspack_seg_stat"] = ora_error(942, "table or view does not exist")
    workload = _workload("statspack", conn)
    assert workload.segments == () and workload.rates
    assert any("STATS$SEG_STAT" in w and "GRANT SELECT ON PERFSTAT.STATS$SEG_STAT" in w for w in workload.warnings)


def test_awr_segments_of_a_cdb_are_named_per_container() -> None:
    scenario = SCENARIOS["19c-cdb"]
    conn = ReplayConnection(scenario.version_full or scenario.version, statspack_recordings(scenario, prefix="awr"))
    workload = history_workload(conn, {"awr": "10:11", "diagnostics_pack": True, "dbid": 1234567890})
    found = _by_id(workload)
    assert found["SALES:SCOTT.ORDERS"].read_iops == pytest.approx(50.0)
    assert found["HR:HR.EMP"].read_iops == pytest.approx(20.0)
    assert "con_id" in next(s.sql for s in conn.statements if s.marker == "awr_seg_stat")
