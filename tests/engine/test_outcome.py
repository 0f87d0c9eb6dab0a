"""The outcome of advice as data: why there is no plan (a code), the model basis, the verdict.

Every reader (renderers, the fleet, the summaries) decides by these fields, so rewording a
message cannot change a verdict; these tests hold the engine to filling them and the fleet to
reading nothing else.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import msgspec

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.engine.worth import outcome, replayed_seconds
from advisor.fleet.model import verdict
from advisor.model import ReplayCheck, Report
from tests.helpers.model_trace import model_made_requests, quiet_disk_report
from tests.helpers.workloads import models, sample_workload

NOW = dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC)
SIZES = "No plan: file sizes unknown for 2 of 5 areas (a, b); the report states none. Give --sizes FILE."


def _advise(io_share: float | None = 0.6, **options: object) -> Report:
    work = replace(sample_workload(), wait=replace(sample_workload().wait, io_wait_share=io_share))
    return advise(AdviceRequest(work, replace(models(), basis="the synthetic preset (--preset)"),
                  PlanOptions(**options), generated_at=NOW))  # type: ignore[arg-type]


def test_a_plan_carries_its_outcome_computed_from_the_service_times() -> None:
    report = _advise()
    assert report.plan is not None and report.outcome is not None and report.no_plan is None
    times = report.plan.service_times
    before = sum(t.iops * t.before_ms for t in times)
    saved = sum(t.iops * (t.before_ms - t.after_ms) for t in times)
    assert saved > 0 and report.outcome.verdict == "saves"
    assert report.outcome.saved_s_per_h == round(saved * 3.6, 4)
    assert report.outcome.before_s_per_h == round(before * 3.6, 4)
    assert report.outcome.saved_share == round(saved / before, 4)
    assert report.model_basis == "the synthetic preset (--preset)"
    assert not any(w.startswith("disk model") for w in report.warnings)  # the basis is a field, not a warning


def test_a_closed_gate_is_a_code_with_its_words() -> None:
    report = _advise(io_share=0.02)
    assert report.plan is None and report.no_plan is not None
    assert report.no_plan.code == "not-io-bound" and report.no_plan.words.startswith("No plan: ")
    assert report.no_plan.words in report.warnings  # every format still says it
    assert report.outcome is not None and report.outcome.verdict == "no plan"
    assert report.outcome.saved_s_per_h is None  # nothing predicted is not a saving of 0


def test_unknown_sizes_are_their_own_verdict_unless_the_gate_is_closed() -> None:
    open_gate = _advise(no_plan=SIZES)
    assert open_gate.no_plan is not None and open_gate.no_plan.code == "sizes-unknown"
    assert open_gate.outcome is not None and open_gate.outcome.verdict == "sizes unknown"
    closed = _advise(io_share=0.02, no_plan=SIZES)
    assert closed.outcome is not None and closed.outcome.verdict == "no plan"


def test_a_plan_under_the_minimum_gain_says_not_worth_it() -> None:
    report = _advise(min_gain=0.99)
    assert report.plan is not None and report.plan.not_worth_it is not None
    assert report.no_plan is not None and report.no_plan.code == "not-worth-it"
    assert report.outcome is not None and report.outcome.verdict == "no change worth making"


def test_rewording_every_message_changes_no_verdict() -> None:
    for report in (_advise(), _advise(io_share=0.02), _advise(no_plan=SIZES), _advise(min_gain=0.99)):
        reworded = msgspec.structs.replace(report, warnings=tuple(f"[{w.upper()}]" for w in report.warnings))
        assert verdict(reworded) == verdict(report)
        assert outcome(reworded.plan, reworded.findings, reworded.no_plan) == report.outcome


def test_where_a_replay_judges_the_outcome_is_the_replays_saving_not_the_aggregates() -> None:
    """A traced workload: the outcome states the disk time the replay saves (its gain over today's replayed
    time), and the verdict follows it even where the aggregate model saves nothing."""
    report = quiet_disk_report(model_made_requests())
    assert report.plan is not None and report.outcome is not None
    (check,) = report.replay
    assert check.fits and check.predicted_gain is not None and check.measured_span_s is not None
    assert report.outcome.source == "replay" and report.outcome.verdict == "saves"
    today_s = (check.replayed_busy_s if check.replayed_busy_s is not None
               else (check.replayed_ms or 0.0) * check.requests / 1000.0)
    assert report.outcome.before_s_per_h is not None
    assert abs(report.outcome.before_s_per_h - today_s * 3600.0 / check.measured_span_s) < 1e-3
    assert report.outcome.saved_share is not None
    assert abs(report.outcome.saved_share - check.predicted_gain) < 2e-3  # each rounded to 4 places
    # the aggregate model's service times saving nothing: the replay still decides
    losing = msgspec.structs.replace(report.plan, service_times=tuple(
        msgspec.structs.replace(t, after_ms=t.before_ms * 1.1) for t in report.plan.service_times))
    assert outcome(losing, report.findings, None).verdict == "nothing to gain"
    assert outcome(losing, report.findings, None, report.replay).verdict == "saves"
    # a failed self-check states no saving of its own: the aggregate's figures, and the refusal
    failed = msgspec.structs.replace(check, fits=False)
    refused = msgspec.structs.replace(report.plan, not_worth_it="the replay's self-check failed on sda")
    done = outcome(refused, report.findings, None, (failed,))
    assert done.source == "aggregate" and done.verdict == "no change worth making"


def test_the_replays_saving_is_its_busy_time_on_a_queued_disk_and_its_requests_times_elsewhere() -> None:
    """Two disks replayed: one with a queue (busy time 60 s today, 45 s planned, over a 100 s span) and one
    without (1,000 requests, 10 ms today, 8 ms planned, over 50 s): seconds per hour of each span, summed."""
    queued = ReplayCheck("sda", requests=5000, fits=True, replayed_ms=30.0, planned_ms=20.0, measured_span_s=100.0,
                         replayed_busy_s=60.0, planned_busy_s=45.0, basis="busy time")
    quiet = ReplayCheck("sdb", requests=1000, fits=True, replayed_ms=10.0, planned_ms=8.0, measured_span_s=50.0)
    before, saved = replayed_seconds([queued, quiet]) or (0.0, 0.0)
    assert abs(before - (60.0 * 36.0 + 10.0 * 72.0)) < 1e-9  # 2,160 + 720 s per hour
    assert abs(saved - (15.0 * 36.0 + 2.0 * 72.0)) < 1e-9
    assert replayed_seconds([queued, msgspec.structs.replace(quiet, fits=False)]) is None  # a refused plan
    assert replayed_seconds([msgspec.structs.replace(quiet, planned_ms=None)]) is None  # no plan replayed
    refused = msgspec.structs.replace(quiet, refused="trace of sdb: from another disk; no replay")
    assert replayed_seconds([queued, refused]) == replayed_seconds([queued])  # a refused trace judges nothing
