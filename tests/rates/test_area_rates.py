"""The one per-area aggregation: unknown stays unknown, the reset rule carries through, and the
engine's areas and the workload table are the same sums."""

from __future__ import annotations

import pytest

from advisor.engine.areas import group_areas
from advisor.model import FileIO, FileRate, ServerInfo, Snapshot
from advisor.rates.areas import sum_rates, tablespace_rates
from advisor.rates.counters import counter_delta
from advisor.rates.workload import diff

PG = ServerInfo("postgres", "18.1", 180001, "db1", "db1:5432", "7300000000000000001", "2026-01-01T00:00:00+00:00",
                settings={"track_io_timing": "on"})
T0, T1 = "2026-01-02T00:00:00+00:00", "2026-01-02T00:00:10+00:00"


def rate(file_id: str, kind: str, tablespace: str, read_iops: float, write_iops: float | None,
         size: int | None = 1 << 20, random_share: float | None = None, lower_bound: bool = False) -> FileRate:
    return FileRate(file_id, f"/d/{file_id}", kind, tablespace, "app", size, read_iops,  # type: ignore[arg-type]
                    write_iops, read_iops * 8 / 1024, None if write_iops is None else write_iops * 8 / 1024,
                    None, None, random_share, None, None, lower_bound=lower_bound)


def test_a_tablespace_of_relations_has_unknown_writes_not_zero() -> None:
    rows = tablespace_rates([rate("app/1", "data", "fast", 10.0, None), rate("app/2", "data", "fast", 5.0, None)])
    (row,) = rows
    assert row.totals.write_iops is None and row.totals.write_mb_s is None  # PostgreSQL counts no relation writes
    assert row.totals.files_writes_unknown == 2
    assert row.totals.read_iops == 15.0 and row.totals.counted_iops == 15.0


def test_a_partial_sum_says_how_many_files_it_lacks() -> None:
    (totals,) = sum_rates([rate("a", "temp", "t", 1.0, 4.0), rate("b", "temp", "t", 1.0, None)],
                          lambda r: r.tablespace).values()
    assert totals.write_iops == 4.0 and totals.files_writes_unknown == 1


def test_an_unknown_size_leaves_the_total_unknown() -> None:
    (totals,) = sum_rates([rate("a", "data", "t", 1.0, 1.0), rate("b", "data", "t", 1.0, 1.0, size=None)],
                          lambda r: r.tablespace).values()
    assert totals.known_size_bytes is None and totals.size_bytes == 1 << 20 and totals.files_size_unknown == 1


def test_random_share_is_weighted_by_reads_and_rows_come_busiest_first() -> None:
    rows = tablespace_rates([rate("a", "data", "cold", 1.0, 0.0, random_share=1.0),
                             rate("b", "data", "hot", 30.0, 1.0, random_share=1.0),
                             rate("c", "data", "hot", 10.0, 1.0, random_share=0.0),
                             rate("w", "wal", "", 0.0, 50.0)])
    assert [(r.tablespace, r.kind) for r in rows] == [("", "wal"), ("hot", "data"), ("cold", "data")]
    assert rows[1].totals.random_share == pytest.approx(0.75)
    assert rows[0].totals.random_share is None  # no reads: no share, not 0


def test_a_counter_reset_during_the_interval_makes_the_row_a_lower_bound() -> None:
    def fio(file_id: str, reads: int) -> FileIO:
        return FileIO(file_id, f"/d/{file_id}", "data", "ts", "app", 8192, reads, None, reads * 8192, None)

    a = Snapshot(PG, T0, (fio("app/1", 1000), fio("app/2", 100)))
    b = Snapshot(PG, T1, (fio("app/1", 40), fio("app/2", 200)))  # app/1 went backwards: reset
    (row,) = tablespace_rates(diff(a, b, allow_reset=True).rates)
    assert row.totals.lower_bound
    assert row.totals.read_iops == pytest.approx((40 + 100) / 10)  # since the reset, never negative
    assert counter_delta(1000, 40) == (40, True)


def test_engine_areas_and_table_rows_are_the_same_sums() -> None:
    rates = [rate("app/1", "data", "fast", 10.0, None, random_share=0.5),
             rate("app/2", "index", "fast", 6.0, None, random_share=1.0),
             rate("app/3", "data", "slow", 2.0, None, size=None),
             rate("wal", "wal", "", 0.5, 80.0)]
    areas = {a.name: a for a in group_areas(rates)}
    by_space = sum_rates(rates, lambda r: r.tablespace or "WAL")
    for name, totals in by_space.items():
        area = areas[name]
        assert (area.read_iops, area.read_mb_s, area.files) == (totals.read_iops, totals.read_mb_s, totals.files)
        assert area.random_share == totals.random_share
        assert area.files_writes_unknown == totals.files_writes_unknown
        assert area.files_size_unknown == totals.files_size_unknown
    # the physics places the counted IO: uncounted relation writes add none, and the area says how many files
    assert areas["fast"].write_iops == 0.0 and areas["fast"].files_writes_unknown == 2
    assert areas["WAL"].write_iops == 80.0 and areas["WAL"].files_writes_unknown == 0
