"""Simulator speed: simulated IOs per CPU second, by workload shape.

Run: ``.venv/bin/python benchmarks/sim_bench.py [--ios N]``. Prints one table; the
"vs target" column is the ratio to the 100 000 IOs/s target. Timings are the best of three
runs in CPU time of this process (other load on the machine does not count, though it
still slows the caches), so compare rows of one run rather than runs of different machines.
The SPTF rows are the costly ones: every decision prices the queued requests near the head.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from advisor.disk import predict
from advisor.disk.model import DiskModel
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
        "QD32 SPTF, full stroke": [StreamSpec("randread", (0.0, 1.0), 8192, 32)],
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
    predict_table(model)


def predict_table(model: DiskModel) -> None:
    """Cost of the analytic predictions the placement optimizer calls thousands of times."""
    print()
    print(f"{'prediction':40s} {'us/call':>10s} {'calls/s':>12s}")
    bands = [(i / 500, i / 500 + 0.01) for i in range(400)]  # 400 distinct bands: no memo hits
    rows: dict[str, Callable[[int], object]] = {
        "mean_service_ms, new band": lambda i: predict.mean_service_ms(model, bands[i], 8192),
        "mean_service_ms, memoised": lambda i: predict.mean_service_ms(model, bands[i % 10], 8192),
        "mixed_service_ms, 3 streams, memoised": lambda i: predict.mixed_service_ms(
            model,
            [(predict.OUTER, 0.5, 8192, False), (predict.INNER, 0.3, 8192, False), ((0.4, 0.5), 0.2, 65536, True)],
        ),
    }
    for name, call in rows.items():
        count = 400
        start = time.process_time()
        for i in range(count):
            call(i)
        per_call = (time.process_time() - start) / count
        print(f"{name:40s} {per_call * 1e6:10.1f} {1 / per_call:12,.0f}")


if __name__ == "__main__":
    main()
