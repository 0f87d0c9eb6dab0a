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
from advisor.engine.worth import MIN_GAIN
from advisor.fleet.model import WindowAdvice, read_time_s_per_h, verdict
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


def judged_window(label: str, work: Workload, report: Report, rate: float, started: str, ended: str,
                  source: str) -> WindowAdvice:
    """One advised interval as a ranking row: its saving only when the plan has one (see fleet_model)."""
    plan = report.plan
    codes = tuple(dict.fromkeys(f.code for f in report.findings))
    read = read_time_s_per_h(work)
    if plan is None or report.outcome is None:
        note = report.no_plan.words if report.no_plan is not None else "no plan"
        return WindowAdvice(label, started, ended, work.interval_s, rate, work.wait.io_wait_share, False, None, None,
                            0.0, 0.0, codes, note, source, verdict(report), read)
    return WindowAdvice(
        label, started, ended, work.interval_s, rate, work.wait.io_wait_share, True,
        plan.predicted_before_ms, plan.predicted_after_ms, report.outcome.saved_s_per_h or 0.0,
        report.outcome.saved_share or 0.0, codes, plan.not_worth_it or "", source, verdict(report), read,
    )
