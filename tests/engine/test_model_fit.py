"""A model the measurements refute carries no finding and no plan (MODEL_DOES_NOT_FIT).

An audit of a virtual disk said ``high COMMIT_BOUND WAL syncs 1948/s, 1624% of what 7200 rpm
allows`` and advised batching commits that took under a millisecond: the assumed 7,200 rpm
model was wrong, not the disk. Each measurement below is one no disk of the assumed model
can produce; the zone findings that rest on the model must go with it.
"""

from __future__ import annotations

from advisor.disk.physics import ModelPhysics
from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.model_fit import QUEUE_GAIN, RATE_SLACK
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, model, models, workload

ZONE_CODES = {"HOT_ON_INNER", "CROSS_SURFACE", "WAL_SHARES_ACTUATOR", "COMMIT_BOUND"}


def _codes(specs: list[AreaSpec]) -> tuple[set[str], dict[str, object], object, tuple[str, ...]]:
    report = advise(AdviceRequest(workload(specs), models(), generated_at=AT))
    misfit = next((dict(f.evidence) for f in report.findings if f.code == "MODEL_DOES_NOT_FIT"), {})
    return {f.code for f in report.findings}, misfit, report.plan, report.warnings


def _apart(read_iops: float, *extra: AreaSpec) -> list[AreaSpec]:
    """Two hot areas at opposite edges: the model's own zone findings fire on this layout."""
    return [AreaSpec("a", size_gb=20, read_iops=read_iops, zone=(0.9, 0.94)),
            AreaSpec("b", size_gb=20, read_iops=read_iops * 0.75, zone=(0.0, 0.04)), *extra]


def test_commits_beyond_the_rotation_refute_the_model_and_withhold_commit_bound() -> None:
    wal = AreaSpec("WAL", kind="wal", size_gb=2, write_iops=1948, random_share=None, syncs=1948, zone=(0.5, 0.504))
    codes, misfit, plan, warnings = _codes(_apart(100, wal))
    assert "MODEL_DOES_NOT_FIT" in codes and not ZONE_CODES & codes, codes
    assert misfit["measure"] == "commits" and misfit["disk"] == "sda" and misfit["measured"] == 1948
    assert misfit["allowed"] == 120.0 and misfit["model"] == "synthetic-7200"
    assert plan is None and any("does not fit" in w for w in warnings)


def test_unlocated_log_syncs_refute_the_default_model() -> None:
    """The audit case: no file located (disk unknown), the default 7,200 rpm model assumed."""
    wal = AreaSpec("WAL", kind="wal", size_gb=2, write_iops=1948, random_share=None, syncs=1948,
                   placement_known=False, reason="virtual disk")
    codes, misfit, _, _ = _codes([wal])
    assert "COMMIT_BOUND" not in codes and misfit["disk"] is None and misfit["measure"] == "commits"


def test_commits_near_the_rotation_still_fit_and_stay_commit_bound() -> None:
    wal = AreaSpec("WAL", kind="wal", size_gb=2, write_iops=115, random_share=None, syncs=115, zone=(0.0, 0.004))
    codes, _, _, _ = _codes([wal])
    assert "COMMIT_BOUND" in codes and "MODEL_DOES_NOT_FIT" not in codes


def test_random_reads_beyond_any_queue_refute_the_model() -> None:
    best_ms = ModelPhysics(model()).mean_service_ms((0.0, 0.01), 4096, True)
    allowed = QUEUE_GAIN * 1000 / best_ms
    fits, _, fit_plan, _ = _codes(_apart(allowed / 1.75 * 0.95))  # both areas together just under the bound
    assert "MODEL_DOES_NOT_FIT" not in fits and ZONE_CODES & fits and fit_plan is not None
    codes, misfit, plan, _ = _codes(_apart(allowed / 1.75 * 1.1))
    assert misfit["measure"] == "random IOPS" and not ZONE_CODES & codes and plan is None
    assert abs(float(str(misfit["allowed"])) - allowed) < 0.01


def test_throughput_beyond_the_fastest_zone_refutes_the_model() -> None:
    fastest_mb_s = 180.0  # the synthetic model's outer-zone rate, decimal MB/s
    mib_s = fastest_mb_s * RATE_SLACK * 1.1 * 10**6 / (1 << 20)
    scan = AreaSpec("dw", size_gb=100, read_iops=mib_s, read_kb=1024, random_share=0.0, zone=(0.3, 0.5))
    codes, misfit, _, _ = _codes([scan, AreaSpec("idx", size_gb=5, read_iops=50, zone=(0.9, 0.91))])
    assert misfit["measure"] == "throughput" and misfit["unit"] == "MB/s" and not ZONE_CODES & codes
    assert float(str(misfit["measured"])) > fastest_mb_s * RATE_SLACK
