"""End to end: does the advice speed up a real PostgreSQL on a (emulated) spinning disk?

The demo's scenario at time scale 1 (every IO takes the drive's real time) and for longer:
PostgreSQL 18 with WAL at the outer edge and the pgbench tables on the inner partition of
an emulated class-7200-desktop drive; collect, bench (the report uses the measured disk
profile, not the preset), report, apply the plan's PostgreSQL script, measure again.
Prints, per area and overall, the time saved that the plan predicted beside what pgbench
measured, and whether the run meets the bar: a gain of at least 25 % in TPS or read
latency, with the prediction within ±15 % (relative) of the measurement.

Run as root (loop devices, FUSE):  .venv/bin/python benchmarks/end_to_end.py [--seconds 60]
Takes about 6-10 minutes; everything it starts is removed at the end.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.demo.cleanup import interruptible, leftovers  # noqa: E402
from advisor.demo.scenario import DemoConfig, run_emulated  # noqa: E402
from advisor.demo.summary import DemoSummary, Measurement, render_text  # noqa: E402
from advisor.errors import AdvisorError  # noqa: E402

MEASURED_BAR = 0.25
AGREEMENT = 0.15


def _statement(m: Measurement, prefix: str) -> float | None:
    values = [v for k, v in m.statements.items() if k.upper().startswith(prefix)]
    return sum(values) / len(values) if values else None


def _saved(before: float | None, after: float | None) -> float | None:
    return 1.0 - after / before if before and after is not None else None


def _fmt(value: float | None, pct: bool = True) -> str:
    if value is None:
        return "n/a"
    return f"{value * 100:+.1f} %" if pct else f"{value:.2f}"


def rows(summary: DemoSummary) -> list[tuple[str, str, float | None, float | None]]:
    """(area, what was measured, predicted time saved, measured time saved)."""
    b, a = summary.before, summary.after
    assert b is not None and a is not None
    times: list[dict[str, Any]] = summary.plan.get("service_times") or []
    predicted = {t["area"]: _saved(t["before_ms"], t["after_ms"]) for t in times}
    out = []
    for area, what, measured in (
        ("hot", "SELECT latency", _saved(b.read_latency_ms, a.read_latency_ms)),
        ("WAL", "END (commit) latency", _saved(_statement(b, "END"), _statement(a, "END"))),
    ):
        out.append((area, what, predicted.get(area), measured))
    out.append(("overall", "transaction latency", summary.predicted_gain, summary.measured_gain.get("latency")))
    return out


def verdict(summary: DemoSummary) -> list[str]:
    """The bar of this benchmark, checked on the run's own numbers."""
    gains = summary.measured_gain
    tps_gain = (gains.get("tps_ratio") or 1.0) - 1.0
    read_gain = gains.get("read_latency") or 0.0
    latency_gain = gains.get("latency")
    predicted = summary.predicted_gain
    big_enough = tps_gain >= MEASURED_BAR or read_gain >= MEASURED_BAR
    agree = (predicted is not None and latency_gain is not None and latency_gain > 0
             and abs(predicted - latency_gain) / latency_gain <= AGREEMENT)
    return [
        f"measured gain ≥ {MEASURED_BAR:.0%} (TPS {tps_gain:+.1%}, read latency {-read_gain:+.1%}): "
        f"{'yes' if big_enough else 'NO'}",
        f"predicted {_fmt(predicted)} vs measured {_fmt(latency_gain)} time saved per transaction, "
        f"within ±{AGREEMENT:.0%} relative: {'yes' if agree else 'NO'}",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60, help="seconds of each measured pgbench run")
    parser.add_argument("--scale", type=int, default=10, help="pgbench scale (13 MB of accounts per unit)")
    parser.add_argument("--time-scale", type=float, default=1.0, help="emulated disk speed-up (1 = real time)")
    parser.add_argument("--preset", default="class-7200-desktop")
    args = parser.parse_args()
    config = DemoConfig(preset=args.preset, time_scale=args.time_scale, pgbench_scale=args.scale,
                        seconds=args.seconds, warmup_seconds=10, advise_from_bench=args.time_scale == 1.0,
                        bench_args=("--tests", "zones,stroke,cross", "--runs", "1"))
    start = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="advisor-e2e-")).resolve()

    def echo(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    with interruptible():
        try:
            with ExitStack() as stack:
                summary = run_emulated(config, root, stack, echo)
        except AdvisorError as exc:
            print(f"end_to_end: error: {exc.one_line()}", file=sys.stderr)
            return int(exc.exit_code)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    summary.leftovers = leftovers(root)
    summary.elapsed_s = round(time.monotonic() - start, 1)
    print(render_text(summary))
    print(f"{'area':10}{'measured as':24}{'predicted':>12}{'measured':>12}{'ratio':>8}")
    for area, what, predicted, measured in rows(summary):
        ratio = f"{predicted / measured:.2f}" if predicted is not None and measured else "n/a"
        print(f"{area:10}{what:24}{_fmt(predicted):>12}{_fmt(measured):>12}{ratio:>8}")
    print("\n".join(verdict(summary)))
    print(f"disk: {config.preset} emulated at time scale {config.time_scale:g}; advised from "
          f"{'the measured bench profile' if config.advise_from_bench else 'the preset'}; "
          f"pgbench scale {config.pgbench_scale}, {config.seconds} s per run; whole run {summary.elapsed_s:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
