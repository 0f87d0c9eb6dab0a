"""Instances advised by the engine over their busiest windows and the whole period: ``fleet show``
and the detail rows of ``fleet report`` (whose ranking is SQL over the summaries, :mod:`advisor.fleet.rank`).

Per instance, the repository's per-snapshot totals (extracted at push time) give the IO
count of every consecutive snapshot pair without opening a document; the ``windows`` pairs
with the highest IO rate are the busiest windows. Those pairs, and the whole period (the
first snapshot since the last restart to the last one), are turned into workloads by the
ordinary :func:`advisor.rates.workload.diff` and advised by the ordinary
:func:`advisor.engine.advise.advise`: the fleet report says nothing a per-instance
``advisor report`` on the same snapshots would not.

Workloads stored in the repository (AWR/Statspack imports, ``collect --interval``) are
evidence too: each is advised as it stands (:mod:`advisor.fleet.workloads`), and an
instance without snapshots is ranked on the sum of its workloads.

"Time saved" is disk service time: the plan's per-area IOPS x (before - after) ms, in
seconds per hour of the window, and as a share of the time before. Only a saving worth a
migration is ranked as one; the order of the other verdicts (sizes unknown, no change worth
making, nothing to gain, no plan) is :func:`advisor.fleet.model.rank_key`'s.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import psycopg

from advisor import __version__
from advisor.engine.advise import Models, advise
from advisor.engine.worth import MIN_GAIN
from advisor.errors import AdvisorError
from advisor.fleet.documents import Documents, Stored, Unreadable, Wanted, fetch
from advisor.fleet.model import (
    FLEET_FORMAT_VERSION,
    FleetReport,
    InstanceAdvice,
    WindowAdvice,
    rank_key,
)
from advisor.fleet.queries import resolve_instance
from advisor.fleet.window import Judging, judged_window, window_request
from advisor.fleet.workloads import (
    WorkloadRow,
    all_workloads,
    db_iops,
    decode_workload,
    fetch_workloads,
    shown_source,
    workload_rows,
)
from advisor.model import Report, Snapshot, Workload
from advisor.rates.workload import diff
from advisor.repo.comparable import misdated
from advisor.repo.connection import translate
from advisor.repo.documents import instance_id
from advisor.sizes.need import missing_sizes_line

Span = tuple[dt.datetime, dt.datetime, str]  # a stored workload: started, ended, source


@dataclass
class _Timeline:
    """What the repository's extracted columns say about one instance's snapshots and workloads."""

    instance_id: str
    dbms: str
    host: str
    name: str
    taken: list[dt.datetime] = field(default_factory=list)
    started: list[str] = field(default_factory=list)
    ios: list[int] = field(default_factory=list)
    workloads: list[Span] = field(default_factory=list)

    def pairs(self) -> list[tuple[float, int, int]]:
        """(IO rate, i, i+1) of every consecutive pair with comparable counters (none touches a
        snapshot out of order with its neighbours: a clock step would make its rate false)."""
        out: list[tuple[float, int, int]] = []
        misplaced = self.misdated()
        for i in range(len(self.taken) - 1):
            seconds = (self.taken[i + 1] - self.taken[i]).total_seconds()
            delta = self.ios[i + 1] - self.ios[i]
            if i in misplaced or i + 1 in misplaced:
                continue
            if seconds > 0 and delta >= 0 and self.started[i] == self.started[i + 1]:
                out.append((delta / seconds, i, i + 1))
        return out

    def misdated(self) -> set[int]:
        """Snapshots whose counters put them elsewhere in time than their date (:func:`misdated`)."""
        return misdated(self.ios, self.started)

    def without(self, taken: dt.datetime) -> _Timeline:
        """The same timeline less the snapshot taken at *taken* (a row that cannot be used)."""
        keep = [i for i, t in enumerate(self.taken) if t != taken]
        return _Timeline(self.instance_id, self.dbms, self.host, self.name, [self.taken[i] for i in keep],
                         [self.started[i] for i in keep], [self.ios[i] for i in keep], self.workloads)

    def period(self) -> tuple[int, int] | None:
        """First snapshot after the last restart, and the last snapshot."""
        last = len(self.taken) - 1
        first = last
        while first > 0 and self.started[first - 1] == self.started[last]:
            first -= 1
        return (first, last) if first < last else None

    def evidence(self) -> str:
        """What the instance's advice rests on, in words: snapshots, workloads and their sources."""
        parts = [f"{len(self.taken)} snapshot{'s' if len(self.taken) > 1 else ''}"] if self.taken else []
        if self.workloads:
            sources = ", ".join(sorted({shown_source(s.removesuffix("+sizes")) for _a, _b, s in self.workloads}))
            parts.append(f"{len(self.workloads)} workload{'s' if len(self.workloads) > 1 else ''} ({sources})")
        return "; ".join(parts)


