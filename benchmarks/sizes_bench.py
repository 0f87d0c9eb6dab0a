"""Time and peak memory of ``advisor collect --from-report R --sizes S`` on big sizes files.

A sizes file is the output of ``advisor sql show sizes``: a line per data file, temp file,
redo member, control file and FRA file type (PostgreSQL: per tablespace). A database has at
most 65,533 data files (Oracle's DB_FILES), so the biggest real file is tens of MB; this
benchmark also feeds it what no database prints (100 MiB, ~970,000 rows) to show what such a
file costs. The report is the 11.2.0.4 AWR fixture (tests/oracle/fixtures), the rows are the
fixture database's plus fillers:

- ``other-ts``: 100 MiB of SQL*Plus CSV, data files of tablespaces the report does not list;
- ``users``: 100 MiB of SQL*Plus CSV, data files of USERS, which the report lists (each would
  become a file of the workload);
- ``grid-max``: the largest file a database prints, 65,533 data files (half of them in USERS)
  as the SQL*Plus 11.2 grid (513-character FILE_NAME column).

Each case runs ROUNDS times in a new process under ``/usr/bin/time -v`` (wall time, peak RSS),
for this tree and, with ``--baseline REV``, for another revision's ``advisor`` package exported
from git; the table prints the medians side by side with their ratios, the exit code and the
workload written, and the load average before and after.

    .venv/bin/python benchmarks/sizes_bench.py [--baseline 67977fb] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.revision_tree import export  # noqa: E402
from tests.oracle.sizes_rows import COLUMNS_11, row, rows_11  # noqa: E402
from tests.oracle.sizes_shapes import sqlplus_csv, sqlplus_grid  # noqa: E402

REPORT = REPO / "tests" / "oracle" / "fixtures" / "awr_11.2.0.4.txt"
TARGET_BYTES = 100 << 20
DB_FILES_MAX = 65_533
RUN = "import sys; from advisor.cli import app; sys.argv[0] = 'advisor'; app()"


def _fillers(count: int, tablespace: str | None) -> list[dict[str, str]]:
    folder = tablespace or "other"
    return [row("datafile", tablespace or f"TS_{n % 5000:04d}", f"/u07/oradata/ORCL/{folder}/f_{n:07d}.dbf", 1 << 30)
            for n in range(count)]


def make_files(folder: Path) -> dict[str, Path]:
    """The three sizes files of the module docstring, written into *folder*."""
    one = len(sqlplus_csv(COLUMNS_11, _fillers(1000, None), feedback=False)) / 1000
    count = int(TARGET_BYTES / one)
    files = {}
    for name, tablespace in (("other-ts", None), ("users", "USERS")):
        path = folder / f"{name}.csv"
        path.write_text(sqlplus_csv(COLUMNS_11, rows_11() + _fillers(count, tablespace)))
        files[name] = path
    half = DB_FILES_MAX // 2
    grid_rows = rows_11() + _fillers(half, "USERS") + _fillers(DB_FILES_MAX - half - 6, None)
    files["grid-max"] = folder / "grid-max.txt"
    files["grid-max"].write_text(sqlplus_grid(COLUMNS_11, grid_rows, pagesize=50000))
    return files


def measure(source: Path, sizes: Path, out: Path) -> tuple[float, int, int, int]:
    """One run: wall seconds, peak RSS in KiB, exit code, bytes of the workload written (0: none)."""
    out.unlink(missing_ok=True)
    done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c", RUN, "collect", "--from-report",
                           str(REPORT), "--sizes", str(sizes), "-o", str(out)],
                          capture_output=True, text=True, timeout=1800, cwd=source,
                          env={**os.environ, "PYTHONPATH": str(source)})
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    status = re.search(r"Exit status: (\d+)", done.stderr)
    assert wall and rss and status, done.stderr[-500:]
    hours, minutes, seconds = wall.groups()
    elapsed = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    return elapsed, int(rss.group(1)), int(status.group(1)), out.stat().st_size if out.exists() else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=None, help="a git revision to compare with (e.g. main)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} "
          f"({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory(prefix="sizes-bench-", dir="/var/tmp") as tmp:
        folder = Path(tmp)
        files = make_files(folder)
        trees = {"this tree": REPO}
        if args.baseline:
            trees[args.baseline] = export(args.baseline, Path(tempfile.mkdtemp(dir=tmp)))
        print(f"{'file':10} {'MiB':>6} {'tree':>10} {'exit':>4} {'median s':>9} {'runs s':>22} {'peak MiB':>9} "
              f"{'workload MB':>11}")
        medians: dict[tuple[str, str], tuple[float, float]] = {}
        for name, sizes in files.items():
            for tree, source in trees.items():
                runs = [measure(source, sizes, folder / "out.json") for _ in range(args.rounds)]
                wall = statistics.median(r[0] for r in runs)
                peak = statistics.median(r[1] for r in runs) / 1024
                medians[(name, tree)] = (wall, peak)
                print(f"{name:10} {sizes.stat().st_size / (1 << 20):6.1f} {tree[:10]:>10} {runs[0][2]:4d} "
                      f"{wall:9.2f} {' '.join(f'{r[0]:.2f}' for r in runs):>22} {peak:9.0f} "
                      f"{runs[0][3] / 1e6:11.1f}")
        if args.baseline:
            for name in files:
                (new_s, new_mib), (old_s, old_mib) = medians[(name, "this tree")], medians[(name, args.baseline)]
                print(f"{name}: time {old_s / new_s:.1f}x less, peak memory {old_mib / new_mib:.1f}x less "
                      f"than {args.baseline}")
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
