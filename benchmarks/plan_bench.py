"""How long does planning take as a database grows? Zone plans by files and areas; tier plans by areas and devices.

Targets (2 cores): a zone plan for 500 areas in <= 1 s; a tier plan (``plan --target``) for
500 areas on 12 devices in <= 2 s; the old file-count target, 10 000 files in <= 1 s, stays.
Every tier case also checks the searched plan against the IO-density knapsack baseline
under the same model (it must never be worse) and prints both.

The workloads are synthetic and shaped like an Oracle 11.2 AWR import (the real one that
prompted this had 567 files in 149 tablespaces): tablespaces with Zipf-like IO and
log-normal sizes, a few files each, plus redo, temp, undo, control files and an archive.
Each case runs ``advise`` as ``advisor plan`` does (group, classify, gate, plan, scripts).

Run: ``.venv/bin/python benchmarks/plan_bench.py [--repeat N] [--only zone|tiers] [--base DIR]``.
Each run is a fresh interpreter (no cache carried from one run to the next); the table
prints each case's fastest and slowest of N, wall and CPU seconds of the planning alone (on
a shared machine the wall time counts the other processes' turns; CPU time does not), and
the load average before and after. ``--base DIR`` times another source tree (an older
revision, e.g. ``git archive REV | tar -x -C DIR``) in the same loop, run for run;
``--timeout`` (120 s) gives a run up.
"""

from __future__ import annotations

import argparse
import datetime as dt
import inspect
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.disk.media.build import DeviceModel, build_device_model
from advisor.disk.presets import get_model
from advisor.engine import advise as advise_module
from advisor.engine.advise import Models
from advisor.engine.planner import PlanOptions
from advisor.model import FileRate, Report, ServerInfo, WaitProfile, Workload
from advisor.model.inventory import InventoryDevice

try:
    from advisor.disk.physics import ModelPhysics
except ModuleNotFoundError:  # a --base tree of the old layout (advisor/disk/physics.py)
    from advisor.engine.physics import ModelPhysics  # old layout

STAMP = dt.datetime.now(dt.UTC)
"""The report time for ``advise`` (a --base tree from before it took one reads the clock itself)."""


def _advise(work: Workload, models: Models, options: PlanOptions) -> Report:
    """``advise`` as this tree offers it: one request (``AdviceRequest``), or a --base tree's arguments."""
    request = getattr(advise_module, "AdviceRequest", None)
    if request is not None:
        return advise_module.advise(request(work, models, options, generated_at=STAMP))
    old: Any = advise_module.advise  # a --base tree: advise(workload, models, options[, generated_at=])
    stamp = {"generated_at": STAMP} if "generated_at" in inspect.signature(old).parameters else {}
    result: Report = old(work, models, options, **stamp)
    return result

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
    return Workload(server, "2026-11-21T09:00:00+00:00", "2026-11-21T10:00:00+00:00", 3600.0, tuple(rates),
                    wait=WaitProfile(io_wait_share=0.6))


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
    report = _advise(work, Models(default=_physics()), PlanOptions(new_disks=True, disks=disks, force=True))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert report.plan is not None, report.warnings
    return elapsed, cpu, len(report.plan.placements), report.plan.method


def time_tiers(rates: list[FileRate], devices: int) -> tuple[float, float, int, float, float]:
    """Wall and CPU seconds for ``advisor plan --target`` on *devices*; areas; our mean and the baseline's (ms)."""
    work = _workload(rates)
    target = inventory(devices)
    t0, c0 = time.perf_counter(), time.process_time()
    report = _advise(work, Models(default=_physics()), PlanOptions(new_disks=True, target=target, force=True))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert report.plan is not None and report.plan.tiers is not None, report.warnings
    tiers = report.plan.tiers
    return elapsed, cpu, len(tiers.assignments), tiers.mean_ms, tiers.baseline_mean_ms


