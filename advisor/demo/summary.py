"""What a demo run measured and predicted: one JSON document and its terminal rendering.

``measured_gain`` and ``predicted_gain`` use the same convention as the report: the
fraction of time saved (0.30 = 30 % less time per transaction or per read); TPS change is
given separately as a ratio. A simulated run has no measurement, only the model's figures,
and says so in ``mode`` and ``label``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from advisor.demo.pgbench import PgbenchResult

SUMMARY_VERSION = 1


@dataclass
class Measurement:
    """One pgbench run, reduced to what the summary shows."""

    tps: float
    latency_ms: float
    read_latency_ms: float | None
    commit_latency_ms: float | None
    transactions: int
    seconds: float
    statements: dict[str, float] = field(default_factory=dict)  # pgbench -r: statement → mean ms

    @classmethod
    def of(cls, result: PgbenchResult) -> Measurement:
        """From a parsed pgbench run."""
        return cls(result.tps, result.latency_ms, result.read_latency_ms, result.commit_latency_ms,
                   result.transactions, result.seconds, dict(result.statements))


@dataclass
class DemoSummary:
    """Everything the demo prints, as data (``--format json`` / ``--summary-json``)."""

    mode: Literal["emulated", "simulated"]
    label: str
    preset: str
    time_scale: float
    pgbench_scale: int
    findings: list[dict[str, Any]] = field(default_factory=list)
    plan: dict[str, Any] = field(default_factory=dict)
    applied_scripts: list[str] = field(default_factory=list)
    before: Measurement | None = None
    after: Measurement | None = None
    predicted_gain: float | None = None  # the plan's: planned partitions, model times
    predicted_gain_as_applied: float | None = None  # the model on the positions after the apply
    measured_gain: dict[str, float | None] = field(default_factory=dict)
    hot_table: dict[str, Any] = field(default_factory=dict)
    io_latency: dict[str, dict[str, float | None]] = field(default_factory=dict)  # the server's own IO timing
    simulated: dict[str, Any] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)
    step_seconds: dict[str, float] = field(default_factory=dict)
    leftovers: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    document: str = "demo-summary"
    format_version: int = SUMMARY_VERSION

    def measure_gains(self) -> None:
        """Fill ``measured_gain`` from before/after (time saved; TPS as after/before)."""
        if self.before is None or self.after is None:
            return
        b, a = self.before, self.after
        self.measured_gain = {
            "tps_ratio": a.tps / b.tps if b.tps else None,
            "latency": 1.0 - a.latency_ms / b.latency_ms if b.latency_ms else None,
            "read_latency": (1.0 - a.read_latency_ms / b.read_latency_ms
                             if a.read_latency_ms is not None and b.read_latency_ms else None),
        }

    def to_json(self) -> str:
        """Stable JSON (keys sorted, two-space indent)."""
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} %"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} ms"


def _place(place: dict[str, Any] | None) -> str:
    if not place:
        return "?"
    text = f"{place.get('area')} partition (tablespace {place.get('tablespace')})"
    return text + (" [simulated, not moved]" if place.get("simulated") else "")


def _change(before: float | None, after: float | None) -> str:
    return _pct(after / before - 1.0) if before and after is not None else "n/a"


def _measured_rows(b: Measurement, a: Measurement, scale: float) -> list[str]:
    rows = [f"{'':24}{'before':>12}{'after':>12}{'change':>12}",
            f"{'TPS':24}{b.tps:>12.1f}{a.tps:>12.1f}{_change(b.tps, a.tps):>12}",
            f"{'transaction latency':24}{_ms(b.latency_ms):>12}{_ms(a.latency_ms):>12}"
            f"{_change(b.latency_ms, a.latency_ms):>12}"]
    if b.read_latency_ms is not None and a.read_latency_ms is not None:
        rows.append(f"{'read latency':24}{_ms(b.read_latency_ms):>12}{_ms(a.read_latency_ms):>12}"
                    f"{_change(b.read_latency_ms, a.read_latency_ms):>12}")
    if scale != 1.0:
        rows.append(f"(the emulated disk runs {scale:g}x faster than the drive: its waits are 1/{scale:g} of the "
                    "drive's, CPU time is not scaled)")
    return rows


def render_text(summary: DemoSummary) -> str:
    """The closing table: before/after beside the prediction."""
    lines = [f"== {summary.label} =="]
    if summary.findings:
        lines.append("Findings: " + ", ".join(sorted({str(f['code']) for f in summary.findings})))
    if summary.hot_table:
        lines.append(f"Hot table pgbench_accounts: {_place(summary.hot_table.get('before'))} -> "
                     f"{_place(summary.hot_table.get('after'))}")
    if summary.applied_scripts:
        lines.append("Applied: " + ", ".join(summary.applied_scripts))
    if summary.before and summary.after:
        lines += _measured_rows(summary.before, summary.after, summary.time_scale)
    if summary.simulated:
        sim = summary.simulated
        lines.append(f"Model: mean service time per IO {_ms(sim.get('before_ms'))} -> {_ms(sim.get('after_ms'))}")
    if summary.predicted_gain_as_applied is not None:
        lines.append(f"Model on the layout as applied: {_pct(summary.predicted_gain_as_applied)} time saved per IO")
    lines.append(f"Predicted time saved: {_pct(summary.predicted_gain)}"
                 + (f"   measured: {_pct(summary.measured_gain.get('latency'))} per transaction, "
                    f"{_pct(summary.measured_gain.get('read_latency'))} per read" if summary.measured_gain else ""))
    lines.append("Left behind: " + ("nothing" if not summary.leftovers else "; ".join(summary.leftovers)))
    return "\n".join(lines) + "\n"
