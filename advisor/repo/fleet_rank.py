"""The fleet ranking as queries over the interval summaries; the engine only for the detail printed.

Each instance's period is the sum of its snapshot intervals in [since, until] that are not
marked ``reset`` (:mod:`advisor.repo.summaries`): disk time saved over the period by the
plan of each interval, per hour of the period, and as a share of the disk time before. An
interval without a plan saves nothing. Because each interval has its own plan, that sum is
what a layout following the workload would save, an upper bound of what one fixed layout
saves; so the first ``detail`` instances are also advised over the whole period as one
interval by the engine (first snapshot since the last restart to the last: exactly
``advisor report FIRST LAST``), shown beside the ranking as ``detail``. The busiest windows
are the intervals with the highest IO rate. Workloads (imports, ``collect --interval``) are
summarised at arrival too and rank as before (:mod:`advisor.repo.fleet_workloads`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import psycopg

from advisor import __version__
from advisor.repo.connection import translate
from advisor.repo.fleet_model import FleetReport, InstanceAdvice, Verdict, WindowAdvice, rank_key
from advisor.repo.fleet_workloads import SIZED, all_workloads, shown_source
from advisor.repo.summaries import ENGINE_VERSION, WORKLOAD

_SCOPE = ("s.engine_version = %(v)s AND s.models_key = %(m)s AND s.ended_at <= %(until)s AND "
          "s.started_at >= %(since)s")
_PERIODS = f"""
SELECT s.instance_id, i.dbms, i.host, i.name, count(*) AS intervals, count(*) FILTER (WHERE reset) AS resets,
  coalesce(min(started_at) FILTER (WHERE NOT reset), min(started_at)),
  coalesce(max(ended_at) FILTER (WHERE NOT reset), max(ended_at)),
  coalesce(sum(interval_s) FILTER (WHERE NOT reset), 0),
  coalesce(sum(db_iops * interval_s) FILTER (WHERE NOT reset), 0),
  CASE WHEN bool_and(io_wait_share IS NOT NULL) FILTER (WHERE NOT reset)
       THEN sum(io_wait_share * interval_s) FILTER (WHERE NOT reset) END,
  CASE WHEN bool_and(read_s_per_h IS NOT NULL) FILTER (WHERE NOT reset)
       THEN sum(read_s_per_h * interval_s) FILTER (WHERE NOT reset) END,
  coalesce(bool_or(planned) FILTER (WHERE NOT reset), false),
  coalesce(sum(before_s_per_h * interval_s / 3600) FILTER (WHERE planned AND NOT reset), 0),
  coalesce(sum(saved_s_per_h * interval_s / 3600) FILTER (WHERE planned AND NOT reset), 0),
  coalesce(bool_and('NOT_IO_BOUND' = ANY(findings)) FILTER (WHERE NOT planned AND NOT reset), false),
  mode() WITHIN GROUP (ORDER BY note) FILTER (WHERE NOT planned AND NOT reset)
FROM advisor.interval_summaries s JOIN advisor.instances i USING (instance_id)
WHERE s.source = 'snapshots' AND {_SCOPE}
GROUP BY 1, 2, 3, 4
"""
_WINDOW_COLUMNS = ("instance_id, started_at, ended_at, source, interval_s, db_iops, io_wait_share, planned, before_ms, "
                   "after_ms, saved_s_per_h, saved_share, predicted_gain, verdict, read_s_per_h, findings, note")
_BUSIEST = f"""
SELECT {_WINDOW_COLUMNS} FROM (
  SELECT s.*, row_number() OVER (PARTITION BY instance_id ORDER BY db_iops DESC, ended_at) AS r
  FROM advisor.interval_summaries s WHERE s.source = 'snapshots' AND NOT s.reset AND {_SCOPE}) t
WHERE r <= %(n)s ORDER BY instance_id, started_at
"""
_WORKLOADS = f"""
SELECT DISTINCT ON (s.instance_id, s.started_at, s.ended_at) i.dbms, i.host, i.name, {_WINDOW_COLUMNS.replace(
    "instance_id", "s.instance_id").replace("started_at", "s.started_at").replace(", ended_at", ", s.ended_at")}
FROM advisor.interval_summaries s JOIN advisor.instances i USING (instance_id)
WHERE s.source <> 'snapshots' AND s.engine_version = %(v)s AND s.models_key = %(m)s AND s.ended_at >= %(since)s
  AND s.ended_at <= %(until)s