_TIMELINES = """
SELECT s.instance_id, i.dbms, i.host, i.name, s.taken_at, s.server_started_at, s.reads::numeric + s.writes
FROM advisor.snapshots s JOIN advisor.instances i USING (instance_id)
WHERE s.taken_at >= %(since)s AND s.taken_at <= %(until)s {only}
ORDER BY s.instance_id, s.taken_at
"""


def _timelines(conn: psycopg.Connection[Any], since: dt.datetime, until: dt.datetime,
               only: str | None) -> list[_Timeline]:
    query = _TIMELINES.format(only="AND s.instance_id = %(only)s" if only else "")
    rows = conn.execute(query, {"since": since, "until": until, "only": only}).fetchall()
    lines: dict[str, _Timeline] = {}
    for key, dbms, host, name, taken, started, ios in rows:
        line = lines.setdefault(key, _Timeline(key, dbms, host, name))
        line.taken.append(taken)
        line.started.append(started)
        line.ios.append(int(ios))
    for key, dbms, host, name, begun, ended, source, _interval in workload_rows(conn, since, until, only):
        lines.setdefault(key, _Timeline(key, dbms, host, name)).workloads.append((begun, ended, source))
    return sorted(lines.values(), key=lambda line: line.instance_id)


def _windows(line: _Timeline, windows: int) -> list[tuple[str, int, int, float]]:
    """(label, first, last, IO rate) of the whole period, then of the busiest windows in time order."""
    span = line.period()
    if span is None:
        return []
    seconds = (line.taken[span[1]] - line.taken[span[0]]).total_seconds()
    out = [("period", span[0], span[1], (line.ios[span[1]] - line.ios[span[0]]) / seconds)]
    top = sorted(line.pairs(), reverse=True)[:windows]
    out += [(f"busiest {n}", i, j, rate) for n, (rate, i, j) in enumerate(sorted(top, key=lambda p: p[1]), start=1)]
    return out


def _wanted(line: _Timeline, windows: int) -> set[Wanted]:
    """The documents advising *line* reads; a snapshot wanted whole also serves as an earlier one."""
    pairs = [(line.taken[i], line.taken[j]) for _label, i, j, _rate in _windows(line, windows)]
    whole = {later for _earlier, later in pairs} | {line.taken[i] for i in line.misdated()}  # read to be believed
    earlier = {first for first, _later in pairs} - whole
    return {(t, True) for t in whole} | {(t, False) for t in earlier}


def _fetch_instance(conn: psycopg.Connection[Any], line: _Timeline,
                    windows: int) -> tuple[dict[Wanted, Stored], list[WorkloadRow]]:
    """Every document advising *line* needs: the snapshots of its windows and all its workloads."""
    return fetch(conn, line.instance_id, _wanted(line, windows)), fetch_workloads(conn, line.instance_id,
                                                                                  line.workloads)


