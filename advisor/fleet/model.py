"""The fleet ranking's documents and the rule that orders them: verdicts before numbers.

A saving is ranked only when it is one: a plan predicting less disk time than today by at
least the minimum gain (:data:`advisor.engine.worth.MIN_GAIN`, ``--min-gain``). Every other
instance says why it has no saving, and the ranking groups them in this order:

1. ``saves``: a plan worth making, by disk time saved per hour, then by share;
2. ``sizes unknown``: the evidence (an AWR or Statspack import) states no file sizes, so no
   plan and no saving can be predicted (a plan on invented sizes would rank invented
   numbers); these come after every predicted saving, by the read time the database itself
   measured (``read_s_per_h``: what is at stake), and say "give --sizes";
3. ``no change worth making``: a positive saving under the minimum gain;
4. ``nothing to gain``: the plan saves nothing or costs time (a negative "saving" is never
   ranked as one);
5. ``no plan``: not IO bound, solid state, nothing located (the reason is the window's note);
6. instances that could not be advised at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from advisor.model import Report, Workload
from advisor.model.report import Verdict as Verdict  # the fleet's rows, rank_key

FLEET_FORMAT_VERSION = 3
"""2: each window has its evidence ``source``, ``verdict`` and ``read_s_per_h``; instances list their
``evidence`` and ``workloads``. 3: the period is the sum of the interval summaries; ``detail`` is
the whole period advised as one interval (the first instances); the report has ``warnings``."""

RANKED_VERDICTS: frozenset[Verdict] = frozenset({"saves", "no change worth making"})
"""Verdicts whose saving is a figure (shown, and judged again at another ``--min-gain``); the others say why not."""

VERDICT_ORDER: dict[str, int] = {"saves": 0, "sizes unknown": 1, "no change worth making": 2, "nothing to gain": 3,
                                 "no plan": 4}


@dataclass(frozen=True, slots=True)
class WindowAdvice:
    """The advice for one interval of one instance."""

    label: str  # "period", "busiest 1", "workload 1", "all workloads" ...
    started_at: str
    ended_at: str
    interval_s: float
    db_iops: float  # database IOs per second over all files
    io_wait_share: float | None
    planned: bool  # False: the gate closed, the disks are solid state, sizes unknown, or nothing is located
    before_ms: float | None
    after_ms: float | None
    saved_s_per_h: float  # disk time the plan saves, seconds per hour of this window's IO
    saved_share: float  # fraction of the disk time before the plan
    findings: tuple[str, ...] = ()
    note: str = ""
    source: str = "snapshots"  # the evidence: "snapshots", or a workload's source (awr-html, statspack, ...)
    verdict: Verdict = "no plan"
    read_s_per_h: float | None = None  # read time the database measured, s per hour; None when not timed


@dataclass(frozen=True, slots=True)
class InstanceAdvice:
    """One instance: its identity, the period it was sampled over, and the advice per window."""

    instance_id: str
    dbms: str
    host: str
    name: str
    snapshots: int
    first_at: str
    last_at: str
    period: WindowAdvice | None
    busiest: tuple[WindowAdvice, ...] = ()
    warnings: tuple[str, ...] = ()
    rank: int = 0
    skipped: tuple[str, ...] = ()  # repository rows left out: each names the row and why
    workloads: int = 0
    evidence: str = ""  # "16 snapshots", "2 workloads (awr-html)", or both
    detail: WindowAdvice | None = None  # the whole period as one interval (advisor report FIRST LAST)


@dataclass(frozen=True, slots=True)
class FleetReport:
    """The ranking: instances by predicted time saved over the whole period."""

    generated_at: str
    since: str
    until: str
    windows: int
    instances: tuple[InstanceAdvice, ...]
    tool_version: str = ""
    min_gain: float = 0.05
    warnings: tuple[str, ...] = ()  # what the ranking leaves out and why
    document: Literal["fleet-report"] = "fleet-report"
    format_version: int = FLEET_FORMAT_VERSION


def verdict(report: Report) -> Verdict:
    """What one window's report amounts to: the engine's outcome (:func:`advisor.engine.worth.outcome`)."""
    return report.outcome.verdict if report.outcome is not None else "no plan"


def judged(verdict: Verdict, saved_s: float, gain: float | None, min_gain: float) -> Verdict:
    """The fleet's one ``--min-gain`` rule, for a window, a summed period and all of an instance's workloads.

    A *verdict* that is not a saving (sizes unknown, no plan, nothing to gain) stands. A saving
    is judged as ``advisor report --min-gain`` judges a plan (:func:`advisor.engine.worth.outcome`):
    "nothing to gain" when it saves no disk time, "saves" when its predicted *gain* is at least
    *min_gain*, else "no change worth making". *gain* is the plan's ``predicted_gain`` (the
    replay's where the report has one, :func:`advisor.fleet.window.judged_gain`); for a sum of
    intervals it is :func:`summed_gain`. None (a plan the replay refused) is never worth it.
    """
    if verdict not in RANKED_VERDICTS:
        return verdict
    if saved_s <= 0:
        return "nothing to gain"
    return "saves" if gain is not None and gain >= min_gain else "no change worth making"


def summed_gain(saved_s: float, before_s: float) -> float | None:
    """The predicted gain of a sum of planned intervals: the disk time saved over the modelled time before.

    A plan's predicted gain is ``1 - after / before`` of the IO-weighted mean service time, that is
    the time its requests save over the time they take today. Summed over intervals (each with its
    own plan), the saved seconds over the before seconds is that same ratio over all their requests:
    the request-weighted predicted gain (each interval's gain weighted by its modelled disk time).
    None when nothing was modelled.
    """
    return saved_s / before_s if before_s > 0 else None


@dataclass(frozen=True, slots=True)
class Sums:
    """Intervals added up: a period of snapshot intervals (SQL over the summaries) or an instance's workloads."""

    seconds: float  # length of the intervals summed
    ios: float  # database IOs over them
    wait_s: float | None  # IO wait share x seconds; None: some interval's share is unknown
    read_s: float | None  # read seconds per hour x seconds; None: some interval's read time is unknown
    planned: bool  # some interval (a period) or every one (workloads) has a plan
    before_s: float  # modelled disk time before the plans, over the planned intervals
    saved_s: float  # disk time their plans save


def window_advice(label: str, started_at: str, ended_at: str, *, source: str, interval_s: float, db_iops: float,
                  io_wait_share: float | None, read_s_per_h: float | None, verdict: Verdict, min_gain: float | None,
                  gain: float | None = None, planned: bool = False, before_ms: float | None = None,
                  after_ms: float | None = None, saved_s_per_h: float = 0.0, saved_share: float = 0.0,
                  findings: tuple[str, ...] = (), note: str = "") -> WindowAdvice:
    """Every ranking row is made here: one advised window (the engine's report or its stored summary) or a sum.

    With *min_gain* the *verdict* is judged again at it on *gain* (:func:`judged`: summaries are made at
    the default minimum); None keeps the verdict of a report made at the asked minimum.
    """
    if min_gain is not None:
        verdict = judged(verdict, saved_s_per_h, gain, min_gain)
    return WindowAdvice(label, started_at, ended_at, interval_s, db_iops, io_wait_share, planned, before_ms, after_ms,
                        saved_s_per_h, saved_share, findings, note, source, verdict, read_s_per_h)


def summed_window(label: str, started_at: str, ended_at: str, sums: Sums, *, verdict: Verdict, min_gain: float,
                  source: str, findings: tuple[str, ...], note: str) -> WindowAdvice:
    """A sum of intervals as one row: rates per second and saved seconds per hour of the summed intervals,
    judged on :func:`summed_gain`. *verdict* is "saves" when the sum is planned (the rule decides), else why not
    (no saving is shown for "sizes unknown": a workload's saving is not known)."""
    seconds = sums.seconds
    hours = seconds / 3600.0 if seconds else 0.0
    gain = summed_gain(sums.saved_s, sums.before_s)
    return window_advice(
        label, started_at, ended_at, source=source, interval_s=seconds, db_iops=sums.ios / seconds if seconds else 0.0,
        io_wait_share=sums.wait_s / seconds if sums.wait_s is not None and seconds else None,
        read_s_per_h=round(sums.read_s / seconds, 4) if sums.read_s is not None and seconds else None,
        verdict=verdict, min_gain=min_gain, gain=gain, planned=sums.planned,
        saved_s_per_h=round(sums.saved_s / hours, 4) if hours and verdict != "sizes unknown" else 0.0,
        saved_share=round(gain or 0.0, 4) if verdict != "sizes unknown" else 0.0, findings=findings, note=note)


def read_time_s_per_h(work: Workload) -> float | None:
    """Seconds per hour the database spent reading, from each file's measured read latency.

    None unless every file that reads has a measured latency: a partial sum would understate.
    """
    reading = [r for r in work.rates if r.read_iops > 0]
    if not reading or any(r.read_latency_ms is None for r in reading):
        return None
    return round(sum(r.read_iops * (r.read_latency_ms or 0.0) for r in reading) * 3.6, 4)


def rank_key(item: InstanceAdvice) -> tuple[int, float, float, str]:
    """The ranking's order: by verdict group, then the saving (or the read time at stake)."""
    period = item.period
    if period is None:
        return (len(VERDICT_ORDER), 0.0, 0.0, item.instance_id)
    group = VERDICT_ORDER[period.verdict]
    if period.verdict == "sizes unknown":
        return (group, -(period.read_s_per_h or 0.0), 0.0, item.instance_id)
    return (group, -period.saved_s_per_h, -period.saved_share, item.instance_id)


def headline(window: WindowAdvice | None, warnings: tuple[str, ...] = ()) -> str:
    """The one phrase every format shows for an instance's verdict."""
    if window is None:
        return "; ".join(warnings) or "not advised"
    if window.verdict == "saves":
        return ", ".join(window.findings) or "saves"
    if window.verdict == "sizes unknown":
        read = f"; reads take {window.read_s_per_h:.1f} s/h" if window.read_s_per_h is not None else ""
        return f"sizes unknown: give --sizes{read}"
    if window.verdict == "no plan":
        return "no plan: not IO bound" if "NOT_IO_BOUND" in window.findings else "no plan"
    return window.verdict
