"""The demo predicts with the replay of its traced before-run, and says so when it cannot.

Reports made by the real engine on a traced workload (the trace the model itself made fits
it; the same trace three times slower refutes it), in the JSON form the demo reads, go
through the demo's prediction and its closing text: the printed figure must be the replay's
where the self-check holds and the aggregate model's, marked and explained, where it does not.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from typing import Any

from advisor.demo.prediction import from_report, judge
from advisor.demo.summary import DemoSummary, render_text
from advisor.engine.advise import AdviceRequest, advise
from advisor.render.json import render_json
from advisor.trace.codec import Requests
from tests.helpers.model_trace import base_workload, model_made_requests, traced
from tests.helpers.workloads import models

NOW = dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC)


def report_json(slower: float = 1.0) -> dict[str, Any]:
    """The engine's report on a traced workload, as the demo reads it (``report --format json``)."""
    made = model_made_requests()
    requests = Requests(made.issue_s, made.service_s * slower, made.sector, made.sectors, made.op, made.process)
    work = base_workload()
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(traced(requests, work),)), models(),
                                  generated_at=NOW))
    data: dict[str, Any] = json.loads(render_json(report))
    return data


def closing_text(report: dict[str, Any], measured: float) -> str:
    prediction = from_report(report, traces=len(report["replay"]))
    summary = DemoSummary(mode="emulated", label="MEASURED", preset="p", time_scale=1.0, pgbench_scale=1,
                          predicted_gain=prediction.gain, measured_gain={"latency": measured, "read_latency": None})
    summary.prediction = {**prediction.as_dict(), "judgement": judge(prediction, measured, True)}
    return render_text(summary)


def predicted_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("Predicted time saved:"))


def test_the_printed_prediction_is_the_replays_when_its_self_check_holds() -> None:
    report = report_json()
    (check,) = report["replay"]
    assert check["fits"] is True
    replayed, aggregate = check["predicted_gain"], report["plan"]["predicted_gain"]
    assert abs(replayed - aggregate) > 0.002  # the two figures print differently: the test can tell them apart
    text = closing_text(report, measured=replayed)
    line = predicted_line(text)
    error = check["gain_error"]
    assert error is not None and from_report(report, traces=1).error == error  # one disk: its own uncertainty
    assert line.startswith(f"Predicted time saved: {replayed * 100:+.1f} % ± {error * 100:.1f} by the replay of "
                           "the traced before run")
    assert f"(aggregate model: {aggregate * 100:+.1f} %)" in line
    assert f"Replay self-check on {check['disk']}: {check['requests']} traced requests" in text
    assert "Prediction holds: the replay's" in text


def test_a_failed_self_check_falls_back_to_the_aggregate_figure_and_says_why() -> None:
    report = report_json(slower=3.0)
    (check,) = report["replay"]
    assert check["fits"] is False
    aggregate = report["plan"]["predicted_gain"]
    prediction = from_report(report, traces=1)
    assert prediction.source == "aggregate" and prediction.gain == aggregate
    assert prediction.replay_gain is None
    line = predicted_line(closing_text(report, measured=aggregate))
    assert line.startswith(f"Predicted time saved: {aggregate * 100:+.1f} % by the AGGREGATE model, not the replay: "
                           f"the replay's self-check failed on {check['disk']}")


def test_without_a_trace_the_aggregate_figure_is_marked_and_the_collects_words_are_shown() -> None:
    report = report_json()
    said = ("no block-layer trace: tracefs is not mounted and only root may mount it; going on without one",)
    prediction = from_report({**report, "replay": []}, traces=0, collect_warnings=said)
    assert prediction.source == "aggregate" and prediction.gain == report["plan"]["predicted_gain"]
    summary = DemoSummary(mode="emulated", label="MEASURED", preset="p", time_scale=1.0, pgbench_scale=1,
                          predicted_gain=prediction.gain, prediction=prediction.as_dict())
    text = render_text(summary)
    assert "by the AGGREGATE model, not the replay: the before run carries no block-layer trace" in text
    assert f"collect --trace warned: {said[0]}" in text


def test_the_claim_is_judged_within_half_of_the_measured_gain_and_nan_never_passes() -> None:
    prediction = from_report(report_json(), traces=1)
    assert prediction.gain is not None
    gain = prediction.gain
    assert judge(prediction, gain * 1.9, True)["holds"] is True  # |G - P| = 0.47 G
    assert judge(prediction, gain * 2.1, True)["holds"] is False  # |G - P| = 0.52 G
    assert judge(prediction, math.nan, True)["holds"] is False
    assert judge(prediction, gain, False)["holds"] is None  # an invalid measurement is not judged
