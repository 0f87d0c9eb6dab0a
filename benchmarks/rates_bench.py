"""What reading one snapshot as a diff against a zero baseline costs, next to a plain diff.

``advisor audit --snapshot A.json`` and ``audit_findings`` on a snapshot rate it through
``advisor.rates.workload.since_start``: a zero snapshot of the same files is built, then diffed.
This prints, for N files, the time of ``diff(A, B)`` and of ``since_start(B)`` in alternating
rounds (best of each), and their ratio: the price of having one way from counters to rates.

Usage: ``python benchmarks/rates_bench.py [--files 10000 100000] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from advisor.model import FileIO, ServerInfo, Snapshot
from advisor.rates.workload import diff, since_start

SERVER = ServerInfo("postgres", "18.1", 180001, "db1", "db1:5432", "7300000000000000001",
                    "2026-01-01T00:00:00+00:00", settings={"track_io_timing": "on"})


def snapshot(taken_at: str, files: int, scale: int) -> Snapshot:
    """*files* relations with every counter a PostgreSQL relation has (reads, timing)."""
    rows = tuple(FileIO(f"app/{i}", f"/pg/base/16384/{i}", "data", "pg_default", "app", 8192 * (i + 1),
                        i * scale, None, i * scale * 8192, None, single_block_reads=i * scale,
                        read_time_ms=i * scale * 0.1) for i in range(files))
    return Snapshot(SERVER, taken_at, rows)


def best(rounds: int, first: Callable[[], object], second: Callable[[], object]) -> tuple[float, float]:
    """Best time of each, run alternately so a busy neighbour slows both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for index, run in enumerate((first, second)):
            start = time.perf_counter()
            run()
            times[index].append(time.perf_counter() - start)
    return min(times[0]), min(times[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; best of {args.rounds} rounds")
    print(f"{'files':>8}  {'diff(A, B) s':>13}  {'since_start(B) s':>17}  {'ratio':>6}")
    for count in args.files:
        a = snapshot("2026-01-01T01:00:00+00:00", count, 1)
        b = snapshot("2026-01-01T02:00:00+00:00", count, 2)
        pair, alone = best(args.rounds, lambda a=a, b=b: diff(a, b), lambda b=b: since_start(b))
        print(f"{count:>8}  {pair:>13.3f}  {alone:>17.3f}  {alone / pair:>5.2f}x")


if __name__ == "__main__":
    main()
