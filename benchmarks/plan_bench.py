"""How long does planning take as a database grows? Zone plans by files and areas; tier plans by areas and devices.

Targets (2 cores): a zone plan for 500 areas in <= 1 s; a tier plan (``plan --target``) for
500 areas on 12 devices in <= 2 s; the old file-count target, 10 000 files in <= 1 s, stays.
Every tier case also checks the searched plan against the IO-density knapsack baseline
under the same model (it must never be worse) and prints both.

The workloads are synthetic and shaped like an Oracle 11.2 AWR import (the real one that
prompted this had 567 files in 149 tablespaces): tablespaces with Zipf-like IO and
log-normal sizes, a few files each, plus redo, temp, undo, control files and an archive.
Each case runs ``advise`` as ``advisor plan`` does (group, classify, gate, plan, scripts).

Run: ``.venv/bin/python benchmarks/plan_bench.py [--repeat N] [--only zone|tiers]``; the
table prints each case's fastest and slowest run of N, wall and CPU seconds of this process
(on a shared machine the wall time counts the other processes' turns; CPU time does not),
and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from advisor.disk.media.build import DeviceModel, build_device_model
from advisor.disk.presets import get_model
from advisor.engine.advise import Models, advise
from advisor.engine.physics import ModelPhysics
from advisor.engine.planner import PlanOptions
from advisor.model import FileRate, ServerInfo, WaitProfile, Workload
from advisor.model.inventory import InventoryDevice

ZONE_TARGET_S = 1.0
TIER_TARGET_S = 2.0
GB = 10**9
TB = 10**12
DATA_GB = 3000.0
"""Data of every 11.2-like workload, however many tablespaces (an 8 TB disk holds it with headroom)."""


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


def oracle_like(tablespaces: int, seed: int = 1) -> list[FileRate]:
    """An 11.2-shaped import: *tablespaces* with 1-8 files each, Zipf IO, log-normal sizes, redo and friends."""
    rng = random.Random(seed)
    sizes = [min(400.0, rng.lognormvariate(1.5, 1.3)) for _ in range(tablespaces)]
    scale = DATA_GB / sum(sizes)
    rates = []
    for ts in range(tablespaces):
        name = f"TS_{ts:04d}"
        total_gb = sizes[ts] * scale
        reads = 900.0 / (ts + 1) ** 0.9 * rng.uniform(0.3, 1.0)
        writes = reads * rng.uniform(0.0, 0.3)
        scan = rng.random() < 0.15
        read_kb = rng.choice((256.0, 512.0, 1024.0)) if scan else 8.0
        files = min(8, 1 + int(total_gb // 8))
        for f in range(files):
            share = 1.0 / files
            rates.append(FileRate(
                f"{ts}/{f}", f"/u02/oradata/DB/{name.lower()}_{f:02d}.dbf", "data", name, "DB",
                int(total_gb * GB * share), reads * share, writes * share, reads * share * read_kb / 1000,
                writes * share * 8 / 1000, read_kb, 8.0, 0.2 if scan else 0.95, None, None))
    rates.append(FileRate("redo", "/u03/redo/redo01.log", "redo", "", "", 2 * GB, 0.0, 120.0, 0.0, 2.0, None,
                          16.0, None, None, None, syncs_per_s=90.0))
    rates.append(FileRate("temp", "/u02/oradata/DB/temp01.dbf", "temp", "TEMP", "DB", 32 * GB, 20.0, 20.0,
                          5.0, 5.0, 256.0, 256.0, 0.0, None, None))
    rates.append(FileRate("undo", "/u02/oradata/DB/undotbs01.dbf", "undo", "UNDOTBS1", "DB", 16 * GB, 10.0, 40.0,
                          0.08, 0.32, 8.0, 8.0, 0.95, None, None))
    rates.append(FileRate("ctl", "/u02/oradata/DB/control01.ctl", "control", "", "", 20_000_000, 2.0, 2.0, 0.03,
                          0.03, 16.0, 16.0, 0.5, None, None))
    rates.append(FileRate("arch", "/u04/fra/arch", "archive", "", "", 500 * GB, 0.0, 2.0, 0.0, 2.0, None, 1024.0,
                          None, None, None))
    return rates


def _workload(rates: list[FileRate]) -> Workload:
    server = ServerInfo("oracle", "11.2.0.4", 110204, "h", "DB", "1", "2026-01-01T00:00:00+00:00")
    return Workload(server, "a", "b", 3600.0, tuple(rates), wait=WaitProfile(io_wait_share=0.6))


def inventory(devices: int) -> tuple[DeviceModel, ...]:
    """2, 6 or 12 devices: a fast tier, HDDs, and SMR for the archive from 6 up."""
    here = Path(".")
    if devices == 2:
        spec = [InventoryDevice("ssd0", "ssd", 960 * GB, preset="sata-ssd"),
                InventoryDevice("hdd", "hdd", 8 * TB, preset="class-7200-desktop")]
    elif devices == 6:
        spec = [InventoryDevice("nvme0", "nvme", 1 * TB, preset="nvme-gen4"),
                InventoryDevice("hdd", "hdd", 4 * TB, count=4, preset="class-7200-desktop"),
                InventoryDevice("smr", "smr-dm", 8 * TB)]
    else:
        spec = [InventoryDevice("nvme", "nvme", 1 * TB, count=2, preset="nvme-gen4"),
                InventoryDevice("ssd", "ssd", 960 * GB, count=2, preset="sata-ssd"),
                InventoryDevice("hdd", "hdd", 4 * TB, count=6, preset="class-7200-desktop"),
                InventoryDevice("smr", "smr-dm", 8 * TB, count=2)]
    return tuple(build_device_model(d, here) for d in spec)


def _physics() -> ModelPhysics:
    return ModelPhysics(get_model("class-7200-desktop").with_changes(capacity_bytes=8 * TB, cylinders=None))


def time_zone(rates: list[FileRate], disks: int = 1) -> tuple[float, float, int, str]:
    """Wall and CPU seconds for ``advisor plan --preset`` on *disks* new disks; areas placed; the method."""
    work = _workload(rates)
    t0, c0 = time.perf_counter(), time.process_time()
    report = advise(work, Models(default=_physics()), PlanOptions(new_disks=True, disks=disks, force=True))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert report.plan is not None, report.warnings
    return elapsed, cpu, len(report.plan.placements), report.plan.method


def time_tiers(rates: list[FileRate], devices: int) -> tuple[float, float, int, float, float]:
    """Wall and CPU seconds for ``advisor plan --target`` on *devices*; areas; our mean and the baseline's (ms)."""
    work = _workload(rates)
    target = inventory(devices)
    t0, c0 = time.perf_counter(), time.process_time()
    report = advise(work, Models(default=_physics()),
                    PlanOptions(new_disks=True, target=target, force=True))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert report.plan is not None and report.plan.tiers is not None, report.warnings
    tiers = report.plan.tiers
    return elapsed, cpu, len(tiers.assignments), tiers.mean_ms, tiers.baseline_mean_ms


