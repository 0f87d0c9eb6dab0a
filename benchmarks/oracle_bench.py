"""How long reading an Oracle report or mapping one live sample takes, as files grow.

Report reading: the fixture generator renders AWR HTML 12.1.0.2, AWR text and Statspack
text reports with FILES data files (the largest real report seen had 565), and each is read
into a workload ROUNDS times. Live sampling: the 19c replay scenario is widened to FILES
data files and one sample is collected and mapped (replay cost included, no network).
Ratios are against the smallest size of the same input, side by side.

    .venv/bin/python benchmarks/oracle_bench.py [--sizes 10,100,565,2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from advisor.collectors.awr import read_report  # noqa: E402
from advisor.collectors.oracle.live import sample  # noqa: E402
from tests.oracle import oracle_scenarios as S  # noqa: E402
from tests.oracle import report_truth as T  # noqa: E402
from tests.oracle.fixtures.render_html import html_report  # noqa: E402
from tests.oracle.fixtures.render_text import awr_text_report, statspack_report  # noqa: E402


def truth_files(count: int) -> tuple[T.TruthFile, ...]:
    base = [f for f in T.FILES if f.kind == "data"]
    return tuple(dataclasses.replace(base[i % len(base)], path=f"/u{i % 9:02d}/oradata/ORCL/file{i:04d}.dbf")
                 for i in range(count))


def best_ms(action: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,100,565,2000")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    renderers = {"awr html 12.1": (html_report, "12.1.0.2.0", ".html"), "awr text": (awr_text_report, None, ".txt"),
                 "statspack": (statspack_report, None, ".txt")}
    results: dict[str, list[float]] = {}
    original = T.FILES
    with tempfile.TemporaryDirectory() as folder:
        for label, (render, release, suffix) in renderers.items():
            for size in sizes:
                T.FILES = truth_files(size)
                T.HISTOGRAM = {f.path: [10.0] * 6 for f in T.FILES}
                text = render(release) if release else render()  # type: ignore[operator]
                path = Path(folder) / f"r{size}{suffix}"
                path.write_text(text)
                results.setdefault(label, []).append(best_ms(lambda p=path: read_report(p), args.rounds))
        T.FILES = original
        for size in sizes:
            files = tuple(dataclasses.replace(S.FILES_NONCDB[3], file_no=10 + i, creation=100 + i,
                                              path=f"/u02/oradata/ORCL/f{i}.dbf") for i in range(size))
            scenario = dataclasses.replace(S.SCENARIOS["19c"], files=files + S.FILES_NONCDB[4:])
            results.setdefault("live sample 19c", []).append(
                best_ms(lambda s=scenario: sample(s.connection(1)), args.rounds))
    header = f"{'input':<16}" + "".join(f"{str(s) + ' files':>16}" for s in sizes)
    print(header)
    for label, values in results.items():
        cells = "".join(f"{v:>9.1f} ms x{v / values[0]:<5.1f}" for v in values)
        print(f"{label:<16}{cells}")
    print("\nms per file at the largest size: " + ", ".join(
        f"{label} {values[-1] / sizes[-1]:.3f}" for label, values in results.items()))


if __name__ == "__main__":
    main()
