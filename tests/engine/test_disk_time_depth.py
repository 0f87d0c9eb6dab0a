"""The disk-time check at the depth the kernel measured: with requests queued, the drive reorders
them and serves random IO faster than one at a time, so the model's disk time is compared at that
depth (advisor.engine.saturation.busy_at_depth, depth_in_flight, queue_gain)."""

from __future__ import annotations

import dataclasses

import pytest

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.saturation import DISK_TIME_SLACK, depth_in_flight
from advisor.model import DiskStatRate, Report
from tests.helpers.model_trace import NOW, base_workload
from tests.helpers.workloads import models

READS = sum(rate.read_iops for rate in base_workload().rates)


def kernel(util: float, depth: float) -> DiskStatRate:
    """The whole disk as the kernel saw it: every read, busy *util*, *depth* requests in flight while busy."""
    r_await_ms = depth * util * 1000.0 / READS
    return DiskStatRate("sda", READS, 0.0, READS * 8192 / 1e6, 0.0, r_await_ms, 0.0, util)


def report(util: float, depth: float) -> Report:
    work = dataclasses.replace(base_workload(), diskstats=(kernel(util, depth),))
    return advise(AdviceRequest(work, models(), generated_at=NOW))


def disk_time(found: Report) -> list[dict[str, object]]:
    return [dict(f.evidence) for f in found.findings
            if f.code == "MODEL_DOES_NOT_FIT" and f.evidence["measure"] == "disk time"]


def test_littles_law_gives_the_requests_in_flight_while_busy() -> None:
    assert depth_in_flight(kernel(0.55, 8.0)) == pytest.approx(8.0)
    assert depth_in_flight(DiskStatRate("sda", 10.0, 0.0, 0.1, 0.0, None, None, 0.5)) is None
    assert depth_in_flight(DiskStatRate("sda", 0.0, 10.0, 0.0, 0.1, None, 50.0, 0.5)) == pytest.approx(1.0)


def test_a_right_model_at_depth_8_is_not_refuted_where_one_at_a_time_it_would_be() -> None:
    shallow = report(0.55, 1.0)  # the same work and busy time, one request at a time: refuted
    (refuted,) = disk_time(shallow)
    one_at_a_time = float(str(refuted["measured"]))
    assert one_at_a_time > DISK_TIME_SLACK * 55 and refuted["queue_depth"] == 1.0
    assert shallow.plan is None
    queued = report(0.55, 8.0)  # eight in flight: the drive reorders, each read costs less disk time
    assert disk_time(queued) == [] and queued.plan is not None


def test_a_model_refuted_even_at_the_measured_depth_says_the_depth() -> None:
    deep = report(0.3, 8.0)
    (refuted,) = disk_time(deep)
    assert refuted["queue_depth"] == 8.0
    # SPTF at QD 8 serves random reads about 1.3-1.5 x faster (reference disk.md: ~1.8 x at QD 16)
    one_at_a_time = float(str(disk_time(report(0.3, 1.0))[0]["measured"]))
    assert 1.2 < one_at_a_time / float(str(refuted["measured"])) < 1.6
    assert deep.plan is None