def _advice(label: str, a: Snapshot, b: Snapshot, rate: float, models: Models, judging: Judging,
            scripts: bool = False) -> tuple[WindowAdvice, Report]:
    """One window advised; *scripts* only for a drill-down (formatting SQL is a third of a ranking's time)."""
    work = diff(a, b, allow_reset=True)
    report = advise(window_request(work, models, judging, scripts=scripts))
    return judged_window(label, work, report, rate, a.taken_at, b.taken_at, "snapshots"), report


def _workload_advice(label: str, row: WorkloadRow, work: Workload, models: Models, judging: Judging,
                     scripts: bool) -> tuple[WindowAdvice, Report]:
    """One stored workload advised as ``advisor report --workload`` would: no plan on unknown sizes."""
    no_sizes = missing_sizes_line(work)
    if no_sizes is not None:
        no_sizes += ("; then push the import again: `advisor collect --from-report REPORT --sizes FILE --push "
                     "REPO`")
    report = advise(window_request(work, models, judging, scripts=scripts, no_plan=no_sizes))
    return judged_window(label, work, report, db_iops(work), work.started_at, work.ended_at,
                   shown_source(row.source)), report


def advise_instance(line: _Timeline, docs: Documents, models: Models, windows: int, judging: Judging,
                    keep: Callable[[str, Report], None] | None = None,
                    stored: Sequence[WorkloadRow] = ()) -> InstanceAdvice:
    """The period and busiest windows of one instance (``keep`` receives each full report).

    A row that cannot be used (:class:`~advisor.fleet.documents.Unreadable`) is left
    out by name and the windows are chosen again from the other snapshots.
    """
    skipped: list[str] = []
    while True:
        try:
            return _advise_line(line, docs, models, windows, judging, keep, tuple(skipped), stored)
        except Unreadable as exc:
            skipped.append(exc.why)
            line = line.without(exc.taken)


def _advise_line(line: _Timeline, docs: Documents, models: Models, windows: int, judging: Judging,
                 keep: Callable[[str, Report], None] | None, skipped: tuple[str, ...],
                 stored: Sequence[WorkloadRow]) -> InstanceAdvice:
    warnings: list[str] = []
    period: WindowAdvice | None = None
    busiest: list[WindowAdvice] = []
    reports: list[tuple[str, Report]] = []
    span = line.period()
    if span is None and line.taken:
        warnings.append("fewer than two comparable snapshots in the period: nothing to advise")
    elif span is not None and span[0] > 0:
        warnings.append(f"restarted at {line.started[span[1]]}: the period starts at {line.taken[span[0]]}")
    for i in sorted(line.misdated()):
        docs.get([line.taken[i]])  # a row that is not what it claims is skipped and named, not taken for a clock step
        warnings.append(f"clock: the snapshot dated {line.taken[i].isoformat()} is out of order with its "
                        "neighbours' IO counters (a clock stepped back, or a relation dropped); the intervals "
                        "around it are left out of the busiest windows")
    for label, i, j, rate in _windows(line, windows):
        a, b = docs.get([line.taken[i], line.taken[j]])
        window, report = _advice(label, a, b, rate, models, judging, keep is not None)
        if label == "period":
            period = window
        else:
            busiest.append(window)
        reports.append((label, report))
    advised: list[WindowAdvice] = []
    unusable: list[str] = []
    for row in stored:
        work = decode_workload(row)
        if isinstance(work, str):
            unusable.append(work)
            continue
        window, report = _workload_advice(f"workload {len(advised) + 1}", row, work, models, judging,
                                          keep is not None)
        advised.append(window)
        reports.append((window.label, report))
    shown = sorted(sorted(advised, key=lambda w: -w.db_iops)[:max(windows, 1)], key=lambda w: w.started_at)
    busiest += shown
    if period is None:
        period = all_workloads(advised, judging.min_gain)
    if keep is not None:
        for label, report in reports:
            keep(label, report)
    first = min([t.isoformat() for t in line.taken] + [w.started_at for w in advised], default="")
    last = max([t.isoformat() for t in line.taken] + [w.ended_at for w in advised], default="")
    return InstanceAdvice(line.instance_id, line.dbms, line.host, line.name, len(line.taken), first, last, period,
                          tuple(busiest), tuple(warnings), skipped=(*skipped, *unusable), workloads=len(advised),
                          evidence=line.evidence())


