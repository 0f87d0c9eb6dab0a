"""What a demo run measured and predicted: one JSON document and its terminal rendering.

``measured_gain`` and ``predicted_gain`` use the same convention as the report: the
fraction of time saved (0.30 = 30 % less time per transaction or per read); TPS change is
given separately as a ratio. A simulated run has no measurement, only the model's figures,
and says so in ``mode`` and ``label``.

An emulated run also says where each run's time went (``time_split``: the modelled disk's
time and the host's, in total and per read, see :mod:`advisor.demo.timesplit`) and whether
the comparison is valid (``verdict``). When it is not, ``measured_gain`` stays empty and
neither the table nor the closing line shows a change: the runs' own figures are printed,
no speed-up or loss is claimed from them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from advisor.demo.pgbench import PgbenchResult

SUMMARY_VERSION = 3  # 2: time_split, verdict; measured_gain empty when not valid. 3: prediction (replay)


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
    clients: int = 1

    @classmethod
    def of(cls, result: PgbenchResult) -> Measurement:
        """From a parsed pgbench run."""
        return cls(result.tps, result.latency_ms, result.read_latency_ms, result.commit_latency_ms,
                   result.transactions, result.seconds, dict(result.statements), result.clients)


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
    predicted_gain: float | None = None  # the prediction: the replay's, else the aggregate model's (``prediction``)
    predicted_gain_as_applied: float | None = None  # the model on the positions after the apply
    measured_gain: dict[str, float | None] = field(default_factory=dict)
    hot_table: dict[str, Any] = field(default_factory=dict)
    io_latency: dict[str, dict[str, float | None]] = field(default_factory=dict)  # the server's own IO timing
    simulated: dict[str, Any] = field(default_factory=dict)
    time_split: dict[str, dict[str, Any]] = field(default_factory=dict)  # before/after: modelled disk vs host
    verdict: dict[str, Any] = field(default_factory=dict)  # valid, reason, checks, attempts, rejected
    prediction: dict[str, Any] = field(default_factory=dict)  # source, replay and aggregate gains, judgement
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
        self.measured_gain = gains_between(self.before, self.after)

    @property
    def measurement_valid(self) -> bool:
        """False only when a verdict found the comparison not valid (simulated runs have none)."""
        return self.verdict.get("valid") is not False

    def to_json(self) -> str:
        """Stable JSON (keys sorted, two-space indent)."""
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"


def gains_between(b: Measurement, a: Measurement) -> dict[str, float | None]:
    """Time saved per transaction and per read, and the TPS ratio, from two runs."""
    return {
        "tps_ratio": a.tps / b.tps if b.tps else None,
        "latency": 1.0 - a.latency_ms / b.latency_ms if b.latency_ms else None,
        "read_latency": (1.0 - a.read_latency_ms / b.read_latency_ms
                         if a.read_latency_ms is not None and b.read_latency_ms else None),
    }


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


def _measured_rows(b: Measurement, a: Measurement, scale: float, valid: bool = True) -> list[str]:
    def change(before: float | None, after: float | None) -> str:
        return f"{_change(before, after):>12}" if valid else ""  # no change shown from an invalid comparison

    rows = [f"{'':24}{'before':>12}{'after':>12}" + (f"{'change':>12}" if valid else ""),
            f"{'TPS':24}{b.tps:>12.1f}{a.tps:>12.1f}{change(b.tps, a.tps)}",
            f"{'transaction latency':24}{_ms(b.latency_ms):>12}{_ms(a.latency_ms):>12}"
            f"{change(b.latency_ms, a.latency_ms)}"]
    if b.read_latency_ms is not None and a.read_latency_ms is not None:
        rows.append(f"{'read latency':24}{_ms(b.read_latency_ms):>12}{_ms(a.read_latency_ms):>12}"
                    f"{change(b.read_latency_ms, a.read_latency_ms)}")
    if scale != 1.0:
        rows.append(f"(the emulated disk runs {scale:g}x faster than the drive: its waits are 1/{scale:g} of the "
                    "drive's, CPU time is not scaled)")
    return rows


def _seconds(value: Any) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def _share(value: Any) -> str:
    return "n/a" if value is None else f"{value * 100:.1f} %"


def split_rows(split: dict[str, dict[str, Any]]) -> list[str]:
    """Modelled disk vs host, in total and per read, for the before and after runs."""
    b, a = split.get("before") or {}, split.get("after") or {}
    if not b or not a:
        return []
    rows = [f"{'where the time went':24}{'before':>12}{'after':>12}   (real time; emulator trace)"]
    for label, key, fmt in (("run, pgbench measured", "measured_s", _seconds),
                            ("  modelled disk", "disk_s", _seconds), ("  host", "host_s", _seconds),
                            ("  host share", "host_share", _share),
                            ("  pgbench per tx", "transaction_ms", _ms),
                            ("  modelled disk per tx", "transaction_disk_ms", _ms),
                            ("  host per tx", "transaction_host_ms", _ms),
                            ("read (SELECT), pgbench", "read_ms", _ms), ("  modelled disk", "read_disk_ms", _ms),
                            ("  host", "read_host_ms", _ms), ("  host share", "read_host_share", _share)):
        if b.get(key) is None and a.get(key) is None:
            continue
        rows.append(f"{label:24}{fmt(b.get(key)):>12}{fmt(a.get(key)):>12}")
    return rows


def _points(fraction: float) -> str:
    """A part of a gain in percentage points; one that rounds to nothing is +0.0, never -0.0."""
    return f"{round(fraction * 100, 6) + 0.0:+.1f} points"


def verdict_line(verdict: dict[str, Any]) -> str:
    """One line: is the before/after comparison the disk's doing, and why (not)."""
    tries = int(verdict.get("attempts", 1))
    again = f" (after {tries} runs of the new layout)" if tries > 1 else ""
    if verdict.get("valid"):
        line = f"Measurement valid{again}: {verdict.get('reason')}"
        for check in verdict.get("checks") or []:
            disk, host, gain = check.get("disk_part"), check.get("host_part"), check.get("claimed_gain")
            untraced = check.get("untraced_part")
            if disk is not None and host is not None and gain is not None:
                unit = "transaction" if check.get("level") == "run" else "read"
                line += (f"\n  of the {_pct(gain)} saved per {unit}: the modelled disk's time "
                         f"{_points(disk)}, the host's {_points(host)}"
                         + (f", untraced {_points(untraced)}" if untraced is not None else ""))
        return line
    return (f"Measurement NOT VALID{again}: {verdict.get('reason')}. No speed-up or loss is claimed; "
            "run the demo again on a quieter machine")


