"""Workloads in the repository (AWR/Statspack imports, ``collect --interval``) as fleet evidence.

A workload is an interval already turned into rates: each one is advised as it stands, by
the same :func:`advisor.engine.advise.advise` as ``advisor report --workload``, with its own
interval and source. An import states no file sizes, and a plan on sizes nobody stated
would rank invented numbers, so such a window gets no plan (the line
:func:`advisor.sizes.need.missing_sizes_line` gives) and the verdict ``sizes unknown``; the
read time the report measured still says what is at stake. Pushing the import again with
``collect --from-report REPORT --sizes FILE --push REPO`` stores a second row for the same
interval (its ``source`` ends in ``+sizes``), and the ranking takes that one.

An instance with workloads and no snapshots is ranked by the sum of its workloads: the disk
time saved over all of them per hour of their intervals (label ``all workloads``).

The collectors' role may insert any row, so a row is believed only when its document decodes
as a workload of the row's own instance and interval; any other row is skipped by name.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any

import psycopg

from advisor.errors import BadInput
from advisor.fleet.model import Sums, Verdict, WindowAdvice, summed_window
from advisor.model import Workload
from advisor.repo.documents import instance_id, load_bytes

SIZED = "+sizes"
"""Suffix of a workload row's ``source`` when its document carries merged file sizes."""


def shown_source(source: str) -> str:
    """A stored workload's source in words: ``interval`` for one of two samples (``collect --interval``)."""
    base = source.removesuffix(SIZED)
    return ("interval" if base in ("snapshots", "snapshot") else base) + source[len(base):]


@dataclass(frozen=True, slots=True)
class WorkloadRow:
    """One stored workload: what the row's columns say, and the document's text."""

    instance_id: str
    started_at: dt.datetime
    ended_at: dt.datetime
    source: str
    interval_s: float
    text: str


_WORKLOADS = """
SELECT DISTINCT ON (w.instance_id, w.started_at, w.ended_at)
       w.instance_id, i.dbms, i.host, i.name, w.started_at, w.ended_at, w.source, w.interval_s
FROM advisor.workloads w JOIN advisor.instances i USING (instance_id)
WHERE w.ended_at >= %(since)s AND w.ended_at <= %(until)s {only}
ORDER BY w.instance_id, w.started_at, w.ended_at, (w.source LIKE '%%+sizes') DESC, w.pushed_at DESC, w.source
"""
"""Per instance and interval one workload: the one with sizes when the import was pushed again with them."""


def workload_rows(conn: psycopg.Connection[Any], since: dt.datetime, until: dt.datetime,
                  only: str | None) -> list[tuple[str, str, str, str, dt.datetime, dt.datetime, str, float]]:
    """(instance, dbms, host, name, started, ended, source, interval) of each workload ending in the range."""
    query = _WORKLOADS.format(only="AND w.instance_id = %(only)s" if only else "")
    rows = conn.execute(query, {"since": since, "until": until, "only": only}).fetchall()
    return [(str(k), str(d), str(h), str(n), s, e, str(src), float(iv)) for k, d, h, n, s, e, src, iv in rows]


def fetch_workloads(conn: psycopg.Connection[Any], key: str,
                    spans: list[tuple[dt.datetime, dt.datetime, str]]) -> list[WorkloadRow]:
    """The documents of the workloads *spans* name (started, ended, source), in time order."""
    if not spans:
        return []
    rows = conn.execute(
        "SELECT started_at, ended_at, source, interval_s, document::text FROM advisor.workloads "
        "WHERE instance_id = %(id)s AND (started_at, ended_at, source) IN (SELECT * FROM unnest("
        "%(s)s::timestamptz[], %(e)s::timestamptz[], %(src)s::text[])) ORDER BY started_at, ended_at",
        {"id": key, "s": [s for s, _e, _src in spans], "e": [e for _s, e, _src in spans],
         "src": [src for _s, _e, src in spans]}).fetchall()
    return [WorkloadRow(key, s, e, str(src), float(iv), str(text)) for s, e, src, iv, text in rows]


def decode_workload(row: WorkloadRow) -> Workload | str:
    """The row's workload, or why it cannot be used (one line naming the row)."""
    where = f"repository workload {row.instance_id} {row.started_at.isoformat()} .. {row.ended_at.isoformat()}"
    try:
        item = load_bytes(row.text.encode("utf-8"), where)
    except BadInput as exc:
        return exc.one_line()
    work = item.document
    if not isinstance(work, Workload):
        return f"{where}: the document is a {item.kind}, not a workload"
    if instance_id(work.server) != row.instance_id:
        return f"{where}: the document is a workload of {instance_id(work.server)}"
    if not _same_interval(work, row):
        return f"{where}: the document says {work.started_at} .. {work.ended_at}"
    return work


def _same_interval(work: Workload, row: WorkloadRow) -> bool:
    """The document's interval is the row's: the same instants, or (times without a zone, as
    AWR prints the database's local time, which the repository read in its own zone) the same length."""
    try:
        started, ended = dt.datetime.fromisoformat(work.started_at), dt.datetime.fromisoformat(work.ended_at)
    except ValueError:
        return False
    if started.tzinfo is None or ended.tzinfo is None:
        return ended - started == row.ended_at - row.started_at
    return started == row.started_at and ended == row.ended_at


def db_iops(work: Workload) -> float:
    """Database reads and writes per second over every file of *work*."""
    return sum(r.read_iops + (r.write_iops or 0.0) for r in work.rates)


def all_workloads(windows: list[WindowAdvice], min_gain: float) -> WindowAdvice | None:
    """The instance's whole evidence when it is workloads only: their sums per hour of their intervals.

    A verdict holds for the sum only when every workload has one that ranks: one workload
    without sizes makes the sum ``sizes unknown`` (its saving is not known). The sum is judged
    as a period is (:func:`advisor.fleet.model.summed_window`).
    """
    if not windows:
        return None
    seconds = sum(w.interval_s for w in windows)
    reads, waits = [w.read_s_per_h for w in windows], [w.io_wait_share for w in windows]
    sums = Sums(
        seconds, sum(w.db_iops * w.interval_s for w in windows),
        sum((s or 0.0) * w.interval_s for s, w in zip(waits, windows, strict=True))
        if all(s is not None for s in waits) else None,
        sum((r or 0.0) * w.interval_s for r, w in zip(reads, windows, strict=True))
        if all(r is not None for r in reads) else None,
        all(w.planned for w in windows),
        sum(w.saved_s_per_h * w.interval_s / 3600.0 / w.saved_share for w in windows if w.saved_share),
        sum(w.saved_s_per_h * w.interval_s / 3600.0 for w in windows))
    verdicts = {w.verdict for w in windows}
    verdict: Verdict = next((v for v in ("sizes unknown", "no plan") if v in verdicts), "saves")
    summed = summed_window(
        "all workloads", min(w.started_at for w in windows), max(w.ended_at for w in windows), sums,
        verdict=verdict, min_gain=min_gain, source=", ".join(sorted({w.source for w in windows})),
        findings=tuple(dict.fromkeys(f for w in windows for f in w.findings)), note="")
    return replace(summed, note=next((w.note for w in windows if w.verdict == summed.verdict and w.note), ""))
