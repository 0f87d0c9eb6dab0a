"""How long does planning take as files and areas grow? (target: 10 000 files in <= 1 s)

Files are grouped into areas (tablespaces, WAL, temp, archive) in one pass; the optimizer
then orders the areas. The table shows each stage's time and the total against the 1 s
target, side by side for several sizes. Run: ``.venv/bin/python benchmarks/plan_bench.py``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from advisor.disk.presets import get_model
from advisor.engine.advise import Models, advise
from advisor.engine.areas import group_areas
from advisor.engine.classify import classify
from advisor.engine.optimizer import optimise
from advisor.engine.physics import ModelPhysics
from advisor.engine.planner import PlanOptions, place_items
from advisor.model import FileRate, ServerInfo, WaitProfile, Workload

TARGET_S = 1.0


@dataclass(frozen=True)
class Case:
    files: int
    tablespaces: int


def make_rates(case: Case, seed: int = 1) -> list[FileRate]:
    """*files* data files over *tablespaces* with Zipf-like IO, plus WAL, temp and archive."""
    rng = random.Random(seed)
    size = 100_000_000_000 // case.files  # 100 GB of data however many files
    rates = []
    for i in range(case.files):
        ts = min(case.tablespaces - 1, int(rng.paretovariate(1.2)) - 1)
        iops = 200.0 / (ts + 1) * rng.random() / max(1, case.files // case.tablespaces)
        rates.append(FileRate(f"db/{i}", f"/pg/ts{ts}/{i}", "data", f"ts{ts}", "db", size, iops, None,
                              iops * 0.008, None, 8.0, None, 0.9, None, None))
    rates.append(FileRate("wal", "/pg/pg_wal", "wal", "", "", 2_000_000_000, 0.0, 80.0, 0.0, 1.2, None, 16.0,
                          None, None, None, syncs_per_s=40.0))
    rates.append(FileRate("temp", "/pg/tmp", "temp", "pg_default", "db", 1_000_000_000, 5.0, 5.0, 0.3, 0.3, 64.0,
                          64.0, 0.0, None, None))
    rates.append(FileRate("arch", "/arch", "archive", "", "", 50_000_000_000, 0.0, 1.0, 0.0, 1.0, None, 1000.0,
                          None, None, None))
    return rates


def run(case: Case) -> dict[str, float]:
    rates = make_rates(case)
    physics = ModelPhysics(get_model("class-7200-desktop"))
    t0 = time.perf_counter()
    areas = group_areas(rates)
    classified = classify(areas)
    t1 = time.perf_counter()
    items = place_items(classified, physics.capacity_bytes, 0.3)
    solution = optimise(physics, items)
    t2 = time.perf_counter()
    server = ServerInfo("postgres", "18.1", 180001, "h", "db", "1", "2026-01-01T00:00:00+00:00")
    workload = Workload(server, "a", "b", 300.0, tuple(rates), wait=WaitProfile(io_wait_share=0.6))
    advise(workload, Models(default=physics), PlanOptions())
    t3 = time.perf_counter()
    return {"areas": len(areas), "group_s": t1 - t0, "optimise_s": t2 - t1, "advise_s": t3 - t2,
            "method": solution.method}  # type: ignore[dict-item]


def main() -> None:
    cases = [Case(1_000, 5), Case(10_000, 20), Case(10_000, 40), Case(100_000, 40)]
    print(f"{'files':>8} {'areas':>6} {'group s':>9} {'optimise s':>11} {'advise s':>9} {'x target':>9}  method")
    for case in cases:
        r = run(case)
        print(f"{case.files:>8} {r['areas']:>6} {r['group_s']:>9.3f} {r['optimise_s']:>11.3f} {r['advise_s']:>9.3f} "
              f"{r['advise_s'] / TARGET_S:>9.2f}  {r['method']}")


if __name__ == "__main__":
    main()
