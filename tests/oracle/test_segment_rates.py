"""Segment counters -> rates: unknown stays unknown, resets and new/vanished segments are named."""

from __future__ import annotations

import pytest

from advisor.model import SegmentIO
from advisor.rates.segments import diff_segments, totals_rate, with_counters


def _seg(segment_id: str = "ORCL:SCOTT.T", dataobj: int = 10, **counters: int | None) -> SegmentIO:
    base = SegmentIO(segment_id=segment_id, owner="SCOTT", name="T", segment_type="TABLE", tablespace="USERS",
                     container="ORCL", block_size=8192, data_object_id=dataobj)
    return with_counters(base, counters)


def test_requests_are_preferred_and_blocks_are_an_upper_bound() -> None:
    rate = totals_rate(_seg(physical_reads=600, physical_read_requests=60, physical_writes=120), 60.0)
    assert rate.read_iops == pytest.approx(1.0) and rate.write_iops == pytest.approx(2.0) and rate.from_blocks
    assert rate.read_mb_s == pytest.approx(600 * 8192 / 2**20 / 60)
    assert rate.scans_per_s is None and rate.direct_read_share is None  # not given: unknown, not 0


def test_diff_of_two_samples_names_new_gone_and_reset_segments() -> None:
    before = [_seg(physical_reads=100, physical_read_requests=50, segment_scans=None),
              _seg("ORCL:SCOTT.GONE", physical_reads=5),
              _seg("ORCL:SCOTT.BACK", physical_reads=900)]
    after = [_seg(physical_reads=700, physical_read_requests=110, segment_scans=4),
             _seg("ORCL:SCOTT.NEW", physical_reads=60),
             _seg("ORCL:SCOTT.BACK", physical_reads=30)]
    rated, warnings = diff_segments(before, after, 60.0)
    rates = {r.segment_id: r for r in rated}
    table = rates["ORCL:SCOTT.T"]
    assert table.read_iops == pytest.approx(1.0) and not table.lower_bound
    assert table.scans_per_s is None  # unknown in the first sample: no delta
    assert rates["ORCL:SCOTT.BACK"].lower_bound and rates["ORCL:SCOTT.BACK"].read_iops == pytest.approx(0.5)
    assert rates["ORCL:SCOTT.NEW"].read_iops == pytest.approx(1.0)
    assert "ORCL:SCOTT.GONE" not in rates
    text = " | ".join(warnings)
    assert "first seen" in text and "ORCL:SCOTT.NEW" in text
    assert "gone" in text and "ORCL:SCOTT.GONE" in text
    assert "restarted" in text and "ORCL:SCOTT.BACK" in text


def test_a_new_data_object_id_restarts_every_counter() -> None:
    (rate,), _ = diff_segments([_seg(physical_reads=900, physical_writes=50)],
                               [_seg(dataobj=11, physical_reads=60, physical_writes=600)], 60.0)
    assert rate.lower_bound and rate.read_iops == pytest.approx(1.0) and rate.write_iops == pytest.approx(10.0)


def test_only_counters_can_be_replaced() -> None:
    with pytest.raises(ValueError, match="not segment counters"):
        with_counters(_seg(), {"owner": 1})


def test_a_counter_going_backwards_restarts_every_counter_whatever_their_order() -> None:
    """Segment statistics restart together: a counter read before the one that went backwards
    (physical_reads before segment_scans) counts since the restart too, not as a difference."""
    (rate,), warnings = diff_segments([_seg(physical_reads=100, segment_scans=50)],
                                      [_seg(physical_reads=160, segment_scans=3)], 60.0)
    assert rate.lower_bound
    assert rate.read_iops == pytest.approx(160 / 60)  # not (160 - 100) / 60: the reads restarted with the scans
    assert rate.scans_per_s == pytest.approx(3 / 60)
    assert any("restarted" in w and "ORCL:SCOTT.T" in w for w in warnings)
