"""workload.diff on hand-built snapshots: rates, reset rules for both databases, diskstats."""

from __future__ import annotations

import dataclasses

import pytest

from advisor.errors import BadInput, StatsReset
from advisor.model import DiskStat, HostLayout, Partition, WaitProfile
from advisor.rates.workload import diff
from tests.helpers.counters import fio, server, snap

T0, T1 = "2026-01-02T00:00:00+00:00", "2026-01-02T00:00:10+00:00"


def test_rates_are_per_second_with_sizes_and_latency() -> None:
    a = snap(T0, (fio("app/1", 100, 10, single_block_reads=50, read_time_ms=100.0, write_time_ms=5.0),))
    b = snap(T1, (fio("app/1", 300, 30, single_block_reads=200, read_time_ms=600.0, write_time_ms=25.0),))
    (rate,) = diff(a, b).rates
    assert rate.read_iops == 20.0 and rate.write_iops == 2.0
    assert rate.read_mb_s == pytest.approx(200 * 8192 / (1 << 20) / 10)
    assert rate.mean_read_kb == 8.0 and rate.random_share == 0.75
    assert rate.read_latency_ms == 2.5 and rate.write_latency_ms == 1.0
    assert not rate.lower_bound


def test_unknown_stays_unknown() -> None:
    (rate,) = diff(snap(T0, (fio("app/1", 0),)), snap(T1, (fio("app/1", 0),))).rates
    assert rate.write_iops is None and rate.write_mb_s is None and rate.read_latency_ms is None
    assert rate.mean_read_kb is None and rate.random_share is None


def test_counter_backwards_is_a_flagged_lower_bound() -> None:
    workload = diff(snap(T0, (fio("app/1", 500),)), snap(T1, (fio("app/1", 40),)))
    assert workload.rates[0].read_iops == 4.0 and workload.rates[0].lower_bound
    assert any("went backwards" in w for w in workload.warnings)


def test_new_and_vanished_files_are_warned() -> None:
    a = snap(T0, (fio("app/1", 1), fio("app/2", 1)))
    b = snap(T1, (fio("app/1", 2), fio("app/3", 30), dataclasses.replace(fio("other/4", 50), container="other")))
    workload = diff(a, b)
    rated = {r.file_id: r for r in workload.rates}
    # A PostgreSQL relation missing from A was empty and unread (or did not exist): baseline 0.
    assert set(rated) == {"app/1", "app/3"} and rated["app/3"].read_iops == 3.0
    assert any("rated from zero" in w and "app/3" in w for w in workload.warnings)
    # ...but not when its whole database was missing from A (skipped, not empty).
    assert any("not rated" in w and "other/4" in w for w in workload.warnings)
    assert any("vanished" in w and "app/2" in w for w in workload.warnings)
    oracle = server("oracle")
    ora = diff(snap(T0, (fio("app/1", 1),), oracle), snap(T1, (fio("app/1", 2), fio("app/3", 30)), oracle))
    assert [r.file_id for r in ora.rates] == ["app/1"]


@pytest.mark.parametrize(
    ("changes", "rule"),
    [
        ({"identity": "999"}, "identity"),
        ({"in_recovery": True}, "recovery"),
        ({"stats_reset": {"wal": "2026-01-02T00:00:05+00:00", "bgwriter": "2026-01-01T00:00:00+00:00",
                          "database:app": None}}, "stats-reset"),
        ({"stats_reset": {"wal": "2026-01-01T00:00:00+00:00", "bgwriter": "2026-01-01T00:00:00+00:00",
                          "database:app": "2026-01-02T00:00:05+00:00"}}, "stats-reset"),
    ],
)
def test_postgres_refusing_rules(changes: dict[str, object], rule: str) -> None:
    with pytest.raises(StatsReset) as caught:
        diff(snap(T0, ()), snap(T1, (), server(**changes)))
    assert caught.value.message.startswith(f"rule {rule}:") and T0 in caught.value.message
    relaxed = diff(snap(T0, ()), snap(T1, (), server(**changes)), allow_reset=True)
    assert any(w.startswith(f"{rule}:") for w in relaxed.warnings)


def test_postgres_warning_rules() -> None:
    later = server(started_at="2026-01-02T00:00:03+00:00",
                   stats_reset={"wal": "2026-01-01T00:00:00+00:00", "bgwriter": "2026-01-02T00:00:04+00:00",
                                "database:app": None})
    workload = diff(snap(T0, ()), snap(T1, (), later))
    assert {w.split(":")[0] for w in workload.warnings} == {"restart", "stats-reset-views"}


def test_oracle_restart_and_instance_refuse_and_db_time_is_diffed() -> None:
    a_srv = server("oracle", identity="1234", instance="orcl1")
    with pytest.raises(StatsReset, match="rule restart"):
        diff(snap(T0, (), a_srv), snap(T1, (), dataclasses.replace(a_srv, started_at="2026-01-02T00:00:01+00:00")))
    with pytest.raises(StatsReset, match="rule instance"):
        diff(snap(T0, (), a_srv), snap(T1, (), dataclasses.replace(a_srv, instance="orcl2")))
    a = snap(T0, (), a_srv, wait=WaitProfile(db_time_s=100.0, io_wait_s=40.0))
    b = snap(T1, (), a_srv, wait=WaitProfile(db_time_s=120.0, io_wait_s=50.0))
    assert diff(a, b).wait.io_wait_share == 0.5


def test_timing_switched_on_drops_latency() -> None:
    off = server(settings={"track_io_timing": "off", "track_wal_io_timing": "on"})
    a = snap(T0, (fio("app/1", 1, read_time_ms=0.0),), off)
    b = snap(T1, (fio("app/1", 9, read_time_ms=80.0),))
    workload = diff(a, b)
    assert workload.rates[0].read_latency_ms is None
    assert any(w.startswith("timing: track_io_timing") for w in workload.warnings)


def test_order_and_kind_are_checked() -> None:
    with pytest.raises(BadInput, match="not later"):
        diff(snap(T1, ()), snap(T0, ()))
    with pytest.raises(BadInput, match="different database kinds"):
        diff(snap(T0, ()), snap(T1, (), server("oracle")))


def test_diskstats_rates_follow_iostat() -> None:
    def layout(reads: int, sectors: int, rtime: int, writes: int, wtime: int, io_ms: int, at: float) -> HostLayout:
        stats = (DiskStat("sda", reads, sectors, rtime, writes, writes * 8, wtime, io_ms),
                 DiskStat("sda1", reads, sectors, rtime, 0, 0, 0, io_ms))
        part = Partition("sda1", "sda", 1, 1 << 20, 1 << 30)
        return HostLayout("h", partitions=(part,), diskstats=stats, diskstats_at_monotonic_s=at)

    a = snap(T0, (), layout=layout(100, 800, 500, 10, 100, 1000, 50.0))
    b = snap(T1, (), layout=layout(300, 2848, 1500, 30, 300, 3000, 54.0))  # 4 s of monotonic time
    rates = {r.name: r for r in diff(a, b).diskstats}
    sda = rates["sda"]
    assert sda.r_s == 50.0 and sda.w_s == 5.0
    assert sda.read_mb_s == pytest.approx(2048 * 512 / (1 << 20) / 4)
    assert sda.r_await_ms == 5.0 and sda.w_await_ms == 10.0 and sda.util == 0.5
    assert rates["sda1"].is_partition and not sda.is_partition and rates["sda1"].w_await_ms is None
