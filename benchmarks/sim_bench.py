"""Simulator speed: simulated IOs per wall-clock second, by workload shape.

Run: ``.venv/bin/python benchmarks/sim_bench.py [--ios N]``. Prints one table; the last
column is the ratio to the 100 000 IOs/s target. Timings are wall clock on this machine
(best of three runs, CPU time of this process, so other load on the machine does not
count), so compare rows of one run rather than runs of different machines.
"""

from __future__ import annotations

import argparse
import time

from advisor.disk import predict
from advisor.disk.presets import get_model
from advisor.disk.simulate import StreamSpec, simulate

TARGET = 100_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ios", type=int, default=50_000)
    parser.add_argument("--preset", default="st4000vn006")
    args = parser.parse_args()
    model = get_model(args.preset)
    cases = {
        "QD1 random, full stroke": [StreamSpec("randread", (0.0, 1.0), 8192, 1)],
        "QD16 SPTF, full stroke": [StreamSpec("randread", (0.0, 1.0), 8192, 16)],
        "sequential 1 MiB reads": [StreamSpec("read", (0.0, 1.0), 1 << 20, 1)],
        "two streams, outer + inner": [
            StreamSpec("randread", predict.OUTER, 8192, 1),
            StreamSpec("randread", predict.INNER, 8192, 1),
        ],
        "random writes + flush every 8": [StreamSpec("randwrite", (0.0, 0.1), 8192, 1, flush_every=8)],
    }
    print(f"{'workload':32s} {'sim IOs/s':>12s} {'vs target':>10s} {'model IOPS':>11s}")
    for name, streams in cases.items():
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            run = simulate(model, streams, ios=args.ios, seed=1)
            best = min(best, time.process_time() - start)
        rate = args.ios / best
        print(f"{name:32s} {rate:12,.0f} {rate / TARGET:10.2f} {run.iops:11.1f}")


if __name__ == "__main__":
    main()