ORDER BY s.instance_id, s.started_at, s.ended_at, (s.source LIKE '%%{SIZED}') DESC, s.computed_at DESC, s.source
"""


def _verdict(stored: str, planned: bool, saved: float, gain: float | None, min_gain: float) -> Verdict:
    """The stored verdict judged again at *min_gain* (summaries are made at the default)."""
    if not planned or saved <= 0 or stored not in ("saves", "no change worth making"):
        return stored  # type: ignore[return-value]  # a verdict the summariser wrote
    return "saves" if (gain if gain is not None else 0.0) >= min_gain else "no change worth making"


def _window(row: tuple[Any, ...], label: str, min_gain: float) -> WindowAdvice:
    (_key, started, ended, source, interval, iops, wait, planned, before, after, saved, share, gain, verdict, read,
     findings, note) = row
    return WindowAdvice(label, started.isoformat(), ended.isoformat(), interval, iops, wait, planned, before, after,
                        saved, share, tuple(findings), note, "snapshots" if source == "snapshots"
                        else shown_source(source.removeprefix(WORKLOAD)), _verdict(verdict, planned, saved, gain,
                                                                                   min_gain), read)


def _period(row: tuple[Any, ...], min_gain: float) -> WindowAdvice:
    (_key, _dbms, _host, _name, _n, _resets, first, last, seconds, ios, wait_s, read_s, planned, before_s, saved_s,
     not_io_bound, note) = row
    hours = seconds / 3600.0 if seconds else 0.0
    share = saved_s / before_s if before_s > 0 else 0.0
    verdict: Verdict = ("no plan" if not planned else "nothing to gain" if saved_s <= 0
                        else "no change worth making" if share < min_gain else "saves")
    return WindowAdvice(
        "period", first.isoformat(), last.isoformat(), seconds, ios / seconds if seconds else 0.0,
        wait_s / seconds if wait_s is not None and seconds else None, planned, None, None,
        round(saved_s / hours, 4) if hours else 0.0, round(share, 4),
        ("NOT_IO_BOUND",) if not planned and not_io_bound else (), note or "", "snapshots", verdict,
        round(read_s / seconds, 4) if read_s is not None and seconds else None)


def ranked_from_summaries(conn: psycopg.Connection[Any], models_key: str, *, since: dt.datetime,
                          until: dt.datetime, windows: int, min_gain: float, detail: int = 0,
                          advise_period: Callable[[str], WindowAdvice | None] | None = None) -> FleetReport:
    """Every instance with summaries in [since, until], ranked by SQL aggregates (see the module)."""
    params = {"v": ENGINE_VERSION, "m": models_key, "since": since, "until": until, "n": windows}
    try:
        periods = conn.execute(_PERIODS, params).fetchall()
        busiest = conn.execute(_BUSIEST, params).fetchall() if windows else []
        loads = conn.execute(_WORKLOADS, params).fetchall()
        skipped = conn.execute(
            "SELECT k.instance_id, i.dbms, i.host, i.name, k.why FROM advisor.skipped_rows k JOIN advisor.instances i "
            "USING (instance_id) WHERE k.ended_at >= %(since)s AND k.ended_at <= %(until)s "
            "ORDER BY k.instance_id, k.ended_at, k.why", params).fetchall()
        notes = _notes(conn, params)
        conn.rollback()
    except psycopg.Error as exc:
        raise translate(exc, "reading the repository") from None
    peaks: dict[str, list[WindowAdvice]] = {}
    for row in busiest:
        peaks.setdefault(row[0], []).append(_window(row, f"busiest {len(peaks.get(row[0], [])) + 1}", min_gain))
    stored: dict[str, list[WindowAdvice]] = {}
    who: dict[str, tuple[str, str, str]] = {}
    for row in loads:
        who[row[3]] = (row[0], row[1], row[2])
        stored.setdefault(row[3], []).append(_window(row[3:], f"workload {len(stored.get(row[3], [])) + 1}", min_gain))
    items: dict[str, InstanceAdvice] = {}
    for row in periods:
        key, dbms, host, name, n, resets = row[:6]
        warnings = (f"{resets} interval{'s' if resets > 1 else ''} across a restart or a stats reset left out",) \
            if resets else ()
        items[key] = InstanceAdvice(key, dbms, host, name, n + 1, row[6].isoformat(), row[7].isoformat(),
                                    _period(row, min_gain), tuple(peaks.get(key, ())), warnings,
                                    evidence=f"{n + 1} snapshots")
    for key, advised in stored.items():
        shown = sorted(sorted(advised, key=lambda w: -w.db_iops)[:max(windows, 1)], key=lambda w: w.started_at)
        sources = ", ".join(sorted({w.source.removesuffix(SIZED) for w in advised}))
        words = f"{len(advised)} workload{'s' if len(advised) > 1 else ''} ({sources})"
        base = items.get(key)
        if base is None:
            dbms, host, name = who[key]
            items[key] = InstanceAdvice(key, dbms, host, name, 0, min(w.started_at for w in advised),
                                        max(w.ended_at for w in advised), all_workloads(advised, min_gain),
                                        tuple(shown), workloads=len(advised), evidence=words)
        else:
            items[key] = replace(base, busiest=base.busiest + tuple(shown), workloads=len(advised),
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


def _notes(conn: psycopg.Connection[Any], params: dict[str, Any]) -> tuple[str, ...]:
    """What the ranking does not include yet: queued arrivals and summaries of another engine."""
    row = conn.execute("SELECT (SELECT count(*) FROM advisor.arrivals), (SELECT count(*) FROM "
                       "advisor.interval_summaries s WHERE (s.engine_version <> %(v)s OR s.models_key <> %(m)s) "
                       "AND s.ended_at >= %(since)s AND s.ended_at <= %(until)s)", params).fetchone()
    pending, stale = (int(row[0]), int(row[1])) if row else (0, 0)
    notes = []
    if pending:
        notes.append(f"{pending} pushed documents are not summarised yet (left out): run `advisor repo summarize`")
    if stale:
        notes.append(f"{stale} interval summaries were made by another engine version or other models (left out, "
                     "never mixed): run `advisor repo summarize`")
    return tuple(notes)
