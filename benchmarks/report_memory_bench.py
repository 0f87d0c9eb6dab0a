"""Time and peak memory of a report import on a big report, two checkouts side by side.

Usage: ``python benchmarks/report_memory_bench.py OLD_TREE NEW_TREE [--mib 100] [--runs 3]``.
A big report is made in a temporary directory by repeating the data rows of the Top Sessions
section (a section the workload does not read) of an AWR fixture, HTML and text, until the file
holds about ``--mib`` MiB; each tree imports it in a fresh interpreter
(``advisor.collectors.awr.read_report``), and the wall time and the peak resident size
(``ru_maxrss`` of the child) are printed per run with the load average, then the median ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "oracle" / "fixtures"
MIB = 1024 * 1024
IMPORT = "import sys\nfrom advisor.collectors.awr import read_report\nread_report(sys.argv[1])\n"


def inflated_report(fixture: Path, target_bytes: int, out: Path) -> Path:
    """*fixture* with its Top Sessions rows repeated until the file holds about *target_bytes*."""
    text = fixture.read_text(encoding="utf-8")
    if fixture.suffix == ".html":
        start = text.index("<h3 class=\"awr\">Top Sessions</h3>")
        first = text.index("<tr><td", start)
        end = text.index("</table>", first)
    else:
        start = text.index("Top Sessions ")
        rule = text.index("\n-----", text.index("\nUser", start))
        first = text.index("\n", rule + 1) + 1
        end = text.index("\n\n", first) + 1
    rows = text[first:end]
    copies = max(1, (target_bytes - len(text)) // len(rows))
    with out.open("w", encoding="utf-8") as sink:
        sink.write(text[:first])
        for _ in range(copies):
            sink.write(rows)
        sink.write(text[end:])
    return out


def measure(tree: Path, report: Path) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of one import of *report* by *tree*'s code in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", IMPORT, str(report)], cwd=tree, env={"PYTHONPATH": str(tree)},
                   check=True, capture_output=True)
    seconds = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if peak_kib < before:  # ru_maxrss of children is the largest child so far: a smaller child shows no rise
        raise RuntimeError("child peak not measurable")
    return seconds, peak_kib / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--mib", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for fixture in ("awr_11.2.0.4.html", "awr_11.2.0.4.txt"):
            report = inflated_report(FIXTURES / fixture, args.mib * MIB, Path(folder) / f"big-{fixture}")
            size_mib = report.stat().st_size / MIB
            results: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
            for run in range(args.runs):
                # new first then old on alternate runs, so a load change does not favour one side;
                # each side runs in its own child so ru_maxrss (largest child so far) is reset by order
                order = ("new", "old") if run % 2 else ("old", "new")
                for side in order:
                    tree = args.old if side == "old" else args.new
                    results[side].append(_isolated(tree, report))
                    print(f"{fixture} {size_mib:.0f} MiB run {run + 1} {side}: {results[side][-1][0]:.1f} s, "
                          f"peak {results[side][-1][1]:.0f} MiB, load {os.getloadavg()[0]:.1f}", flush=True)
            old_s = statistics.median(r[0] for r in results["old"])
            new_s = statistics.median(r[0] for r in results["new"])
            old_m = statistics.median(r[1] for r in results["old"])
            new_m = statistics.median(r[1] for r in results["new"])
            print(f"{fixture} {size_mib:.0f} MiB median: time {old_s:.1f} s -> {new_s:.1f} s "
                  f"(x{old_s / new_s:.2f} faster), peak {old_m:.0f} MiB -> {new_m:.0f} MiB "
                  f"(x{old_m / new_m:.2f} smaller; {old_m / size_mib:.2f} -> {new_m / size_mib:.2f} times the file)")


def _isolated(tree: Path, report: Path) -> tuple[float, float]:
    """One measurement in a fresh grandchild, so the peak RSS is this import's alone."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from benchmarks.report_memory_bench import measure; from pathlib import Path; "
            "s, m = measure(Path(sys.argv[2]), Path(sys.argv[3])); print(s, m)")
    here = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code, str(here), str(tree), str(report)],
                          check=True, capture_output=True, text=True)
    seconds, mib = done.stdout.split()
    return float(seconds), float(mib)


if __name__ == "__main__":
    main()
