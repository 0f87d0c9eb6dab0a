"""`fleet report --min-gain` means what `report --min-gain` means: the predicted gain (no database needed).

A window is judged on its plan's ``predicted_gain`` (the replay's where the report has one), a
sum of intervals (a period, all of an instance's workloads) on the saved seconds over the
modelled seconds before, which is the request-weighted predicted gain of all their requests;
both through the one rule :func:`advisor.fleet.model.judged`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.fleet.model import Sums, judged, summed_window
from advisor.fleet.window import judged_gain, judged_window
from advisor.fleet.workloads import all_workloads
from advisor.model import Report, Workload
from tests.helpers.model_trace import model_made_requests
from tests.helpers.model_trace import quiet_disk_report as traced_report
from tests.helpers.workloads import AreaSpec, models, sample_workload, workload

NOW = dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC)


def _hot_inner() -> Workload:
    """One busy table at the inner edge: a larger gain than the sample's, over an hour."""
    work = workload([AreaSpec("orders", size_gb=40, read_iops=120, zone=(0.80, 0.88), files=2, path="/u03/ts"),
                     AreaSpec("WAL", kind="wal", size_gb=4, write_iops=30, write_kb=16, random_share=None, syncs=15,
                              zone=(0.0, 0.008), path="/u01/pg_wal")])
    return dataclasses.replace(work, interval_s=3600.0)


def _advised(work: Workload, min_gain: float = 0.05) -> Report:
    return advise(AdviceRequest(work, models(), PlanOptions(min_gain=min_gain), generated_at=NOW))


def _windows() -> list[tuple[Workload, Report]]:
    return [(work, _advised(work)) for work in (sample_workload(), _hot_inner())]


def test_a_windows_saved_share_is_its_plans_predicted_gain() -> None:
    for _work, report in _windows():
        assert report.plan is not None and report.outcome is not None and report.outcome.saved_share is not None
        assert report.outcome.saved_share == pytest.approx(report.plan.predicted_gain, abs=2e-4)
        assert judged_gain(report) == report.plan.predicted_gain  # no replay: the plan's own


def test_a_sums_gain_is_the_request_weighted_predicted_gain_of_all_its_requests() -> None:
    advised = _windows()
    gains = {report.plan.predicted_gain for _w, report in advised if report.plan}
    assert len(gains) == 2, "two windows with different gains, or the weighting is not tested"
    before = after = 0.0  # disk time of every request of the period: IOPS x interval x service time
    for work, report in advised:
        assert report.plan is not None
        before += sum(t.iops * work.interval_s * t.before_ms for t in report.plan.service_times)
        after += sum(t.iops * work.interval_s * t.after_ms for t in report.plan.service_times)
    rows = [judged_window("workload", work, report, 100.0, work.started_at, work.ended_at, "awr-html")
            for work, report in advised]
    summed = all_workloads(rows, 0.05)
    assert summed is not None
    assert summed.saved_share == pytest.approx(1 - after / before, abs=2e-4)
    # the same figure as SQL sums a period (before and saved seconds of each interval)
    sums = Sums(sum(w.interval_s for w, _r in advised), 0.0, None, None, True,
                sum((r.outcome.before_s_per_h or 0.0) * w.interval_s / 3600 for w, r in advised if r.outcome),
                sum((r.outcome.saved_s_per_h or 0.0) * w.interval_s / 3600 for w, r in advised if r.outcome))
    period = summed_window("period", "", "", sums, verdict="saves", min_gain=0.05, source="snapshots", findings=(),
                           note="")
    assert period.saved_share == pytest.approx(1 - after / before, abs=2e-4)
    # judged at a minimum between the two windows' gains and the sum's: one rule for each
    low, high = sorted(gains)
    share = 1 - after / before
    for minimum in (low - 0.001, (low + share) / 2, (share + high) / 2, high + 0.001):
        for (work, first), row in zip(advised, rows, strict=True):
            again = _advised(work, minimum)
            expected = again.outcome.verdict if again.outcome else None
            assert judged(row.verdict, row.saved_s_per_h, judged_gain(first), minimum) == expected
        period = summed_window("period", "", "", sums, verdict="saves", min_gain=minimum, source="snapshots",
                               findings=(), note="")
        assert period.verdict == ("saves" if share >= minimum else "no change worth making")


def test_a_replayed_gain_judges_the_window_at_any_minimum() -> None:
    made = traced_report(model_made_requests())  # judged at 5 %, as summaries are made
    (check,) = made.replay
    assert made.plan is not None and check.predicted_gain is not None
    assert made.plan.predicted_gain < 0.5 < check.predicted_gain
    assert judged_gain(made) == pytest.approx(check.predicted_gain)
    saved = made.outcome.saved_s_per_h if made.outcome else None
    assert saved and saved > 0
    # `report --min-gain 50` says "saves" (the replay decides); the fleet, judging again at 50 %, agrees
    at_half = traced_report(model_made_requests(), min_gain=0.5).outcome
    assert at_half is not None and at_half.verdict == "saves"
    assert judged("saves", saved, judged_gain(made), 0.5) == "saves"
    assert judged("saves", saved, made.plan.predicted_gain, 0.5) == "no change worth making"  # what it said before


def test_a_saving_that_is_none_is_never_worth_it_and_other_verdicts_stand() -> None:
    assert judged("saves", 10.0, None, 0.0) == "no change worth making"
    assert judged("no change worth making", -1.0, 0.5, 0.05) == "nothing to gain"
    for verdict in ("sizes unknown", "no plan", "nothing to gain"):
        assert judged(verdict, 10.0, 0.9, 0.05) == verdict
