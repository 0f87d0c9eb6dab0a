"""The engine reads no clock: the report's time is the one its caller hands in.

``advise`` used to stamp ``generated_at`` from the wall clock, so two runs on the same inputs
gave different documents and a test could not say when a report was made. The commands pass
the time they run (``cli/reporting.py``, ``fleet/window.py``); the engine only writes it, in UTC.
"""

from __future__ import annotations

import datetime as dt

import msgspec
import pytest

from advisor.engine.advise import AdviceRequest, advise
from tests.helpers.workloads import AreaSpec, models, workload

SPECS = [AreaSpec("hot", size_gb=10, read_iops=90, zone=(0.9, 0.92)),
         AreaSpec("cold", size_gb=100, read_iops=0.5, zone=(0.3, 0.5))]


def test_the_report_carries_the_time_it_was_given_in_utc() -> None:
    paris = dt.timezone(dt.timedelta(hours=1))
    report = advise(AdviceRequest(workload(SPECS), models(), generated_at=dt.datetime(2026, 3, 1, 12, 0, 7, 900,
                                                                                      tzinfo=paris)))
    assert report.generated_at == "2026-03-01T11:00:07+00:00"


def test_same_inputs_and_time_give_the_same_document() -> None:
    at = dt.datetime(2031, 7, 1, tzinfo=dt.UTC)
    first = msgspec.json.encode(advise(AdviceRequest(workload(SPECS), models(), generated_at=at)))
    second = msgspec.json.encode(advise(AdviceRequest(workload(SPECS), models(), generated_at=at)))
    assert first == second and b'"generated_at":"2031-07-01T00:00:00+00:00"' in first


def test_a_time_without_a_zone_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        advise(AdviceRequest(workload(SPECS), models(), generated_at=dt.datetime(2026, 3, 1, 12, 0)))