def _range(values: list[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f}"


ZONE_CASES = ("10000f", "149", "500", "2000")
TIER_CASES = tuple((areas, devices) for areas in ("150", "500", "2000") for devices in (2, 6, 12))


def _rates(size: str) -> list[FileRate]:
    return make_rates(Case(10_000, 40)) if size == "10000f" else oracle_like(int(size))


def run_case(kind: str, size: str, devices: int) -> dict[str, object]:
    """One timed run, as a dict (printed as JSON by ``--one`` for a run in another tree)."""
    rates = _rates(size)
    if kind == "zone":
        wall, cpu, areas, method = time_zone(rates)
        return {"wall": wall, "cpu": cpu, "areas": areas, "method": method}
    wall, cpu, areas, ours, base = time_tiers(rates, devices)
    return {"wall": wall, "cpu": cpu, "areas": areas, "ours_ms": ours, "knapsack_ms": base}


def _in_tree(tree: str, kind: str, size: str, devices: int, timeout: float) -> dict[str, object] | None:
    """The case run by a fresh interpreter with *tree* first on the path (None when over *timeout*)."""
    env = {**os.environ, "PYTHONPATH": tree}
    command = [sys.executable, __file__, "--one", kind, size, str(devices)]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _column(runs: list[dict[str, object] | None], key: str, timeout: float) -> str:
    values = [float(r[key]) for r in runs if r is not None]  # type: ignore[arg-type]
    if len(values) < len(runs):
        return f"> {timeout:.0f} s" + (f" ({len(values)} done)" if values else "")
    return _range(values)


def table(repeat: int, base: str | None, timeout: float, only: str | None, base_repeat: int) -> None:
    """Every case *repeat* times, in fresh interpreters, this tree and *base* side by side.

    *base* runs *base_repeat* times per case, and not at all for a bigger case of the same
    kind and device count once a smaller one went over *timeout* (said in the table).
    """
    here = str(Path(__file__).resolve().parent.parent)
    cases = ([("zone", z, 1) for z in ZONE_CASES] if only in (None, "zone") else []) + \
        ([("tiers", a, d) for a, d in TIER_CASES] if only in (None, "tiers") else [])
    print(f"{'plan':<6} {'case':>7} {'dev':>4} {'areas':>6} {'wall s':>12} {'cpu s':>12} {'target s':>8}"
          + (f" {'base wall s':>14} {'base cpu s':>14}" if base else "") + "  ours ms / knapsack ms")
    over: set[tuple[str, int]] = set()
    for kind, size, devices in cases:
        ours: list[dict[str, object] | None] = []
        theirs: list[dict[str, object] | None] = []
        skip = base is not None and (kind, devices) in over and size != "10000f"
        for n in range(repeat):
            ours.append(_in_tree(here, kind, size, devices, timeout))
            if base and not skip and n < base_repeat:
                theirs.append(_in_tree(base, kind, size, devices, timeout))
        if base and any(r is None for r in theirs):
            over.add((kind, devices))
        done = next((r for r in ours if r is not None), {})
        target = ZONE_TARGET_S if (kind, size) == ("zone", "500") else \
            TIER_TARGET_S if (kind, size, devices) == ("tiers", "500", 12) else None
        extra = (f"{float(done['ours_ms']):.3f} / {float(done['knapsack_ms']):.3f}"  # type: ignore[arg-type]
                 if "ours_ms" in done else str(done.get("method", "")))
        line = (f"{kind:<6} {size:>7} {devices if kind == 'tiers' else '-':>4} {done.get('areas', '?'):>6} "
                f"{_column(ours, 'wall', timeout):>12} {_column(ours, 'cpu', timeout):>12} "
                f"{'-' if target is None else f'{target:.0f}':>8}")
        if base and skip:
            line += f" {'not run':>14} {'(smaller: over)':>14}"
        elif base:
            line += f" {_column(theirs, 'wall', timeout):>14} {_column(theirs, 'cpu', timeout):>14}"
        print(line + "  " + extra, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("zone", "tiers"))
    parser.add_argument("--base", help="Another source tree (e.g. an older revision) to time side by side.")
    parser.add_argument("--timeout", type=float, default=120.0, help="Seconds before a run is given up.")
    parser.add_argument("--base-repeat", type=int, default=1, help="Runs per case of the --base tree.")
    parser.add_argument("--one", nargs=3, metavar=("KIND", "SIZE", "DEVICES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        kind, size, devices = args.one
        print(json.dumps(run_case(kind, size, int(devices))))
        return
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cpus: {os.cpu_count()}; "
          f"{args.repeat} runs per case, each in a fresh interpreter; a range is fastest-slowest")
    table(args.repeat, args.base, args.timeout, args.only, args.base_repeat)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
