"""`fleet show` states a workload's per-area read rate in the report's own MiB/s.

A report's ``read_mb_s`` is MiB/s (1 MB = 1,048,576 bytes, docs/json-format.md); `fleet show`
converted it once more as if it were 10^6 bytes and printed every area 4.6 % low.
"""

from __future__ import annotations

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.render.fleet_instance import area_rates
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, models, workload


def test_fleet_area_rates_are_the_reports_mib_per_second() -> None:
    work = workload([AreaSpec("orders", size_gb=30, read_iops=300, read_kb=64, zone=(0.5, 0.6)),
                     AreaSpec("items", size_gb=60, read_iops=120, zone=(0.1, 0.2))])
    report = advise(AdviceRequest(work, models(), PlanOptions(), generated_at=AT))
    rows = {r["tablespace"]: r["read_mib_s"] for r in area_rates(report.areas)}
    stated = {a.name: a.read_mb_s for a in report.areas}
    assert stated["orders"] > 10  # a figure large enough for 4.6 % to show at three decimals
    assert rows == {name: round(rate, 3) for name, rate in stated.items()}
