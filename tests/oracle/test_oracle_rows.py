"""Each Oracle SQL file selects exactly the fields of its row type (collectors/oracle/rows.py, and the
segment modules for the segment queries)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from advisor.collectors.oracle.rows import ROWS, OracleConnection
from advisor.collectors.oracle.segments import ExtentRow, SegmentStatRow
from advisor.collectors.oracle.segments_history import AwrSegStatRow, StatspackSegStatRow
from tests.oracle.oracle_replay import ReplayConnection
from tests.oracle.oracle_sqlshape import shape

SQL = sorted((Path(__file__).resolve().parents[2] / "sql" / "oracle").glob("*.sql"))
SEGMENT_ROWS: dict[str, type] = {
    "segment_stat": SegmentStatRow, "segment_extents": ExtentRow,
    "awr_seg_stat": AwrSegStatRow, "statspack_seg_stat": StatspackSegStatRow,
}
"""Segment queries, typed in the modules that read them."""


@pytest.mark.parametrize("path", SQL, ids=lambda p: p.name)
def test_select_list_equals_the_row_fields(path: Path) -> None:
    query = path.name.split(".")[0]
    fields = dataclasses.fields(ROWS.get(query) or SEGMENT_ROWS[query])
    aliases = [c.alias for c in shape(path.read_text()).columns]
    required = [f.name for f in fields if f.default is dataclasses.MISSING]
    optional = {f.name for f in fields if f.default is not dataclasses.MISSING}
    assert [a for a in aliases if a not in optional] == required  # same names, same order
    assert set(aliases) <= {f.name for f in fields}


def test_every_row_type_has_its_sql_and_the_live_and_history_queries_have_a_row_type() -> None:
    queries = {p.name.split(".")[0] for p in SQL}
    assert set(ROWS) | set(SEGMENT_ROWS) == queries
    from advisor.collectors.oracle.live import LIVE_QUERIES

    history = {f"{source}_{kind}" for source in ("awr", "statspack")
               for kind in ("filestat", "tempstat", "parameter", "snapshot", "system_event", "time_model")}
    assert {*LIVE_QUERIES, "containers", *history} <= set(ROWS)


def test_the_replay_connection_is_what_the_collector_accepts() -> None:
    assert isinstance(ReplayConnection("19.3.0.0.0", {}), OracleConnection)
    assert not isinstance(object(), OracleConnection)
