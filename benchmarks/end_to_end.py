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

from advisor.demo.cleanup import leftovers  # noqa: E402
from advisor.demo.scenario import DemoConfig, run_emulated  # noqa: E402
from advisor.demo.summary import DemoSummary, Measurement, render_text  # noqa: E402
from advisor.errors import AdvisorError  # noqa: E402
from advisor.signals import interruptible  # noqa: E402

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


def _area_of(name: str, before_names: set[str]) -> str:
    """The area before the apply that an area after it came from (moved tablespaces are renamed)."""
    if name in before_names:
        return name
    return next((b for b in before_names if b in name.split("_")), name)


def _gains(before_plan: dict[str, Any] | None, after_plan: dict[str, Any] | None) -> dict[str, float | None]:
    """Per area and overall: planned time saved, and the model's on the layout as applied."""
    if not before_plan:
        return {}
    times = before_plan.get("service_times") or []
    before_ms = {t["area"]: t["before_ms"] for t in times}
    out: dict[str, float | None] = {f"plan:{t['area']}": _saved(t["before_ms"], t["after_ms"]) for t in times}
    out["plan:overall"] = before_plan.get("predicted_gain")
    if after_plan:
        for t in after_plan.get("service_times") or []:
            area = _area_of(t["area"], set(before_ms))
            out[f"applied:{area}"] = _saved(before_ms.get(area), t["before_ms"])
        out["applied:overall"] = _saved(before_plan.get("predicted_before_ms"), after_plan.get("predicted_before_ms"))
    return out


def rows(summary: DemoSummary) -> list[tuple[str, str, list[float | None], float | None]]:
    """(area, measured as, [predictions], measured time saved); predictions as in COLUMNS."""
    b, a = summary.before, summary.after
    assert b is not None and a is not None
    fitted = _gains(summary.plan, summary.plan.get("as_applied", {}) | {
        "predicted_before_ms": (summary.plan.get("as_applied") or {}).get("mean_ms")})
    preset = summary.plan.get("preset_model") or {}
    exact = _gains(preset.get("plan"), preset.get("as_applied"))
    out = []
    for area, what, measured in (
        ("hot", "SELECT latency", _saved(b.read_latency_ms, a.read_latency_ms)),
        ("WAL", "END (commit) latency", _saved(_statement(b, "END"), _statement(a, "END"))),
        ("overall", "transaction latency", summary.measured_gain.get("latency")),
    ):
        predictions = [fitted.get(f"plan:{area}"), fitted.get(f"applied:{area}"),
                       exact.get(f"plan:{area}"), exact.get(f"applied:{area}")]
        out.append((area, what, predictions, measured))
    return out


def per_io_rows(summary: DemoSummary) -> list[tuple[str, float | None, float | None, float | None, float | None]]:
    """(what, model ms before, model ms after as applied, measured ms before, measured ms after)."""
    times = {t["area"]: t for t in summary.plan.get("service_times") or []}
    applied = {_area_of(t["area"], set(times)): t for t in
               (summary.plan.get("as_applied") or {}).get("service_times") or []}
    io = summary.io_latency
    b, a = io.get("before", {}), io.get("after", {})

    def model(area: str) -> tuple[float | None, float | None]:
        return (times.get(area, {}).get("before_ms"), applied.get(area, {}).get("before_ms"))

    return [
        ("hot: one read", *model("hot"), b.get("read_ms"), a.get("read_ms")),
        ("WAL: one write", *model("WAL"), b.get("wal_write_ms"), a.get("wal_write_ms")),
        ("WAL: one flush", None, None, b.get("wal_sync_ms"), a.get("wal_sync_ms")),
    ]


COLUMNS = ("plan/fit", "applied/fit", "plan/preset", "applied/preset")


def _agrees(predicted: float | None, measured: float | None) -> str:
    """'relative' / 'points' / 'NO': within ±15 % of the measured gain, or within ±15 percentage points."""
    if predicted is None or measured is None or measured <= 0:
        return "NO"
    if abs(predicted - measured) / measured <= AGREEMENT:
        return "yes (relative)"
    return "yes (points only)" if abs(predicted - measured) <= AGREEMENT else "NO"


def verdict(summary: DemoSummary) -> list[str]:
    """The bar of this benchmark, checked on the run's own numbers."""
    gains = summary.measured_gain
    tps_gain = (gains.get("tps_ratio") or 1.0) - 1.0
    read_gain = gains.get("read_latency") or 0.0
    measured = gains.get("latency")
    big_enough = tps_gain >= MEASURED_BAR or read_gain >= MEASURED_BAR
    lines = [f"measured gain ≥ {MEASURED_BAR:.0%} (TPS {tps_gain:+.1%}, read latency {-read_gain:+.1%}): "
             f"{'yes' if big_enough else 'NO'}"]
    for name, predicted in (("plan", summary.predicted_gain), ("model as applied", summary.predicted_gain_as_applied)):
        lines.append(f"{name}: predicted {_fmt(predicted)} vs measured {_fmt(measured)} time saved per transaction, "
                     f"within ±{AGREEMENT:.0%}: {_agrees(predicted, measured)}")
    return lines


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
    print("time saved after the apply (fraction of the time before); predictions from the plan and from the model")
    print("on the layout as applied, with the disk model fitted to the bench profile and with the emulated preset")
    print(f"{'area':9}{'measured as':22}" + "".join(f"{c:>15}" for c in COLUMNS) + f"{'measured':>10}")
    for area, what, predictions, measured in rows(summary):
        print(f"{area:9}{what:22}" + "".join(f"{_fmt(p):>15}" for p in predictions) + f"{_fmt(measured):>10}")
    print("\nper IO, as the server timed it (track_io_timing) beside the model (bench fit), ms")
    print(f"{'':16}{'model before':>14}{'model after':>14}{'server before':>15}{'server after':>14}")
    for what, *values in per_io_rows(summary):
        print(f"{what:16}" + "".join(f"{_fmt(v, pct=False):>14}" for v in values[:2])
              + f"{_fmt(values[2], pct=False):>15}{_fmt(values[3], pct=False):>14}")
    print("\n".join(verdict(summary)))
    print(f"disk: {config.preset} emulated at time scale {config.time_scale:g}; advised from "
          f"{'the measured bench profile' if config.advise_from_bench else 'the preset'}; "
          f"pgbench scale {config.pgbench_scale}, {config.seconds} s per run; whole run {summary.elapsed_s:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
