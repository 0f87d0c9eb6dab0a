"""The fleet ranking as queries over the interval summaries; the engine only for the detail printed.

Each instance's period is the sum of its snapshot intervals in [since, until] that are not
marked ``reset`` (:mod:`advisor.fleet.summaries`): disk time saved over the period by the
plan of each interval, per hour of the period, and as a share of the disk time before. An
interval without a plan saves nothing. Because each interval has its own plan, that sum is
what a layout following the workload would save, an upper bound of what one fixed layout
saves; so the first ``detail`` instances are also advised over the whole period as one
interval by the engine (first snapshot since the last restart to the last: exactly
``advisor report FIRST LAST``), shown beside the ranking as ``detail``. The busiest windows
are the intervals with the highest IO rate. Workloads (imports, ``collect --interval``) are
summarised at arrival too and rank as before (:mod:`advisor.fleet.workloads`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.rows import class_row

from advisor import __version__
from advisor.engine.advise import Models
from advisor.fleet.model import (
    FleetReport,
    InstanceAdvice,
    Sums,
    WindowAdvice,
    rank_key,
    summed_window,
    window_advice,
)
from advisor.fleet.summaries import AGGREGATES, ENGINE_VERSION, WORKLOAD
from advisor.fleet.workloads import SIZED, all_workloads, shown_source
from advisor.repo.connection import translate

_SCOPE = ("s.engine_version = %(v)s AND s.models_key = %(m)s AND s.ended_at >= %(since)s AND "
          "s.ended_at < %(until)s")
_PART = ("intervals, resets, first_at, last_at, seconds, ios, wait_s, read_s, planned_seconds, before_s, saved_s, "
         "not_io_bound, note")
_PERIODS = f"""
WITH parts AS (
  SELECT instance_id, {_PART} FROM advisor.summary_daily
  WHERE bucket >= %(dlo)s AND bucket < %(dhi)s AND engine_version = %(v)s AND models_key = %(m)s
  UNION ALL
  SELECT instance_id, {_PART} FROM advisor.summary_hourly
  WHERE bucket >= %(hlo)s AND bucket < %(hhi)s AND NOT (bucket >= %(dlo)s AND bucket < %(dhi)s)
    AND engine_version = %(v)s AND models_key = %(m)s
  UNION ALL
  SELECT instance_id, {AGGREGATES} FROM advisor.interval_summaries s
  WHERE s.source = 'snapshots' AND {_SCOPE} AND NOT (s.ended_at >= %(hlo)s AND s.ended_at < %(hhi)s)
  GROUP BY instance_id
)
SELECT p.instance_id, i.dbms, i.host, i.name, sum(intervals) AS intervals, sum(resets) AS resets,
  min(first_at) AS first_at, max(last_at) AS last_at, sum(seconds) AS seconds, sum(ios) AS ios,
  CASE WHEN bool_and(wait_s IS NOT NULL) THEN sum(wait_s) END AS wait_s,
  CASE WHEN bool_and(read_s IS NOT NULL) THEN sum(read_s) END AS read_s, bool_or(planned_seconds > 0) AS planned,
  sum(before_s) AS before_s, sum(saved_s) AS saved_s, coalesce(bool_and(not_io_bound), false) AS not_io_bound,
  mode() WITHIN GROUP (ORDER BY note) AS note
FROM parts p JOIN advisor.instances i USING (instance_id)
GROUP BY 1, 2, 3, 4
"""
"""Per instance, the period's sums: whole days from the daily rollup, whole hours around them from
the hourly one, and the summaries of the partial hours at the edges."""
_WINDOW_COLUMNS = ("instance_id, started_at, ended_at, source, interval_s, db_iops, io_wait_share, planned, before_ms, "
                   "after_ms, saved_s_per_h, saved_share, predicted_gain, verdict, read_s_per_h, findings, note")
_BUSIEST = f"""
SELECT {_WINDOW_COLUMNS} FROM (
  SELECT s.*, row_number() OVER (PARTITION BY instance_id ORDER BY db_iops DESC, ended_at) AS r
  FROM advisor.interval_summaries s WHERE s.source = 'snapshots' AND NOT s.reset AND {_SCOPE}
    AND (%(only)s::text[] IS NULL OR s.instance_id = ANY(%(only)s))) t
WHERE r <= %(n)s ORDER BY instance_id, started_at
"""
_WORKLOADS = f"""
SELECT DISTINCT ON (s.instance_id, s.started_at, s.ended_at) i.dbms, i.host, i.name, {_WINDOW_COLUMNS.replace(
    "instance_id", "s.instance_id").replace("started_at", "s.started_at").replace(", ended_at", ", s.ended_at")}
