"""``--cache lost`` on a live workload: the kernel's evidence is still shown, the reads are all planned."""

from __future__ import annotations

import pytest

from advisor.engine.advise import AdviceRequest, advise
from tests.engine.calibration_rows import HOT, WAL, mib, on_partitions, rows, stat
from tests.helpers.clock import AT
from tests.helpers.workloads import models


def test_cache_lost_keeps_the_database_reads_and_says_so() -> None:
    w = on_partitions([HOT, WAL], {"orders": "sda3", "WAL": "sda1"},
                      [stat("sda3", 100.0, mib(100)), stat("sda1", 3.0, 0.05), stat("sda", 103.0, 0.1, False)])
    kept = advise(AdviceRequest(w, models(), generated_at=AT))
    lost = advise(AdviceRequest(w, models(), cache_kept=False, generated_at=AT))
    assert rows(kept)["orders"]["read_iops"] == pytest.approx(100.0, rel=1e-3)
    assert rows(lost)["orders"]["read_iops"] == pytest.approx(2000.0)
    assert rows(lost)["orders"]["disk_read_share"] == pytest.approx(0.05, rel=1e-3), "the evidence still shows"
    assert any(n.startswith("--cache lost") for n in lost.warnings)
    assert not any(n.startswith("--cache lost") for n in kept.warnings)
    finding = next(f for f in lost.findings if f.code == "READS_CACHED")
    assert finding.action.startswith("The plan counts every read the database reported (--cache lost)")
    note = next(n for n in lost.warnings if n.startswith("sda3:"))
    assert "5.0% of the bytes reached the disk" in note and "kept as reported (--cache lost)" in note
    assert "scaled by" not in note
