"""How long ``advisor COMMAND`` takes before it does anything: this tree against another revision.

A DBA runs short commands (``sql show``, ``where``, ``--help``) and scripts run many; the tests
run the command line as a process about a thousand times. Each case is a command that does
little (its ``--help``, ``sql list``) so that the figure is the start-up: the interpreter,
the imports and the assembly of the command line. The cases run in turn, this tree then the
baseline, ROUNDS times each (pairs, so that a drift of the machine's speed falls on both), in a
new process with ``python -P -m advisor`` and the tree first on ``PYTHONPATH``; the table prints
each side's minimum and median wall time and the median of the paired ratios, and the load
average before and after.

    .venv/bin/python benchmarks/startup_bench.py [--baseline 4809bf1] [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.revision_tree import export  # noqa: E402

CASES = (("--help",), ("report", "--help"), ("collect", "--help"), ("plan", "--help"), ("sql", "list"),
         ("--version",))


def once(tree: Path, args: tuple[str, ...]) -> float:
    """Wall seconds of one ``advisor ARGS`` run from *tree* (a failure stops the benchmark)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "ADVISOR_SQL_DIR": str(tree / "sql"), "COLUMNS": "100"}
    start = time.perf_counter()
    # no timeout: with one, the wait polls the child at up to 50 ms intervals and the figures come in steps
    subprocess.run([sys.executable, "-P", "-m", "advisor", *args], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> int:
    """Run the cases and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="4809bf1", help="the revision to compare with (default 4809bf1)")
    parser.add_argument("--rounds", type=int, default=15, help="runs of each case on each side (default 15)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    table = Table(title=f"advisor start-up: this tree vs {args.baseline}, {args.rounds} paired runs each (seconds)")
    for column in ("command", "this tree min", "median", "baseline min", "median", "ratio (median of pairs)"):
        table.add_column(column, justify="left" if column == "command" else "right")
    with tempfile.TemporaryDirectory() as folder:
        baseline = export(args.baseline, Path(folder))
        for case in CASES:
            for tree in (REPO, baseline):  # warm the page cache and the bytecode of both
                once(tree, case)
            pairs = [(once(REPO, case), once(baseline, case)) for _ in range(args.rounds)]
            ours, theirs = [a for a, _ in pairs], [b for _, b in pairs]
            table.add_row(" ".join(case), f"{min(ours):.3f}", f"{statistics.median(ours):.3f}",
                          f"{min(theirs):.3f}", f"{statistics.median(theirs):.3f}",
                          f"{statistics.median(a / b for a, b in pairs):.2f}")
    Console().print(table)
    print(f"load average (1 min): {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
