"""One window of one instance advised for the fleet: the request it makes, the row it ranks by.

Every fleet path (the engine per instance for ``fleet report --force``/``--preset`` and
``fleet show``, the interval summaries made when documents arrive) advises a window through
:func:`window_request` and :func:`advisor.engine.advise.advise`, the entry ``advisor report``
uses, so a window's report is the one ``advisor report`` prints over the same snapshots or
workload: the same model basis, findings, coverage and outcome. :func:`judged_window` turns
that report into the ranking's row; the verdict is the report's own (``Report.outcome``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from advisor.engine.advise import AdviceRequest, Models
from advisor.engine.planner import PlanOptions
from advisor.engine.replay_check import judging_checks, replayed_gain
from advisor.engine.worth import MIN_GAIN
from advisor.fleet.model import WindowAdvice, read_time_s_per_h, verdict, window_advice
from advisor.model import Report, Workload


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass(frozen=True, slots=True)
class Judging:
    """How each window is judged: the gate's override, the minimum gain worth a migration, and when.

    *at* is the time every report of one ranking is made (read once, when the ranking starts).
    """

    force: bool = False
    min_gain: float = MIN_GAIN
    at: dt.datetime = field(default_factory=_now)


def window_request(work: Workload, models: Models, judging: Judging, *, scripts: bool = False,
                   no_plan: str | None = None) -> AdviceRequest:
    """What advising one fleet window asks of the engine: ``advisor report``'s defaults for the
    workload's database, the ranking's gate and minimum gain; *scripts* only for a report shown
    whole (formatting SQL is a third of a ranking's time); *no_plan* why a plan cannot be made
    (sizes unknown)."""
    options = PlanOptions(dbms=work.server.dbms, force=judging.force, scripts=scripts, min_gain=judging.min_gain,
                          no_plan=no_plan)
    return AdviceRequest(work, models, options, generated_at=judging.at)


def judged_gain(report: Report) -> float | None:
    """The gain ``advisor report --min-gain`` judges *report*'s plan by: the replay's where the report
    has one that judges the plan (:func:`advisor.engine.replay_check.replayed_gain`: None when its
    self-check refused the plan), else the plan's ``predicted_gain``; None without a plan."""
    if report.plan is None:
        return None
    if judging_checks(report.replay):
        return replayed_gain(report.replay)
    return report.plan.predicted_gain


def judged_window(label: str, work: Workload, report: Report, rate: float, started: str, ended: str,
                  source: str) -> WindowAdvice:
    """One advised interval as a ranking row: its saving only when the plan has one (see fleet_model); the
    verdict is the report's own, made at the asked minimum gain."""
    plan, done = report.plan, report.outcome
    findings = tuple(dict.fromkeys(f.code for f in report.findings))
    read = read_time_s_per_h(work)
    if plan is None or done is None:
        return window_advice(label, started, ended, source=source, interval_s=work.interval_s, db_iops=rate,
                             io_wait_share=work.wait.io_wait_share, read_s_per_h=read, verdict=verdict(report),
                             min_gain=None, findings=findings,
                             note=report.no_plan.words if report.no_plan is not None else "no plan")
    return window_advice(label, started, ended, source=source, interval_s=work.interval_s, db_iops=rate,
                         io_wait_share=work.wait.io_wait_share, read_s_per_h=read, verdict=verdict(report),
                         min_gain=None, gain=judged_gain(report), planned=True, before_ms=plan.predicted_before_ms,
                         after_ms=plan.predicted_after_ms, saved_s_per_h=done.saved_s_per_h or 0.0,
                         saved_share=done.saved_share or 0.0, findings=findings, note=plan.not_worth_it or "")
