"""Live per-segment counters (GV$SEGSTAT + dictionary + DBA_EXTENTS) replayed from recorded rows."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from advisor.collectors.oracle import segments as live_segments
from advisor.model import SegmentRate, Snapshot, Workload
from advisor.rates.workload import diff
from tests.oracle.oracle_replay import Replay, ReplayConnection, dpy_error, ora_error, take
from tests.oracle.oracle_scenarios import INTERVAL_S, SCENARIOS
from tests.oracle.oracle_segments import DROPPED, SEGMENTS, Seg, segment_rows

MIB_S = 8192 / 2**20 / INTERVAL_S


def _pair(replay: Replay, name: str, change: Callable[[ReplayConnection, int], None] | None = None,
          ) -> tuple[Snapshot, Snapshot, Workload]:
    scenario = SCENARIOS[name]
    conns = [scenario.connection(0), scenario.connection(1)]
    if change is not None:
        for sample, conn in enumerate(conns):
            change(conn, sample)
    first, second = take(replay, conns[0]), take(replay, conns[1])
    return first, second, diff(first, second)


def _by_id(workload: Workload) -> dict[str, SegmentRate]:
    return {s.segment_id: s for s in workload.segments}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_two_samples_give_segment_rates(replay: Replay, name: str) -> None:
    scenario = SCENARIOS[name]
    first, second, workload = _pair(replay, name)
    container = "SALES" if scenario.cdb else "ORCL"
    found = _by_id(workload)
    orders = found[f"{container}:SCOTT.ORDERS"]
    # per minute: 3,000 read requests of 24,000 blocks (6,000 direct), 600 write requests of 1,200 blocks, 6 scans
    assert orders.read_iops == pytest.approx(50.0) and orders.write_iops == pytest.approx(10.0)
    assert orders.read_mb_s == pytest.approx(24_000 * MIB_S) and orders.write_mb_s == pytest.approx(1_200 * MIB_S)
    assert orders.direct_read_share == pytest.approx(0.25) and orders.scans_per_s == pytest.approx(0.1)
    assert not orders.from_blocks and not orders.lower_bound
    assert (orders.segment_type, orders.tablespace, orders.size_bytes) == ("TABLE", "USERS", 2048 << 20)
    users_file = "data:12:9100" if scenario.cdb else "data:4:9100"
    assert orders.file_ids == (users_file,)
    index = found[f"{container}:SCOTT.ORDERS_PK"]
    assert index.parent == "SCOTT.ORDERS"
    assert index.direct_read_share == 0.0 and index.scans_per_s == 0.0  # zero rows are left out, not unknown
    lob = found[f"{container}:SCOTT.SYS_LOB0000074001C00004$$"]
    assert lob.parent == "SCOTT.ORDERS" and lob.segment_type == "LOBSEGMENT"
    part = found[f"{container}:SCOTT.SALES:P2026Q4"]
    assert part.partition == "P2026Q4" and part.read_iops == pytest.approx(10.0)
    assert part.direct_write_share == pytest.approx(1.0)
    assert ("HR:HR.EMP" in found) == scenario.cdb
    # counters are cumulative since startup and summed over RAC instances
    raw = {s.segment_id: s for s in second.segments}[f"{container}:SCOTT.ORDERS"]
    assert raw.physical_read_requests == 3_000 * 11 and raw.object_id == 74001
    assert not any("segment" in w for w in (*first.warnings, *workload.warnings))


def test_only_the_top_segments_ask_dba_extents(replay: Replay, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_segments, "TOP_SEGMENTS", 2)
    conn = SCENARIOS["19c"].connection(0)
    snapshot = take(replay, conn)
    asked = [s.binds["segment_name"] for s in conn.statements if s.marker == "segment_extents"]
    assert asked == ["ORDERS", "ORDERS_PK"]  # the two busiest by read + write requests
    files = {s.name: s.file_ids for s in snapshot.segments}
    assert files["ORDERS"] == ("data:4:9100",) and files["SALES"] == ()


def test_dropped_objects_are_kept_under_their_object_number(replay: Replay) -> None:
    def add_dropped(conn: ReplayConnection, sample: int) -> None:
        conn.recordings["segment_stat"] = segment_rows(19, False, 1, sample, (*SEGMENTS, DROPPED))

    first, _, workload = _pair(replay, "19c", add_dropped)
    dropped = _by_id(workload)["ORCL:obj#74100"]
    assert dropped.name == "" and dropped.tablespace == "USERS" and dropped.read_iops == pytest.approx(2.0)
    assert any("dropped since instance startup" in w and "ORCL:obj#74100" in w for w in first.warnings)


def test_extents_over_the_call_timeout_leave_the_tablespace_files(replay: Replay) -> None:
    conn = SCENARIOS["19c"].connection(0)
    conn.errors["segment_extents"] = dpy_error(4024, timeout=30000)
    snapshot = take(replay, conn)
    assert len(snapshot.segments) == 4 and all(s.file_ids == () for s in snapshot.segments)
    assert any("call timeout exceeded" in w and "4 of the top 4 segments" in w for w in snapshot.warnings)
    assert len([s for s in conn.statements if s.marker == "segment_extents"]) == 1  # gave up after the first
    assert snapshot.files  # the file-level sample stands


def test_a_missing_grant_costs_only_the_segments(replay: Replay) -> None:
    conn = SCENARIOS["12.1"].connection(0)
    conn.errors["segment_stat"] = ora_error(942, "table or view does not exist")
    snapshot = take(replay, conn)
    assert snapshot.segments == () and snapshot.files
    assert any("GV$SEGSTAT" in w and "GRANT SELECT" in w for w in snapshot.warnings)


def test_a_segment_in_a_tablespace_without_files_is_named(replay: Replay) -> None:
    def move_to_unknown(conn: ReplayConnection, sample: int) -> None:
        rows = segment_rows(19, False, 1, sample)
        for row in rows:
            if row["OBJECT_NAME"] == "ORDERS_PK":
                row["TS#"] = 9
        conn.recordings["segment_stat"] = rows

    first, _, workload = _pair(replay, "19c", move_to_unknown)
    assert _by_id(workload)["ORCL:SCOTT.ORDERS_PK"].tablespace == "ts# 9"
    assert any("no visible data file: ts# 9 (ORCL)" in w for w in first.warnings)


def test_a_truncated_segment_restarts_its_counters(replay: Replay) -> None:
    truncated = Seg("SCOTT", "ORDERS", None, "TABLE", "TABLE", 74001, 79999, 3, SEGMENTS[0].delta, 2048)

    def truncate(conn: ReplayConnection, sample: int) -> None:
        if sample == 1:  # new DATAOBJ#, counters since the truncate: one interval's worth
            rows = segment_rows(19, False, 1, -9, (truncated,)) + segment_rows(19, False, 1, 1, SEGMENTS[1:])
            conn.recordings["segment_stat"] = rows

    _, _, workload = _pair(replay, "19c", truncate)
    orders = _by_id(workload)["ORCL:SCOTT.ORDERS"]
    assert orders.lower_bound and orders.read_iops == pytest.approx(50.0)
    assert any("restarted" in w and "ORCL:SCOTT.ORDERS" in w for w in workload.warnings)


def test_rows_are_typed_by_their_aliases() -> None:
    rows = segment_rows(19, False, 1, 0)
    conn = SCENARIOS["19c"].connection(0)
    from advisor.collectors.oracle.connect import row_maker, run_query

    typed = run_query(conn, live_segments.SegmentStatRow, "segment_stat", 19)
    assert len(typed) == len(rows) and typed[0].statistic_name == "physical reads"
    plain = run_query(conn, dict, "segment_stat", 19)
    assert plain[0]["statistic_name"] == "physical reads" and len(plain) == len(rows)
    make = row_maker(live_segments.SegmentStatRow, [("INST_ID",), ("RENAMED_ALIAS",)])
    with pytest.raises(TypeError):
        make(1, 2)


def test_extent_lookups_share_one_statement_timeout(replay: Replay) -> None:
    conn = SCENARIOS["19c"].connection(0)
    snapshot = take(replay, conn, {"statement_timeout_s": 0.001})  # 1 ms for every lookup together
    asked = [s for s in conn.statements if s.marker == "segment_extents"]
    assert len(asked) == 1  # the first lookup alone outlasts the budget
    files = {s.name: s.file_ids for s in snapshot.segments}
    assert files["ORDERS"] == ("data:4:9100",) and files["ORDERS_PK"] == ()  # the busiest was looked up
    assert any("lookups stopped after 0.001 s" in w and "3 of the top 4" in w for w in snapshot.warnings)