FROM advisor.interval_summaries s JOIN advisor.instances i USING (instance_id)
WHERE s.source <> 'snapshots' AND s.engine_version = %(v)s AND s.models_key = %(m)s AND s.ended_at >= %(since)s
  AND s.ended_at < %(until)s
ORDER BY s.instance_id, s.started_at, s.ended_at, (s.source LIKE '%%{SIZED}') DESC, s.computed_at DESC, s.source
"""


@dataclass(frozen=True, slots=True)
class PeriodRow:
    """One instance's sums over the period (:data:`_PERIODS`), read by name (``class_row``)."""

    instance_id: str
    dbms: str
    host: str
    name: str
    intervals: Decimal  # snapshot intervals summed (not across a reset)
    resets: Decimal  # intervals left out: across a restart, a stats reset or a clock step
    first_at: dt.datetime
    last_at: dt.datetime
    seconds: float
    ios: float
    wait_s: float | None  # None: some interval's IO wait share is unknown
    read_s: float | None  # None: some interval's read time is unknown
    planned: bool
    before_s: float
    saved_s: float
    not_io_bound: bool
    note: str | None


@dataclass(frozen=True, slots=True)
class WindowRow:
    """One interval summary as the ranking reads it (:data:`_WINDOW_COLUMNS`; ``dbms``, ``host`` and ``name``
    only for a stored workload's, which may be an instance's only evidence)."""

    instance_id: str
    started_at: dt.datetime
    ended_at: dt.datetime
    source: str
    interval_s: float
    db_iops: float
    io_wait_share: float | None
    planned: bool
    before_ms: float | None
    after_ms: float | None
    saved_s_per_h: float
    saved_share: float
    predicted_gain: float | None
    verdict: str
    read_s_per_h: float | None
    findings: list[str]
    note: str
    dbms: str = ""
    host: str = ""
    name: str = ""


def _window(row: WindowRow, label: str, min_gain: float) -> WindowAdvice:
    """A stored summary as a row, its verdict judged again at *min_gain* on its gain (summaries are made at the
    default)."""
    return window_advice(
        label, row.started_at.isoformat(), row.ended_at.isoformat(),
        source="snapshots" if row.source == "snapshots" else shown_source(row.source.removeprefix(WORKLOAD)),
        interval_s=row.interval_s, db_iops=row.db_iops, io_wait_share=row.io_wait_share,
        read_s_per_h=row.read_s_per_h, verdict=row.verdict, min_gain=min_gain,  # type: ignore[arg-type]
        gain=row.predicted_gain, planned=row.planned, before_ms=row.before_ms, after_ms=row.after_ms,
        saved_s_per_h=row.saved_s_per_h, saved_share=row.saved_share, findings=tuple(row.findings), note=row.note)


def _period(row: PeriodRow, min_gain: float) -> WindowAdvice:
    """An instance's snapshot intervals summed by SQL, judged as every sum is (:func:`summed_window`)."""
    sums = Sums(row.seconds, row.ios, row.wait_s, row.read_s, row.planned, row.before_s, row.saved_s)
    return summed_window("period", row.first_at.isoformat(), row.last_at.isoformat(), sums,
                         verdict="saves" if row.planned else "no plan", min_gain=min_gain, source="snapshots",
                         findings=("NOT_IO_BOUND",) if not row.planned and row.not_io_bound else (),
                         note=row.note or "")


