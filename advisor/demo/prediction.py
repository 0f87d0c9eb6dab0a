"""The demo's prediction: the replay of the traced before-run, or the aggregate model said as such.

The before run is collected with ``advisor collect --interval N --trace``, so the report
replays the block layer's requests on the drive model (:mod:`advisor.engine.replay_check`):
first under today's layout against the service times the trace measured (the self-check),
then under the plan's layout. Where the self-check holds, the replayed gain is the plan's
verdict and the figure the demo's claim is judged against; the aggregate model's figure is
printed beside it. Where it does not, or there is no trace to replay (tracefs absent or not
permitted, a refused trace), the demo says why and falls back to the aggregate model's
figure, marked as such: never silently.

Which replay rows count is the engine's own rule (``replay_check.verdict``): a disk the plan
lays out and whose trace was replayed; over several such disks the gain is requests-weighted.

The claim is judged by the demo's rule for a disk's part of a gain (:mod:`advisor.demo.timesplit`):
the prediction must explain the measured time saved per transaction within half of it,
|G - P| <= |G| / 2, and a figure that is not a number never passes.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from advisor.demo.timesplit import DISK_PART_TOLERANCE
from advisor.engine.replay_noise import combined_error, common_error

Source = Literal["replay", "aggregate"]


@dataclass(frozen=True)
class SelfCheck:
    """One disk's replay as the report states it (ms per request; gain as a fraction)."""

    disk: str
    requests: int
    measured_ms: float | None
    replayed_ms: float | None
    planned_ms: float | None
    deviation: float | None
    tolerance: float
    fits: bool | None
    predicted_gain: float | None
    refused: str | None
    basis: str = "requests"  # "busy time": a disk with a queue, judged by the drive's busy time
    busy_deviation: float | None = None
    gain_error: float | None = None  # the gain's standard uncertainty (advisor.engine.replay_noise)
    model_error: float | None = None  # the replay's own error in gain_error, the same on every disk

    @classmethod
    def of(cls, row: dict[str, Any]) -> SelfCheck:
        """From one ``replay`` entry of a report's JSON."""
        return cls(str(row.get("disk")), int(row.get("requests") or 0), row.get("measured_ms"),
                   row.get("replayed_ms"), row.get("planned_ms"), row.get("deviation"),
                   float(row.get("tolerance") or 0.0), row.get("fits"), row.get("predicted_gain"),
                   row.get("refused"), str(row.get("basis") or "requests"), row.get("busy_deviation"),
                   row.get("gain_error"), row.get("model_error"))

    @property
    def judged(self) -> bool:
        """Replayed under the plan: a row the plan's verdict counts."""
        return self.refused is None and self.planned_ms is not None


@dataclass(frozen=True)
class Prediction:
    """The figure the demo predicts with, where it comes from, and why not the replay when not."""

    source: Source
    gain: float | None  # the prediction the claim is judged against
    replay_gain: float | None  # None: no replay under the plan
    aggregate_gain: float | None  # the plan's, from the aggregate model
    why_not_replay: str | None = None  # set when source is "aggregate"
    replay: tuple[SelfCheck, ...] = ()
    collect_warnings: tuple[str, ...] = ()  # what collect --trace said (e.g. why there is no trace)
    judgement: dict[str, Any] = field(default_factory=dict)  # holds, reason, measured_gain
    error: float | None = None  # the replayed gain's standard uncertainty, where every judged disk states one

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return asdict(self)


def _self_check_failure(check: SelfCheck) -> str:
    if check.basis == "busy time":
        busy = f"{check.busy_deviation:+.0%}" if check.busy_deviation is not None else "unknown"
        return (f"the replay's self-check failed on {check.disk}: with a queue, its traced requests keep the replayed "
                f"drive busy {busy} off the measured busy time (tolerance ±{check.tolerance:.0%})")
    deviation = f"{check.deviation:+.0%}" if check.deviation is not None else "unknown"
    measured = f"{check.measured_ms:.2f} ms" if check.measured_ms is not None else "an unknown time"
    replayed = f"{check.replayed_ms:.2f} ms" if check.replayed_ms is not None else "an unknown time"
    return (f"the replay's self-check failed on {check.disk}: its traced requests replay at {replayed} each, "
            f"the trace measured {measured} ({deviation}, tolerance ±{check.tolerance:.0%})")


def from_report(report: dict[str, Any], traces: int, collect_warnings: tuple[str, ...] = ()) -> Prediction:
    """The demo's prediction from a report on the traced before-run; *traces* is how many disk
    traces the workload carried (0: collect --trace could not trace, its warnings say why)."""
    plan = report.get("plan") or {}
    aggregate = plan.get("predicted_gain")
    checks = tuple(SelfCheck.of(row) for row in report.get("replay") or [])
    judged = [c for c in checks if c.judged]

    def fallback(why: str) -> Prediction:
        return Prediction("aggregate", aggregate, None, aggregate, why, checks, collect_warnings)

    if traces == 0:
        return fallback("the before run carries no block-layer trace (collect --trace said why)")
    if not judged:
        refused = "; ".join(c.refused for c in checks if c.refused) or "no traced disk is laid out by the plan"
        return fallback(f"no trace was replayed under the plan ({refused})")
    failed = [c for c in judged if c.fits is not True]
    if failed:
        return fallback("; ".join(_self_check_failure(c) for c in failed))
    weight = sum(c.requests for c in judged)
    gains = [c.predicted_gain for c in judged]
    if weight <= 0 or any(g is None or not math.isfinite(g) for g in gains):
        return fallback("the replay states no gain under the plan")
    replayed = sum((c.predicted_gain or 0.0) * c.requests for c in judged) / weight
    common = common_error(c.model_error for c in judged)
    error = combined_error([c.gain_error for c in judged], [float(c.requests) for c in judged], common)
    return Prediction("replay", replayed, replayed, aggregate, None, checks, collect_warnings, error=error)


def judge(prediction: Prediction, measured_gain: float | None, measurement_valid: bool) -> dict[str, Any]:
    """Does the prediction explain the measured time saved per transaction within half of it?"""
    what = "the replay's" if prediction.source == "replay" else "the aggregate model's"
    if not measurement_valid:
        return {"holds": None, "measured_gain": None,
                "reason": "not judged: the measurement is not valid, so there is no measured gain to judge by"}
    predicted = prediction.gain
    if predicted is None or measured_gain is None or not (math.isfinite(predicted) and math.isfinite(measured_gain)):
        return {"holds": False, "measured_gain": measured_gain,
                "reason": f"{what} prediction ({predicted}) or the measured time saved ({measured_gain}) "
                          "is unknown or not a number"}
    holds = abs(measured_gain - predicted) <= DISK_PART_TOLERANCE * abs(measured_gain)
    return {"holds": holds, "measured_gain": measured_gain,
            "reason": (f"{what} {predicted:+.1%} is {'within' if holds else 'NOT within'} half of the "
                       f"{measured_gain:+.1%} time saved per transaction the runs measured "
                       f"({(predicted - measured_gain) * 100:+.1f} points)")}