def prediction_source(prediction: dict[str, Any]) -> str:
    """Where the predicted figure comes from, said after it: the replay, or the aggregate model and why."""
    if not prediction:
        return ""
    if prediction.get("source") == "replay":
        return f" by the replay of the traced before run (aggregate model: {_pct(prediction.get('aggregate_gain'))})"
    return f" by the AGGREGATE model, not the replay: {prediction.get('why_not_replay')}"


def self_check_lines(prediction: dict[str, Any]) -> list[str]:
    """The replay's self-check per disk the plan lays out (the rows its verdict counts)."""
    lines = []
    for check in prediction.get("replay") or []:
        if check.get("refused") is not None or check.get("planned_ms") is None:
            continue
        deviation, tolerance = check.get("deviation"), check.get("tolerance") or 0.0
        within = "within" if check.get("fits") else "NOT within"
        if check.get("basis") == "busy time":
            lines.append(f"Replay self-check on {check.get('disk')} (a queue): its traced requests keep the "
                         f"replayed drive busy {_pct(check.get('busy_deviation'))} off the measured busy time "
                         f"({within} ±{tolerance * 100:.0f} %); per request {_ms(check.get('replayed_ms'))} "
                         f"replayed, {_ms(check.get('measured_ms'))} measured ({_pct(deviation)}), under the plan "
                         f"{_ms(check.get('planned_ms'))}")
            continue
        lines.append(f"Replay self-check on {check.get('disk')}: {check.get('requests')} traced requests replay at "
                     f"{_ms(check.get('replayed_ms'))} each, the trace measured {_ms(check.get('measured_ms'))} "
                     f"({_pct(deviation)}, {within} ±{tolerance * 100:.0f} %); "
                     f"under the plan {_ms(check.get('planned_ms'))}")
    for warning in prediction.get("collect_warnings") or []:
        lines.append(f"collect --trace warned: {warning}")
    return lines


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
    valid = summary.measurement_valid
    if summary.before and summary.after:
        lines += _measured_rows(summary.before, summary.after, summary.time_scale, valid)
    lines += split_rows(summary.time_split)
    if summary.simulated:
        sim = summary.simulated
        lines.append(f"Model: mean service time per IO {_ms(sim.get('before_ms'))} -> {_ms(sim.get('after_ms'))}")
    if summary.predicted_gain_as_applied is not None:
        lines.append(f"Model on the layout as applied: {_pct(summary.predicted_gain_as_applied)} time saved per IO")
    claim = (f"   measured: {_pct(summary.measured_gain.get('latency'))} per transaction, "
             f"{_pct(summary.measured_gain.get('read_latency'))} per read" if summary.measured_gain and valid else "")
    error = summary.prediction.get("error") if summary.prediction else None
    uncertainty = f" ± {error * 100:.1f}" if error is not None and summary.predicted_gain is not None else ""
    lines.append(f"Predicted time saved: {_pct(summary.predicted_gain)}{uncertainty}"
                 f"{prediction_source(summary.prediction)}"
                 + (claim or ("   measured: no claim (not valid)" if not valid else "")))
    lines += self_check_lines(summary.prediction)
    if summary.verdict:
        lines.append(verdict_line(summary.verdict))
    judgement = summary.prediction.get("judgement") or {}
    if judgement:
        holds = judgement.get("holds")
        head = "Prediction not judged" if holds is None else "Prediction holds" if holds else "Prediction MISSED"
        lines.append(f"{head}: {judgement.get('reason')}")
    lines.append("Left behind: " + ("nothing" if not summary.leftovers else "; ".join(summary.leftovers)))
    return "\n".join(lines) + "\n"
