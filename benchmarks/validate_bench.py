"""What the validation layer adds to loading a large snapshot, side by side in one run.

A cluster with 100,000 relations gives a snapshot of 100,000 file rows; every command that
reads it now also runs :func:`advisor.model.validate.check`. This prints, per round, the time to
read and decode the document alone, the time of the check alone, and the ratio
(read + check) / read, alternating the order so neither side always runs on a warm cache.

    .venv/bin/python benchmarks/validate_bench.py [--files 100000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from advisor.model import FORMAT_VERSION, FileIO, ServerInfo, Snapshot, save
from advisor.model.jsonio import read_document
from advisor.model.validate import check


def snapshot(files: int) -> Snapshot:
    """A PostgreSQL-like snapshot of *files* relation rows."""
    server = ServerInfo("postgres", "17.2", 170002, "db1", "app", "7312", "2026-11-21T09:00:00+00:00",
                        {"io": None})
    rows = tuple(FileIO(f"app/{n}", f"/pg/base/5/{n}", "data" if n % 3 else "index", "pg_default", "app",
                        8192 * (n % 1000 + 1), n * 7, None, n * 7 * 8192, None, read_time_ms=n * 0.5,
                        segment_paths=(f"/pg/base/5/{n}.1",) if n % 50 == 0 else ())
                 for n in range(files))
    return Snapshot(server, "2026-11-21T09:05:00+00:00", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snapshot.json"
        save(snapshot(args.files), path)
        print(f"snapshot of {args.files:,} file rows, {path.stat().st_size / 2**20:.1f} MiB; seconds per round")
        print(f"{'round':>5}{'read+decode':>14}{'check':>10}{'ratio':>8}")
        reads, checks = [], []
        for index in range(args.rounds):
            start = time.perf_counter()
            document = read_document(path, "snapshot", Snapshot, FORMAT_VERSION)
            read_s = time.perf_counter() - start
            start = time.perf_counter()
            check(document, path.name)
            check_s = time.perf_counter() - start
            reads.append(read_s)
            checks.append(check_s)
            print(f"{index + 1:>5}{read_s:>14.3f}{check_s:>10.3f}{(read_s + check_s) / read_s:>8.2f}")
        read_m, check_m = statistics.median(reads), statistics.median(checks)
        print(f"{'median':>5}{read_m:>14.3f}{check_m:>10.3f}{(read_m + check_m) / read_m:>8.2f}")


if __name__ == "__main__":
    main()
