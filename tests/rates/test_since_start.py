"""One snapshot alone is a diff against a zero baseline: the same rates, units and rules."""

from __future__ import annotations

import dataclasses

import pytest

from advisor.errors import BadInput
from advisor.model import FileIO, Snapshot
from advisor.rates.workload import SINCE_START_WARNING, diff, since_start, zero_snapshot
from tests.helpers.counters import fio, server, snap

STARTED = "2026-01-01T00:00:00+00:00"
TAKEN = "2026-01-01T01:00:00+00:00"  # 3600 s after the server started


def _files() -> tuple[FileIO, ...]:
    return (
        fio("app/1", 3600, 360, single_block_reads=1800, read_time_ms=7200.0, write_time_ms=36.0, syncs=72),
        fio("app/2", 0),  # never read: no mean size, no share
        dataclasses.replace(fio("app/3", 100), read_bytes=100 * 65536, read_time_ms=None),  # untimed
    )


def test_one_snapshot_equals_its_zero_baseline_diff() -> None:
    snapshot = snap(TAKEN, _files(), warnings=("size of app/9 estimated",))
    alone = since_start(snapshot)
    explicit = diff(zero_snapshot(snapshot, STARTED), snapshot)
    assert alone.rates == explicit.rates and alone.interval_s == explicit.interval_s == 3600.0
    assert (alone.started_at, alone.ended_at, alone.source) == (STARTED, TAKEN, "snapshot")
    assert alone.warnings == ("size of app/9 estimated", SINCE_START_WARNING)
    first, never, untimed = alone.rates
    assert (first.read_iops, first.write_iops, first.syncs_per_s) == (1.0, 0.1, 0.02)
    assert first.random_share == 0.5 and first.read_latency_ms == 2.0 and first.write_latency_ms == 0.1
    assert never.mean_read_kb is None and never.random_share is None and never.read_iops == 0.0
    assert untimed.read_latency_ms is None, "an untimed counter never becomes a false 0"


def test_binary_units_as_documented() -> None:
    """8 KiB reads are 8.0 KiB and MB/s is MiB/s, as a diff of two snapshots gives.

    (A separate single-snapshot path once used 10^6 and 1000: 8.192 'KB' and MB/s 4.9 % high.)
    """
    (rate,) = since_start(snap(TAKEN, (fio("app/1", 3600),))).rates
    assert rate.mean_read_kb == 8.0
    assert rate.read_mb_s == pytest.approx(8192 / (1 << 20))
    later = snap("2026-01-01T02:00:00+00:00", (fio("app/1", 7200),))
    (pair,) = diff(snap(TAKEN, (fio("app/1", 3600),)), later).rates
    assert (pair.read_mb_s, pair.mean_read_kb) == (rate.read_mb_s, rate.mean_read_kb)


@pytest.mark.parametrize("started", ["", "not a time", TAKEN, "2026-01-01T02:00:00+00:00"])
def test_unknown_or_late_start_gives_a_one_second_interval(started: str) -> None:
    workload = since_start(snap(TAKEN, (fio("app/1", 5),), server(started_at=started)))
    assert workload.interval_s == 1.0 and workload.rates[0].read_iops == 5.0


def test_unreadable_snapshot_time_is_bad_input() -> None:
    with pytest.raises(BadInput, match="invalid timestamp"):
        since_start(Snapshot(server(), "yesterday", ()))


def test_one_snapshot_keeps_its_segments_as_rates_since_start() -> None:
    """An Oracle snapshot with segment counters: since_start rates them like a two-snapshot diff."""
    from dataclasses import replace as _replace

    from advisor.model import SegmentIO
    from advisor.rates.workload import since_start as _since_start

    seg = SegmentIO(segment_id="PDB1:APP.ORDERS", owner="APP", name="ORDERS", segment_type="TABLE",
                    tablespace="USERS", container="PDB1", block_size=8192, physical_reads=3600,
                    physical_read_requests=3600, physical_writes=None)
    alone = _since_start(snap(TAKEN, _files(), srv=server("oracle"), segments=(seg,)))
    explicit = diff(zero_snapshot(snap(TAKEN, _files(), srv=server("oracle"), segments=(seg,)), STARTED),
                    snap(TAKEN, _files(), srv=server("oracle"), segments=(seg,)))
    (rate,) = alone.segments
    assert rate.read_iops == pytest.approx(1.0)  # 3600 requests in the 3600 s since the start
    assert rate.write_iops is None, "a counter the source does not keep stays unknown, never 0"
    assert alone.segments == explicit.segments
    assert _replace(seg, physical_reads=0).physical_reads == 0
