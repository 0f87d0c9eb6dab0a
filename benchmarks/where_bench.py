"""How fast `advisor where` maps files to disk positions, and what FIEMAP_FLAG_SYNC costs.

Creates N small files (default 100 000) in a fresh directory on a real file system, then
maps them in several ways, printing one table with times, files/s and ratios against the
default mode (sync on clean files):

- no-sync, dirty: right after writing, without flushing; shows how many files have no
  physical position yet (delayed allocation), i.e. why sync is the default;
- sync, dirty: the first mapping pays the writeback of every file;
- sync, clean / no-sync, clean: the steady state (database files are normally clean);
- directory: the same files as one aggregated Location;
- filefrag: the subprocess alternative, timed on a sample and scaled to N.

Usage: ``python benchmarks/where_bench.py [--files N] [--dir PATH]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.storage import parallel  # noqa: E402
from advisor.storage.locate import Locator  # noqa: E402


def make_files(root: Path, count: int, size: int) -> list[str]:
    payload = b"w" * size
    paths = []
    per_dir = 1000
    for index in range(count):
        sub = root / f"d{index // per_dir:04d}"
        if index % per_dir == 0:
            sub.mkdir()
        path = sub / f"f{index:06d}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, payload)
        os.close(fd)
        paths.append(str(path))
    return paths


def timed_map(paths: list[str], sync: bool) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of this process (not of a forked child), unplaced files."""
    locator = Locator(sync=sync)
    start, cpu = time.perf_counter(), time.process_time()
    found = locator.locate_many(paths)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    unplaced = sum(1 for loc in found if loc.zone_start is None)
    return elapsed, cpu, unplaced


@contextmanager
def one_core() -> Iterator[None]:
    """Locate in this process alone (advisor.storage.parallel forks a child for large batches)."""
    saved = parallel.PARALLEL_MIN
    parallel.PARALLEL_MIN = 1 << 62
    try:
        yield
    finally:
        parallel.PARALLEL_MIN = saved


def filefrag_rate(paths: list[str], sample: int) -> float | None:
    tool = shutil.which("filefrag")
    if tool is None:
        return None
    chosen = paths[:: max(1, len(paths) // sample)][:sample]
    start = time.perf_counter()
    for path in chosen:
        subprocess.run([tool, "-v", "-b512", path], capture_output=True, check=False)
    return (time.perf_counter() - start) / len(chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--size", type=int, default=4096, help="bytes per file")
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"), help="parent of the scratch directory")
    parser.add_argument("--filefrag-sample", type=int, default=300)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="where-bench-", dir=args.dir))
    try:
        start = time.perf_counter()
        paths = make_files(root, args.files, args.size)
        created = time.perf_counter() - start
        rows: list[tuple[str, float, float, int]] = []
        rows.append(("no-sync, dirty", *timed_map(paths, sync=False)))
        rows.append(("sync, dirty (pays writeback)", *timed_map(paths, sync=True)))
        rows.append(("sync, clean (default)", *timed_map(paths, sync=True)))
        rows.append(("no-sync, clean", *timed_map(paths, sync=False)))
        with one_core():
            rows.append(("sync, clean, one core (no forked child)", *timed_map(paths, sync=True)))
        start, cpu = time.perf_counter(), time.process_time()
        whole = Locator().locate(str(root))
        rows.append(("directory (one Location)", time.perf_counter() - start, time.process_time() - cpu,
                     0 if whole.zone_start is not None else 1))
        per_file = filefrag_rate(paths, args.filefrag_sample)
        if per_file is not None:
            rows.append((f"filefrag subprocess (x{args.filefrag_sample}, scaled)", per_file * len(paths),
                         float("nan"), -1))
        mount = subprocess.run(["df", "--output=source,fstype", str(root)], capture_output=True, text=True).stdout
        load = os.getloadavg()[0]
        print(f"{len(paths)} files of {args.size} B under {root} ({' '.join(mount.split()[2:])}); "
              f"created in {created:.2f} s; load average {load:.1f} on {os.cpu_count()} CPUs")
        baseline = rows[2][1]
        print(f"{'case':44} {'wall s':>8} {'cpu s':>7} {'files/s':>9} {'vs default':>11} {'no position':>12}")
        for name, seconds, cpu_s, unplaced in rows:
            rate = len(paths) / seconds if seconds > 0 else float("inf")
            missing = "-" if unplaced < 0 else str(unplaced)
            print(f"{name:44} {seconds:8.3f} {cpu_s:7.3f} {rate:9.0f} {seconds / baseline:10.2f}x {missing:>12}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
