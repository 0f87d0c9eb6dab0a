"""The replay's cost under several rotational phases, and how far one phase strays from their mean.

`advisor report` replays a traced disk once per rotational phase and layout
(:func:`advisor.engine.replay_today.phased_replays`); this prints, for synthetic request
streams of about 5,000, 50,000 and 500,000 requests, the seconds one replay takes (K = 1)
beside the K phases the engine gives a trace of that size (:func:`replay_phases`; one layout:
the report replays today's and the planned one), and the spread of the per-phase mean service
time (the lowest and highest phase against the mean: what a single replay would have drawn).

The streams are `benchmarks/trace_size.py`'s mixed shape (random 8 KiB OLTP reads and
writes, two 128 KiB sequential scans) on a 2 TB drive, issued by 8 closed-loop processes
(8 ms traced service, 1 ms think), replayed on the class-7200-desktop preset through the
engine's own helper, which locates the stream's extents once for all its phases (K = 1 locates
them on the way, as a single replay does). The replay is a Python event loop, linear in requests.

    .venv/bin/python benchmarks/replay_bench.py [--runs 3] [--sizes 5000,50000,500000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from trace_size import DISK, stream

from advisor.disk.physics import ModelPhysics
from advisor.disk.presets import get_model
from advisor.disk.replay import Replayed, Stream
from advisor.engine.replay_today import REPLAY_PHASES, phased_replays, replay_phases

PROCESSES = 8


def closed_loop(count: int) -> Stream:
    """*count* requests of the mixed shape, from PROCESSES closed loops (8 ms service, 1 ms think)."""
    requests = stream("mixed", count)
    process = np.arange(count, dtype=np.int64) % PROCESSES
    issue = (np.arange(count) // PROCESSES).astype(np.float64) * 0.009
    return Stream(requests.sector * 512, requests.sectors * 512, requests.op, process, issue, issue + 0.008)


def timed(physics: ModelPhysics, work: Stream, phases: tuple[float, ...]) -> tuple[float, tuple[Replayed, ...]]:
    """Seconds the replays of *work* under *phases* took, and the replays."""
    start = time.perf_counter()
    done = phased_replays(physics, work, DISK, phases)
    return time.perf_counter() - start, done


def main() -> None:
    """Print a row per stream size: requests, K, seconds for K = 1 and K phases, their ratio, the spread."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="5000,50000,500000")
    args = parser.parse_args()
    physics = ModelPhysics(get_model("class-7200-desktop"))
    loads = [os.getloadavg()[0]]
    print(f"{'requests':>9} {'K':>2} {'K=1 s (runs)':>24} {'K phases s (runs)':>28} {'ratio':>6} "
          f"{'us/request':>10} {'phase means vs their mean':>26}")
    for count in (int(size) for size in args.sizes.split(",")):
        work = closed_loop(count)
        phases = replay_phases(count)
        singles, phased = [], []
        spread = ""
        for _ in range(args.runs):
            singles.append(timed(physics, work, (0.0,))[0])
            seconds, done = timed(physics, work, phases)
            phased.append(seconds)
            means = np.array([float(r.service_s.mean()) for r in done])
            spread = f"{means.min() / means.mean() - 1:+.1%} to {means.max() / means.mean() - 1:+.1%}"
            loads.append(os.getloadavg()[0])
        one, many = statistics.median(singles), statistics.median(phased)
        print(f"{count:>9,} {len(phases):>2} {' '.join(f'{s:.2f}' for s in singles):>24} "
              f"{' '.join(f'{s:.2f}' for s in phased):>28} {many / one:6.1f} {one / count * 1e6:10.1f} "
              f"{spread if len(phases) > 1 else '-':>26}")
    print(f"load average (1 min) {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores; "
          f"K = {REPLAY_PHASES} phases up to the engine's request cap, fewer above (replay_phases)")


if __name__ == "__main__":
    main()