def _range(values: list[float]) -> str:
    return f"{min(values):6.2f}-{max(values):6.2f}"


def zone_table(repeat: int) -> None:
    print(f"zone plan (class-7200-desktop sized 8 TB, 1 disk), {repeat} runs each; target {ZONE_TARGET_S:.0f} s")
    print(f"{'workload':<22} {'areas':>6} {'wall s':>13} {'cpu s':>13} {'cpu/target':>10}  method")
    cases: list[tuple[str, list[FileRate]]] = [
        ("10,000 files / 40 ts", make_rates(Case(10_000, 40))),
        ("11.2-like 149 ts", oracle_like(149)),
        ("11.2-like 500 ts", oracle_like(500)),
        ("11.2-like 2,000 ts", oracle_like(2000)),
    ]
    for label, rates in cases:
        runs = [time_zone(rates) for _ in range(repeat)]
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        print(f"{label:<22} {runs[0][2]:>6} {_range(walls):>13} {_range(cpus):>13} "
              f"{max(cpus) / ZONE_TARGET_S:>10.2f}  {runs[0][3]}")


def tier_table(repeat: int) -> None:
    print(f"tier plan (plan --target), {repeat} runs each; target {TIER_TARGET_S:.0f} s for 500 areas on 12 devices")
    print(f"{'areas':>6} {'devices':>8} {'wall s':>13} {'cpu s':>13} {'cpu/target':>10} {'ours ms':>8} "
          f"{'knapsack ms':>11}")
    for tablespaces in (150, 500, 2000):
        rates = oracle_like(tablespaces)
        for devices in (2, 6, 12):
            runs = [time_tiers(rates, devices) for _ in range(repeat)]
            walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
            _, _, areas, ours, base = runs[0]
            flag = "" if ours <= base + 1e-9 else "  WORSE THAN THE BASELINE"
            print(f"{areas:>6} {devices:>8} {_range(walls):>13} {_range(cpus):>13} {max(cpus) / TIER_TARGET_S:>10.2f} "
                  f"{ours:>8.3f} {base:>11.3f}{flag}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("zone", "tiers"))
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cpus: {os.cpu_count()}")
    if args.only in (None, "zone"):
        zone_table(args.repeat)
    if args.only in (None, "tiers"):
        tier_table(args.repeat)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
