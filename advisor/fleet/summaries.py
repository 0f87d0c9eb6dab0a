"""Advice per interval, computed once when a document arrives: the summaries rankings are made of.

Every new snapshot or workload queues an arrival (:mod:`advisor.repo.ingest`). Draining the
queue (:func:`drain`: ``push`` does it at once when its role may write summaries, otherwise
``advisor repo summarize`` run by the owner or a scheduled worker) advises the intervals the
arrival touches with the ordinary engine: :func:`advisor.rates.workload.diff` (its reset rules)
and :func:`advisor.engine.advise.advise`, as ``advisor report A B`` does, and stores one
small row per interval (``advisor.interval_summaries``).

Keys: a summary is its instance, start, end and source. A snapshot at *t* touches the interval
that ends at *t* and the one that starts at *t*; a summary spanning *t* (made before an
earlier snapshot arrived late) is deleted. A snapshot pushed twice queues nothing (its row was
there), so nothing is recomputed; one corrected (another document under its key) loses its
summaries at the push and is queued again (:mod:`advisor.repo.migration4`). An interval across
a restart or a reset of the counters the files are read from, or a clock step
(:mod:`advisor.repo.comparable`), keeps its summary, marked ``reset``, and is left out of sums
and rollups. A summary stores the engine version and the
drive models it was made with; one made by another version is queued again and recomputed
(:func:`requeue_stale`), never mixed with current ones. Hourly and daily rollups of the
snapshot intervals are rewritten for every hour and day a drain touches, from the summaries,
so they are exact.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import psycopg

from advisor import __version__
from advisor.engine.advise import Models, advise
from advisor.errors import AdvisorError
from advisor.fleet.documents import Documents, Unreadable, fetch
from advisor.fleet.model import WindowAdvice
from advisor.fleet.window import Judging, judged_gain, judged_window, window_request
from advisor.fleet.workloads import db_iops, decode_workload, fetch_workloads, shown_source
from advisor.model import Report, Snapshot, Workload
from advisor.model.jsonio import encode_compact
from advisor.model.snapshot import ResetRule
from advisor.rates.workload import diff
from advisor.repo.comparable import not_comparable
from advisor.repo.connection import translate
from advisor.sizes.need import missing_sizes_line

ENGINE_VERSION = f"{__version__}/summary-2"
"""Stored with every summary: one made by another engine is recomputed, never mixed (2: the gain a
summary stores is the one its verdict is judged on, the replay's where a trace judges the plan)."""
RESET_RULES: frozenset[ResetRule] = frozenset({"identity", "recovery", "stats-reset", "restart", "instance"})
"""Rules of :func:`advisor.rates.workload.diff` (``Workload.resets``) that make a stored workload's counters not
comparable (a snapshot pair is judged from its snapshots: :mod:`advisor.repo.comparable`)."""
TOP_AREAS = 3
WORKLOAD = "workload:"
"""Prefix of a workload's ``source`` in arrivals and summaries (a ``collect --interval`` workload's
own source is ``snapshots``, which names snapshot pairs here)."""
Known = Mapping[tuple[str, dt.datetime], Snapshot]


@dataclass(frozen=True)
class Summarizer:
    """The drive models summaries are made with, and the key that names them in each row.

    A push is handed one (:class:`advisor.repo.pusher.Summarizer` is what it asks of it).
    """

    models: Models
    models_key: str

    def may(self, conn: psycopg.Connection[Any]) -> bool:
        """Whether this session's role may write summaries (:func:`may_summarise`)."""
        return may_summarise(conn)

    def summarise(self, conn: psycopg.Connection[Any], known: Known) -> list[str]:
        """Drain the queue (:func:`drain`); the intervals that could not be summarised, one line each."""
        return drain(conn, self, known).failed


def default_summarizer() -> Summarizer:
    """The models interval summaries are made with: the default preset, as ``advisor report`` uses
    (its model basis goes into every report the summaries are made from)."""
    from advisor.engine.disk_models import DEFAULT_PRESET, load_models

    return Summarizer(load_models(None, None, None), f"preset:{DEFAULT_PRESET}")


@dataclass
class Drained:
    """What one drain did."""

    arrivals: int = 0
    written: set[tuple[str, dt.datetime, dt.datetime, str]] = field(default_factory=set)  # in the table now
    failed: list[str] = field(default_factory=list)  # rows or intervals that could not be used, one line each
    skipped: list[tuple[str, dt.datetime, str]] = field(default_factory=list)  # (instance, time, why) to store

    @property
    def summaries(self) -> int:
        """Interval summaries this drain wrote and left in the table (one rewritten at a batch edge counts once)."""
        return len(self.written)

    def wrote(self, rows: list[SummaryRow]) -> None:
        """*rows* were written."""
        self.written |= {(r.instance_id, _instant(r.started_at), _instant(r.ended_at), r.source) for r in rows}

    def deleted(self, key: str, spans: list[tuple[Any, Any]], source: str) -> None:
        """The summaries of *key* over *spans* (start, end) of *source* were deleted."""
        self.written -= {(key, _instant(start), _instant(end), source) for start, end in spans}


class SummaryRow(NamedTuple):
    """One row of ``advisor.interval_summaries`` as it is written (by COPY, in this column order)."""

    instance_id: str
    started_at: str | dt.datetime
    ended_at: str | dt.datetime
    source: str  # "snapshots", or WORKLOAD + the stored workload's source
    engine_version: str
    models_key: str
    interval_s: float
    db_iops: float
    io_wait_share: float | None
    planned: bool
    before_ms: float | None
    after_ms: float | None
    before_s_per_h: float  # modelled disk time before the plan; 0 without one
    saved_s_per_h: float
    saved_share: float
    predicted_gain: float | None  # the gain the verdict is judged on (the replay's where there is one)
    verdict: str
    read_s_per_h: float | None
    findings: list[str]
    note: str
    reset: bool  # across a restart, a stats reset or a clock step: left out of sums and rollups
    top_areas: str  # json: the TOP_AREAS busiest areas


def summary_of(key: str, label: str, work: Workload, report: Report, rate: float, source: str,
               summarizer: Summarizer, left_out: bool | None = None) -> SummaryRow:
    """One interval's row: the fleet's judgement of *report* plus its disk time, areas and reset mark.

    *left_out*: whether the interval's counters are not comparable, decided from its snapshots
    (:func:`advisor.repo.comparable.not_comparable`); a stored workload has none, and its own
    warnings decide.
    """
    window: WindowAdvice = judged_window(label, work, report, rate, work.started_at, work.ended_at, source)
    plan = report.plan
    before = report.outcome.before_s_per_h if report.outcome is not None and plan is not None else None
    areas = sorted(report.areas, key=lambda a: -a.iops)[:TOP_AREAS]
    top = [{"name": a.name, "kind": a.kind, "iops": round(a.iops, 3), "read_iops": round(a.read_iops, 3),
            "write_iops": round(a.write_iops, 3), "read_mb_s": round(a.read_mb_s, 4), "io_share": round(a.io_share, 4)}
           for a in areas]
    reset = not RESET_RULES.isdisjoint(work.resets) if left_out is None else left_out
    return SummaryRow(key, work.started_at, work.ended_at, source, ENGINE_VERSION, summarizer.models_key,
                      window.interval_s, window.db_iops, window.io_wait_share, window.planned, window.before_ms,
                      window.after_ms, before or 0.0, window.saved_s_per_h, window.saved_share, judged_gain(report),
                      window.verdict, window.read_s_per_h, list(window.findings), window.note, reset,
                      encode_compact(top).decode())


_COLUMNS = ", ".join(SummaryRow._fields)


def snapshot_interval(key: str, a: Snapshot, b: Snapshot, summarizer: Summarizer) -> SummaryRow:
    """The summary of the interval from *a* to *b*, as ``advisor report A B`` advises it."""
    work = diff(a, b, allow_reset=True, always_refuse=("identity",))
    report = advise(window_request(work, summarizer.models, Judging()))
    return summary_of(key, "interval", work, report, db_iops(work), "snapshots", summarizer,
                      left_out=not_comparable(a, b) is not None)


def drain(conn: psycopg.Connection[Any], summarizer: Summarizer, known: Known | None = None,
          batch: int = 200) -> Drained:
    """Summarise every queued arrival, *batch* at a time (each batch one transaction).

    *known* holds snapshots already decoded (a push's own), so they are not read back.
    Arrivals another drain holds are skipped (``FOR UPDATE SKIP LOCKED``): workers can share a queue.
    """
    done = Drained()
    try:
        while True:
            with conn.transaction():
                conn.execute("SET LOCAL TimeZone = 'UTC'")
                rows = conn.execute(
                    "SELECT instance_id, ended_at, started_at, source FROM advisor.arrivals "
                    "ORDER BY instance_id, ended_at LIMIT %(n)s FOR UPDATE SKIP LOCKED", {"n": batch}).fetchall()
                if not rows:
                    return done
                by_instance: dict[str, list[tuple[dt.datetime, dt.datetime, str]]] = {}
                for key, ended, started, source in rows:
                    by_instance.setdefault(key, []).append((ended, started, source))
                for key, arrivals in by_instance.items():
                    _instance(conn, key, arrivals, summarizer, known or {}, done)
                if done.skipped:
                    conn.cursor().executemany("INSERT INTO advisor.skipped_rows (instance_id, ended_at, why) "
                                              "VALUES (%s, %s, %s) ON CONFLICT DO NOTHING", done.skipped)
                    done.skipped = []
                conn.execute(
                    "DELETE FROM advisor.arrivals WHERE (instance_id, ended_at, started_at, source) IN (SELECT * FROM "
                    "unnest(%(k)s::text[], %(e)s::timestamptz[], %(s)s::timestamptz[], %(src)s::text[]))",
                    {"k": [r[0] for r in rows], "e": [r[1] for r in rows], "s": [r[2] for r in rows],
                     "src": [r[3] for r in rows]})
                done.arrivals += len(rows)
    except psycopg.Error as exc:
        raise translate(exc, "summarising the repository's arrivals") from None


def _instance(conn: psycopg.Connection[Any], key: str, arrivals: list[tuple[dt.datetime, dt.datetime, str]],
              summarizer: Summarizer, known: Known, done: Drained) -> None:
    taken = sorted({ended for ended, _started, source in arrivals if source == "snapshots"})
    rows: list[SummaryRow] = []
    touched: set[dt.datetime] = set()
    if taken:
        rows += _snapshot_rows(conn, key, taken, summarizer, known, done, touched)
    spans = [(started, ended, source.removeprefix(WORKLOAD)) for ended, started, source in arrivals
             if source.startswith(WORKLOAD)]
    for row in fetch_workloads(conn, key, spans):
        work = decode_workload(row)
        if isinstance(work, str):
            done.failed.append(work)
            done.skipped.append((key, row.ended_at, work))
            continue
        no_sizes = missing_sizes_line(work)
        report = advise(window_request(work, summarizer.models, Judging(), no_plan=no_sizes))
        summary = summary_of(key, "workload", work, report, db_iops(work), shown_source(row.source), summarizer)
        rows.append(summary._replace(started_at=row.started_at, ended_at=row.ended_at,
                                     source=WORKLOAD + row.source))  # its row's key
        conn.execute("DELETE FROM advisor.interval_summaries WHERE instance_id = %(k)s AND ended_at = %(e)s "
                     "AND started_at = %(s)s AND source = %(src)s",
                     {"k": key, "e": row.ended_at, "s": row.started_at, "src": WORKLOAD + row.source})
        done.deleted(key, [(row.started_at, row.ended_at)], WORKLOAD + row.source)
    if not rows:
        _rollups(conn, key, touched)
        return
    for month in {_month_of(r.ended_at) for r in rows}:
        conn.execute("SELECT advisor.ensure_month('interval_summaries', %(at)s)", {"at": month})
    with conn.cursor().copy(f"COPY advisor.interval_summaries ({_COLUMNS}) FROM STDIN") as copy:
        for r in rows:
            copy.write_row(r)
    done.wrote(rows)
    touched |= {_instant(r.ended_at) for r in rows if r.source == "snapshots"}
    _rollups(conn, key, touched)


def _snapshot_rows(conn: psycopg.Connection[Any], key: str, taken: list[dt.datetime], summarizer: Summarizer,
                   known: Known, done: Drained, touched: set[dt.datetime]) -> list[SummaryRow]:
    """Delete the summaries the arrivals at *taken* touch and advise the intervals they close or open."""
    timeline = [t for (t,) in conn.execute(
        "SELECT taken_at FROM advisor.snapshots WHERE instance_id = %(k)s AND taken_at >= coalesce("
        "(SELECT max(taken_at) FROM advisor.snapshots WHERE instance_id = %(k)s AND taken_at < %(lo)s), %(lo)s) "
        "AND taken_at <= coalesce((SELECT min(taken_at) FROM advisor.snapshots WHERE instance_id = %(k)s "
        "AND taken_at > %(hi)s), %(hi)s) ORDER BY taken_at", {"k": key, "lo": taken[0], "hi": taken[-1]}).fetchall()]
    deleted = conn.execute(
        "DELETE FROM advisor.interval_summaries s WHERE instance_id = %(k)s AND source = 'snapshots' AND EXISTS "
        "(SELECT FROM unnest(%(t)s::timestamptz[]) t WHERE s.started_at <= t AND s.ended_at >= t) "
        "RETURNING started_at, ended_at", {"k": key, "t": taken}).fetchall()
    touched |= {e for (_s, e) in deleted}
    done.deleted(key, deleted, "snapshots")
    wanted = {(t, True) for t in timeline if (key, t) not in known}
    docs = Documents(key, dict(fetch(conn, key, wanted)) if wanted else {})
    bad: set[dt.datetime] = set()
    while True:  # an unreadable row leaves the timeline; its neighbours make the interval instead
        readable = [t for t in timeline if t not in bad]
        pairs = sorted({(p, n) for t in taken for p, n in zip(readable, readable[1:], strict=False)
                        if p <= t <= n})
        touched |= {b_at for _a_at, b_at in pairs}  # its hour's rollup is rewritten even if advising fails
        try:
            rows = []
            for a_at, b_at in pairs:
                a, b = (known.get((key, t)) or docs.get([t])[0] for t in (a_at, b_at))
                rows.append(_advised(key, a, b, a_at, b_at, summarizer, done))
            return [r for r in rows if r is not None]
        except Unreadable as exc:
            bad.add(exc.taken)
            done.failed.append(exc.why)
            done.skipped.append((key, exc.taken, exc.why))


def _advised(key: str, a: Snapshot, b: Snapshot, a_at: dt.datetime, b_at: dt.datetime, summarizer: Summarizer,
             done: Drained) -> SummaryRow | None:
    try:
        return snapshot_interval(key, a, b, summarizer)
    except AdvisorError as exc:
        done.failed.append(f"{key} {a_at.isoformat()} .. {b_at.isoformat()}: {exc.one_line()}")
        return None


def _rollups(conn: psycopg.Connection[Any], key: str, touched: set[dt.datetime]) -> None:
    """Rewrite the hourly and daily rollups of *key* for every hour and day in *touched*, from the summaries."""
    if not touched:
        return
    for table, unit in (("summary_hourly", "hour"), ("summary_daily", "day")):
        buckets = sorted({_trunc(t, unit) for t in touched})
        for month in {_month_of(b.isoformat()) for b in buckets}:
            conn.execute("SELECT advisor.ensure_month(%(t)s, %(at)s)", {"t": table, "at": month})
        conn.execute(f"DELETE FROM advisor.{table} WHERE instance_id = %(k)s AND bucket = ANY(%(b)s)",
                     {"k": key, "b": buckets})
        conn.execute(
            f"INSERT INTO advisor.{table} ({ROLLUP_COLUMNS}) SELECT instance_id, date_trunc('{unit}', ended_at), "
            f"{VERSIONS}, {AGGREGATES}, {PEAKS} FROM advisor.interval_summaries WHERE instance_id = %(k)s "
            f"AND source = 'snapshots' AND date_trunc('{unit}', ended_at) = ANY(%(b)s) GROUP BY 1, 2",
            {"k": key, "b": buckets, "v": ENGINE_VERSION})


ROLLUP_COLUMNS = ("instance_id, bucket, engine_version, models_key, intervals, resets, first_at, last_at, seconds, "
                  "ios, wait_s, read_s, planned_seconds, before_s, saved_s, not_io_bound, note, peak_db_iops, "
                  "peak_saved_s_per_h")
VERSIONS = ("CASE WHEN min(engine_version) = max(engine_version) THEN min(engine_version) ELSE 'mixed' END, "
            "CASE WHEN min(models_key) = max(models_key) THEN min(models_key) ELSE 'mixed' END")
AGGREGATES = """
count(*) FILTER (WHERE NOT reset), count(*) FILTER (WHERE reset),
coalesce(min(started_at) FILTER (WHERE NOT reset), min(started_at)),
coalesce(max(ended_at) FILTER (WHERE NOT reset), max(ended_at)),
coalesce(sum(interval_s) FILTER (WHERE NOT reset), 0), coalesce(sum(db_iops * interval_s) FILTER (WHERE NOT reset), 0),
CASE WHEN (bool_and(io_wait_share IS NOT NULL) FILTER (WHERE NOT reset)) IS NOT FALSE
     THEN coalesce(sum(io_wait_share * interval_s) FILTER (WHERE NOT reset), 0) END,
CASE WHEN (bool_and(read_s_per_h IS NOT NULL) FILTER (WHERE NOT reset)) IS NOT FALSE
     THEN coalesce(sum(read_s_per_h * interval_s) FILTER (WHERE NOT reset), 0) END,
coalesce(sum(interval_s) FILTER (WHERE planned AND NOT reset), 0),
coalesce(sum(before_s_per_h * interval_s / 3600) FILTER (WHERE planned AND NOT reset), 0),
coalesce(sum(saved_s_per_h * interval_s / 3600) FILTER (WHERE planned AND NOT reset), 0),
bool_and('NOT_IO_BOUND' = ANY(findings)) FILTER (WHERE NOT planned AND NOT reset),
mode() WITHIN GROUP (ORDER BY note) FILTER (WHERE NOT planned AND NOT reset)
"""
"""One group of snapshot-interval summaries as the columns the period is summed from (rollups and edges)."""
PEAKS = "coalesce(max(db_iops) FILTER (WHERE NOT reset), 0), coalesce(max(saved_s_per_h) FILTER (WHERE NOT reset), 0)"


def requeue_stale(conn: psycopg.Connection[Any], summarizer: Summarizer) -> int:
    """Queue again every interval summarised by another engine version or other models; how many."""
    try:
        with conn.transaction():
            cursor = conn.execute(
                "INSERT INTO advisor.arrivals (instance_id, ended_at, started_at, source) "
                "SELECT instance_id, ended_at, CASE WHEN source = 'snapshots' THEN ended_at ELSE started_at END, "
                "source "
                "FROM advisor.interval_summaries WHERE engine_version <> %(v)s OR models_key <> %(m)s "
                "ON CONFLICT DO NOTHING", {"v": ENGINE_VERSION, "m": summarizer.models_key})
            return max(cursor.rowcount, 0)
    except psycopg.Error as exc:
        raise translate(exc, "queueing stale summaries") from None


def may_summarise(conn: psycopg.Connection[Any]) -> bool:
    """Whether this session's role may write summaries (the owner, or a role granted it)."""
    row = conn.execute("SELECT has_table_privilege('advisor.interval_summaries', 'INSERT') AND "
                       "has_table_privilege('advisor.arrivals', 'DELETE')").fetchone()
    conn.rollback()
    return bool(row and row[0])


def _instant(at: str | dt.datetime) -> dt.datetime:
    value = at if isinstance(at, dt.datetime) else dt.datetime.fromisoformat(at)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _month_of(at: str | dt.datetime) -> str:
    return _instant(at).astimezone(dt.UTC).isoformat()


def _trunc(at: dt.datetime, unit: str) -> dt.datetime:
    at = at.astimezone(dt.UTC)
    return at.replace(minute=0, second=0, microsecond=0) if unit == "hour" else at.replace(
        hour=0, minute=0, second=0, microsecond=0)