def _advise_all(conn: psycopg.Connection[Any], lines: Sequence[_Timeline], models: Models, windows: int,
                judging: Judging, keep: Callable[[str, Report], None] | None,
                strict: bool) -> list[InstanceAdvice]:
    """Advise *lines* one after the other on *conn*; an instance that fails is reported, not fatal.

    The next instance's documents are fetched by a second thread while this one is advised:
    the server's work (reading and printing the jsonb, about a third of the time) then runs
    on another core beside the engine's instead of before it. Only that thread uses *conn*
    while the loop runs.
    """
    from concurrent.futures import Future, ThreadPoolExecutor

    results: list[InstanceAdvice] = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="fleet-fetch") as fetcher:
        def prefetch(line: _Timeline) -> Future[tuple[dict[Wanted, Stored], list[WorkloadRow]]]:
            return fetcher.submit(_fetch_instance, conn, line, windows)

        def more(key: str) -> Callable[[set[Wanted]], dict[Wanted, Stored]]:
            """Documents a window chosen again needs, fetched by the same thread after the prefetch."""
            return lambda wanted: fetcher.submit(fetch, conn, key, wanted).result()

        upcoming = prefetch(lines[0]) if lines else None
        for n, line in enumerate(lines):
            assert upcoming is not None
            texts, stored = upcoming.result()
            upcoming = prefetch(lines[n + 1]) if n + 1 < len(lines) else None
            try:
                docs = Documents(line.instance_id, texts, more(line.instance_id))
                results.append(advise_instance(line, docs, models, windows, judging, keep, stored))
            except AdvisorError as exc:
                if strict:
                    raise
                at = [t.isoformat() for t in line.taken] or [""]
                results.append(InstanceAdvice(line.instance_id, line.dbms, line.host, line.name, len(line.taken),
                                              at[0], at[-1], None, (), (exc.one_line(),),
                                              workloads=len(line.workloads), evidence=line.evidence()))
    return results


def fleet_report(conn: psycopg.Connection[Any], models: Models, *, since: dt.datetime, until: dt.datetime,
                 windows: int = 2, force: bool = False, only: str | None = None,
                 keep: Callable[[str, Report], None] | None = None, min_gain: float = MIN_GAIN) -> FleetReport:
    """Advise every instance (or *only* one) with snapshots or workloads in [since, until] by the engine.

    ``fleet show`` (its one instance) and ``fleet report``'s detail rows use it; the ranking itself
    is made by SQL over the interval summaries (:func:`advisor.fleet.rank.rank_fleet`).
    """
    judging = Judging(force, min_gain, dt.datetime.now(dt.UTC))
    try:
        lines = _timelines(conn, since, until, only)
        results = _advise_all(conn, lines, models, windows, judging, keep, strict=only is not None)
    except psycopg.Error as exc:
        raise translate(exc, "reading the repository") from None
    ranked = sorted(results, key=rank_key)
    return FleetReport(
        generated_at=judging.at.isoformat(timespec="seconds"),
        since=since.isoformat(timespec="seconds"), until=until.isoformat(timespec="seconds"), windows=windows,
        instances=tuple(replace(item, rank=n) for n, item in enumerate(ranked, start=1)),
        tool_version=__version__, min_gain=min_gain,
    )


__all__ = ["FLEET_FORMAT_VERSION", "FleetReport", "InstanceAdvice", "Judging", "WindowAdvice", "fleet_report",
           "instance_id", "resolve_instance"]