def ranked_from_summaries(conn: psycopg.Connection[Any], models_key: str, *, since: dt.datetime,
                          until: dt.datetime, windows: int, min_gain: float, detail: int = 0,
                          advise_period: Callable[[str], WindowAdvice | None] | None = None,
                          shown: int | None = None) -> FleetReport:
    """Every instance with summaries ending in [since, until), ranked by SQL aggregates (see the module).

    The busiest windows are looked up for the first *shown* instances only (None: all, as json
    needs); the ranking does not depend on them.
    """
    params: dict[str, Any] = {"v": ENGINE_VERSION, "m": models_key, "since": since, "until": until, "n": windows,
                              "only": None, **_buckets(since, until)}
    try:
        periods = conn.cursor(row_factory=class_row(PeriodRow)).execute(_PERIODS, params).fetchall()
        loads = conn.cursor(row_factory=class_row(WindowRow)).execute(_WORKLOADS, params).fetchall()
        skipped = conn.execute(
            "SELECT k.instance_id, i.dbms, i.host, i.name, k.why FROM advisor.skipped_rows k JOIN advisor.instances i "
            "USING (instance_id) WHERE k.ended_at >= %(since)s AND k.ended_at <= %(until)s "
            "ORDER BY k.instance_id, k.ended_at, k.why", params).fetchall()
        notes = _notes(conn, params)
        if shown is not None:  # the first instances by the ranking's own order (busiest windows do not move it)
            order = sorted(((r.instance_id, _period(r, min_gain)) for r in periods), key=lambda p: _order(p[1], p[0]))
            params["only"] = [key for key, _p in order[:shown]] + [r.instance_id for r in loads]
        busiest = (conn.cursor(row_factory=class_row(WindowRow)).execute(_BUSIEST, params).fetchall()
                   if windows else [])
        conn.rollback()
    except psycopg.Error as exc:
        raise translate(exc, "reading the repository") from None
    peaks: dict[str, list[WindowAdvice]] = {}
    for window in busiest:
        peaks.setdefault(window.instance_id, []).append(
            _window(window, f"busiest {len(peaks.get(window.instance_id, [])) + 1}", min_gain))
    stored: dict[str, list[WindowAdvice]] = {}
    who: dict[str, tuple[str, str, str]] = {}
    for load in loads:
        who[load.instance_id] = (load.dbms, load.host, load.name)
        stored.setdefault(load.instance_id, []).append(
            _window(load, f"workload {len(stored.get(load.instance_id, [])) + 1}", min_gain))
    items: dict[str, InstanceAdvice] = {}
    for row in periods:
        key, dbms, host, name = row.instance_id, row.dbms, row.host, row.name
        n, resets = int(row.intervals), int(row.resets)
        warnings = (f"{resets} interval{'s' if resets > 1 else ''} across a restart, a stats reset or a clock step "
                    "left out",) if resets else ()
        period = _period(row, min_gain)
        if period.planned and not period.findings:  # the findings of its busiest windows, most saving first
            ordered = sorted(peaks.get(key, ()), key=lambda w: -w.saved_s_per_h)
            period = replace(period, findings=tuple(dict.fromkeys(f for w in ordered for f in w.findings)))
        items[key] = InstanceAdvice(key, dbms, host, name, n + 1, row.first_at.isoformat(), row.last_at.isoformat(),
                                    period, tuple(peaks.get(key, ())), warnings, evidence=f"{n + 1} snapshots")
    for key, advised in stored.items():
        picked = sorted(sorted(advised, key=lambda w: -w.db_iops)[:max(windows, 1)], key=lambda w: w.started_at)
        sources = ", ".join(sorted({w.source.removesuffix(SIZED) for w in advised}))
        words = f"{len(advised)} workload{'s' if len(advised) > 1 else ''} ({sources})"
        base = items.get(key)
        if base is None:
            dbms, host, name = who[key]
            items[key] = InstanceAdvice(key, dbms, host, name, 0, min(w.started_at for w in advised),
                                        max(w.ended_at for w in advised), all_workloads(advised, min_gain),
                                        tuple(picked), workloads=len(advised), evidence=words)
        else:
            items[key] = replace(base, busiest=base.busiest + tuple(picked), workloads=len(advised),
                                 evidence=f"{base.evidence}; {words}")
    named: dict[str, list[str]] = {}
    for key, dbms, host, name, why in skipped:
        named.setdefault(key, []).append(why)
        if key not in items:  # nothing of it could be advised: ranked last, with why
            items[key] = InstanceAdvice(key, dbms, host, name, 0, "", "", None, (),
                                        ("no readable snapshot pair or workload in the period: nothing to advise",))
    for key, whys in named.items():
        items[key] = replace(items[key], skipped=tuple(whys))
    ranked = sorted(items.values(), key=rank_key)
    out = []
    for n, item in enumerate(ranked, start=1):
        extra = advise_period(item.instance_id) if advise_period and n <= detail and item.snapshots else None
        out.append(replace(item, rank=n, detail=extra))
    return FleetReport(generated_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                       since=since.isoformat(timespec="seconds"), until=until.isoformat(timespec="seconds"),
                       windows=windows, instances=tuple(out), tool_version=__version__, min_gain=min_gain,
                       warnings=notes)


def _order(period: WindowAdvice, key: str) -> tuple[int, float, float, str]:
    return rank_key(InstanceAdvice(key, "", "", "", 0, "", "", period))


