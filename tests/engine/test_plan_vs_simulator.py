"""The plan's predicted gain holds in the discrete-event simulator of the same drive.

The engine predicts with analytic expectations; the simulator runs the IOs one by one on a
mechanism with a rotation clock and real seek distances. Both start from the same model, so
the plan must gain in simulation about what it predicts.
"""

from __future__ import annotations

import numpy as np
import pytest

from advisor.disk.mechanism import Mechanism
from advisor.engine.advise import AdviceRequest, advise
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, model, models, workload


@pytest.mark.slow
def test_predicted_before_and_after_match_the_simulator() -> None:
    specs = [AreaSpec("orders", size_gb=20, read_iops=120, zone=(0.90, 0.94)),
             AreaSpec("items", size_gb=20, read_iops=80, zone=(0.02, 0.06)),
             AreaSpec("old", size_gb=150, read_iops=2, zone=(0.2, 0.5))]
    report = advise(AdviceRequest(workload(specs), models(), generated_at=AT))
    assert report.plan is not None and "CROSS_SURFACE" in {f.code for f in report.findings}
    iops = {s.name: s.read_iops for s in specs}
    before = {s.name: s.zone for s in specs}
    after = {p.area: (p.zone_start, p.zone_end) for p in report.plan.placements}

    def simulated(bands: dict[str, tuple[float, float] | None], ios: int = 6000) -> float:
        """QD1 on the real mechanism: each next IO from an area drawn by its IOPS, uniform in its band."""
        drive = model()
        mech = Mechanism(drive, seed=3, write_cache="off")
        rng = np.random.default_rng(11)
        names = list(iops)
        weights = np.array([iops[n] for n in names]) / sum(iops.values())
        picks = rng.choice(len(names), size=ios, p=weights)
        blocks = drive.capacity_bytes // 8192
        now, busy = 0.0, 0.0
        for k, pick in enumerate(picks):
            lo, hi = bands[names[pick]] or (0.0, 1.0)
            offset = int(rng.integers(int(lo * blocks), max(int(lo * blocks) + 1, int(hi * blocks)))) * 8192
            finish = mech.service("read", offset, 8192, now)
            if k >= ios // 10:  # after a warm-up
                busy += finish - now
            now = finish + 0.00002  # host turnaround, as in the predictor
        return busy / (ios - ios // 10) * 1000.0

    sim_before, sim_after = simulated(before), simulated(after)  # type: ignore[arg-type]
    print(f"predicted {report.plan.predicted_before_ms:.2f} -> {report.plan.predicted_after_ms:.2f} ms, "
          f"mechanism {sim_before:.2f} -> {sim_after:.2f} ms")
    assert sim_after < sim_before
    assert report.plan.predicted_before_ms == pytest.approx(sim_before, rel=0.15)
    assert report.plan.predicted_after_ms == pytest.approx(sim_after, rel=0.15)
    simulated_gain = (sim_before - sim_after) / sim_before
    assert abs(report.plan.predicted_gain - simulated_gain) < 0.08, (report.plan.predicted_gain, simulated_gain)