def _buckets(since: dt.datetime, until: dt.datetime) -> dict[str, dt.datetime]:
    """Whole days and whole hours inside [since, until) (empty ranges when there are none)."""
    def floor(at: dt.datetime, unit: dt.timedelta) -> dt.datetime:
        at = at.astimezone(dt.UTC)
        day = at.replace(hour=0, minute=0, second=0, microsecond=0)
        return day + ((at - day) // unit) * unit

    hour, day = dt.timedelta(hours=1), dt.timedelta(days=1)
    hlo, hhi = floor(since, hour), floor(until, hour)
    hlo = hlo if hlo == since.astimezone(dt.UTC) else hlo + hour
    if hlo >= hhi:
        return {"hlo": since, "hhi": since, "dlo": since, "dhi": since}
    dlo, dhi = floor(hlo, day), floor(hhi, day)
    dlo = dlo if dlo == hlo else dlo + day
    if dlo >= dhi:
        dlo = dhi = hlo
    return {"hlo": hlo, "hhi": hhi, "dlo": dlo, "dhi": dhi}


def _notes(conn: psycopg.Connection[Any], params: dict[str, Any]) -> tuple[str, ...]:
    """What the ranking does not include yet: queued arrivals and summaries of another engine."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM advisor.arrivals), (SELECT coalesce(sum(intervals + resets), 0) FROM "
        "advisor.summary_hourly WHERE (engine_version <> %(v)s OR models_key <> %(m)s) AND bucket >= "
        "date_trunc('hour', %(since)s::timestamptz) AND bucket < %(until)s) + (SELECT count(*) FROM "
        "advisor.interval_summaries s WHERE s.source <> 'snapshots' AND (s.engine_version <> %(v)s OR "
        "s.models_key <> %(m)s) AND s.ended_at >= %(since)s AND s.ended_at < %(until)s)", params).fetchone()
    pending, stale = (int(row[0]), int(row[1])) if row else (0, 0)
    notes = []
    if pending:
        notes.append(f"{pending} pushed documents are not summarised yet (left out): run `advisor repo summarize`")
    if stale:
        notes.append(f"about {stale} interval summaries were made by another engine version or other models (left "
                     "out, never mixed): run `advisor repo summarize`")
    return tuple(notes)


def rank_fleet(conn: psycopg.Connection[Any], models: Models, *, since: dt.datetime, until: dt.datetime,
               windows: int, min_gain: float, detail: int, shown: int | None, force: bool, asked: str | None,
               warn: Callable[[str], None]) -> FleetReport:
    """``fleet report``: the one ranking path, SQL over the interval summaries; the engine only for the detail.

    Before ranking, a role that may write summaries drains the summariser's queue and
    recomputes summaries of another engine version (*warn* gets each interval that failed).
    The summaries are made with the default models and gate (``default_summarizer``), so the
    ranking is by those; *models* (*asked* names them: ``preset:NAME`` or ``spec:PATH``, None for
    the default) and *force* advise only the first *detail* instances again over their whole
    period by the engine (what ``advisor report FIRST LAST`` says with the same options), and the
    report says so in its warnings when they differ from the recorded ones.
    """
    from advisor.errors import AdvisorError
    from advisor.fleet.instances import fleet_report
    from advisor.fleet.summaries import default_summarizer, drain, may_summarise, requeue_stale

    summarizer = default_summarizer()
    if may_summarise(conn):
        requeue_stale(conn, summarizer)
        for why in drain(conn, summarizer).failed:
            warn(f"interval not summarised: {why}")

    def whole(key: str) -> WindowAdvice | None:
        try:
            found = fleet_report(conn, models, since=since, until=until, windows=0, only=key, force=force,
                                 min_gain=min_gain).instances
        except AdvisorError:
            return None
        return replace(found[0].period, label="whole period") if found and found[0].period else None

    ranked = ranked_from_summaries(conn, summarizer.models_key, since=since, until=until, windows=windows,
                                   min_gain=min_gain, detail=detail, advise_period=whole, shown=shown)
    options = [f"--{asked.partition(':')[0]}"] if asked is not None and asked != summarizer.models_key else []
    options += ["--force"] if force else []
    if options:  # the ranking cannot follow them: say by what it is made
        which = " and ".join(options) + (" apply" if len(options) > 1 else " applies")
        ranked = replace(ranked, warnings=(
            *ranked.warnings, "ranked by the interval summaries, made with the recorded models "
            f"({summarizer.models_key}) and the IO-bound gate; {which} to the detail only (the first {detail} "
            "instances advised over the whole period by the engine)"))
    return ranked
