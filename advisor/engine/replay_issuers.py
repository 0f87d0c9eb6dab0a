"""Whose requests a replay served: per database, per server process, and the kernel's own.

The replay's areas say where the requests went; a DBA with several databases on one disk also
asks whose work gains. A trace names each request's pid, and ``collect --trace`` names the
pids the collector saw among the server's processes while it sampled the interval
(:func:`advisor.collect.trace.named_processes`): the database each served and what it is. The
requests are then grouped by issuer:

* a client backend: its **database**; another process that served a database (a parallel
  worker, an autovacuum worker): the database and its role, ``postgres (parallel worker)``,
  so a parallel scan's workers are not taken for the sessions that wait on them;
* a server process serving none (the checkpointer, the WAL writer, the background writer,
  PostgreSQL 18's IO workers, which read for every database): its **role**;
* a process the server never showed: **not named** (the kernel's flushers and the file
  system's journal, or a server process that came and went between two samples: which of
  them it was the trace cannot say, so none is called the server's or not).

A cache flush is issued by the block layer's worker, not by whoever waits for it: it counts with
the write it follows (its owner, :func:`advisor.trace.links.flush_owners`), as in the areas.

The figures are the replay's, per read or write with the flushes they own: measured, replayed
today, replayed under the plan. The replay keeps every traced request, so on a saturated disk
these say how much faster each issuer's requests are served at the same work. What a saturated
disk gives is more work at the same concurrency, and which database takes the time a plan
frees: each database's **rate**, its requests per session-second (its requests over the
seconds each of its sessions was active, first issue to last completion), measured, replayed
today and replayed under the plan. Each session is a closed loop in the replay, so a session
whose requests are served sooner sends the next sooner and ends its traced work earlier: its
rate rises by as much as it would do more work in the measured interval, and a database that
loses the drive to the others' faster loops sees its rate fall. Where several databases share
the disk, a rate counts only the requests completed and the seconds spent while every one of
them has a session at work (:func:`common_window`): a replay keeps the traced work, so a
database whose loops run faster under the plan ends early, and the others would then have the
drive to themselves, which they never have while it keeps working (on the accuracy suite's
three databases that put the catalogue's planned figure 11 points lower on average, toward the
loss measured). The replayed rate against the measured one is its self-check (docs/report.md).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from advisor.model import ReplayIssuer, TraceProcess
from advisor.model.report import IssuerKind

NOT_NAMED = "not named"
CLIENT = "client backend"


def issuer_of(process: TraceProcess) -> tuple[str, IssuerKind] | None:
    """(issuer, kind) of a named process; None for one the collector did not see.

    >>> issuer_of(TraceProcess(7, "postgres", "ledger", "client backend"))
    ('ledger', 'database')
    >>> issuer_of(TraceProcess(9, "postgres", "ledger", "parallel worker"))
    ('ledger (parallel worker)', 'database')
    >>> issuer_of(TraceProcess(8, "postgres", None, "checkpointer"))
    ('checkpointer', 'server process')
    """
    if process.role is None:
        return None
    if process.database is not None:
        return (process.database if process.role == CLIENT else f"{process.database} ({process.role})"), "database"
    return process.role, "server process"


def named(processes: Sequence[TraceProcess]) -> bool:
    """Whether the collector named any process of the trace (else no issuer rows: they would all be unknown)."""
    return any(p.role is not None for p in processes)


def indexes_table(processes: Sequence[TraceProcess], process: np.ndarray) -> bool:
    """Whether every request's *process* indexes the trace's process table (a pid to name or match).

    >>> indexes_table([TraceProcess(7, "postgres")], np.array([0, 1]))
    False
    """
    return bool(len(process) == 0 or (int(process.min()) >= 0 and int(process.max()) < len(processes)))


def issuer_names(processes: Sequence[TraceProcess], process: np.ndarray, owners: np.ndarray,
                 data: np.ndarray) -> tuple[np.ndarray, dict[str, IssuerKind]] | None:
    """Per request its issuer's name (a flush its owning write's; "" for a flush with none) and each name's
    kind; None when no process is named or *process* does not index *processes*.

    >>> names, kinds = issuer_names([TraceProcess(7, "postgres", "ledger", "client backend"), TraceProcess(3, "kw")],
    ...                             np.array([0, 1, 1]), np.array([-1, 0, -1]), np.array([True, False, False]))
    >>> names.tolist(), kinds["ledger"]
    (['ledger', 'ledger', ''], 'database')
    """
    if not named(processes) or not indexes_table(processes, process):
        return None
    unnamed: tuple[str, IssuerKind] = (NOT_NAMED, "not named")
    labels = [issuer_of(p) or unnamed for p in processes]
    names = np.array([label for label, _ in labels], dtype=object)[process]
    names = np.where(owners >= 0, names[np.maximum(owners, 0)], np.where(data, names, ""))
    return names, dict(labels)


Timeline = tuple[np.ndarray, np.ndarray]
"""Issue and completion times (seconds) of every request of a stream, in its order."""


@dataclass(frozen=True)
class Timelines:
    """The times a rate is taken from: as traced, and per rotational phase replayed today and planned;
    *sessions*, per database, the requests of its client sessions (:func:`client_sessions`): the
    databases that get a rate, each counted only while every one of them has a session at work
    (:func:`common_window`)."""

    measured: Timeline
    today: Sequence[Timeline]
    planned: Sequence[Timeline] | None = None
    sessions: Mapping[str, np.ndarray] = field(default_factory=dict)


def client_sessions(processes: Sequence[TraceProcess], process: np.ndarray, names: np.ndarray,
                    data: np.ndarray) -> dict[str, np.ndarray]:
    """Per database whose client backends sent requests, the mask of those requests (reads and
    writes): the sessions whose loops compete for the disk, the ones a rate is taken of. A parallel
    or autovacuum worker comes and goes inside a session and is not one: its requests per second of
    its own short life say nothing of a loop (on the accuracy suite's mixed workload a scan's
    workers' replayed rate missed their measured one by 15-59 % on three of six runs, where the
    sessions' own was within 7 %).

    >>> procs = [TraceProcess(7, "postgres", "ledger", "client backend"),
    ...          TraceProcess(9, "postgres", "ledger", "parallel worker")]
    >>> names = np.array(["ledger", "ledger (parallel worker)", "ledger"], dtype=object)
    >>> {db: m.tolist() for db, m in client_sessions(procs, np.array([0, 1, 0]), names, np.ones(3, dtype=bool)).items()}
    {'ledger': [True, False, True]}
    """
    client = np.array([p.role == CLIENT and p.database is not None for p in processes], dtype=bool)[process] & data
    return {db: client & (names == db) for db in sorted({str(n) for n in names[client].tolist()})}


def _spans(process: np.ndarray, requests: np.ndarray, times: Timeline) -> tuple[np.ndarray, np.ndarray]:
    """Per process of *requests*, its first issue and last completion among them."""
    issue, complete = times
    sessions, which = np.unique(process[requests], return_inverse=True)
    first = np.full(len(sessions), np.inf)
    last = np.full(len(sessions), -np.inf)
    np.minimum.at(first, which, issue[requests])
    np.maximum.at(last, which, complete[requests])
    return first, last


def _union(first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """The intervals [first, last] merged where they overlap (k x 2, in order)."""
    order = np.argsort(first, kind="stable")
    first, last = first[order], np.maximum.accumulate(last[order])
    starts = np.r_[True, first[1:] > last[:-1]]
    ends = np.r_[starts[1:], True]
    return np.column_stack((first[starts], last[ends]))


def _covered_by_all(unions: Sequence[np.ndarray]) -> np.ndarray:
    """The intervals (k x 2) inside one interval of every list of *unions* (each sorted and disjoint): a sweep
    over their bounds, linear in them after a sort (thousands of short sessions a database make as many)."""
    bounds = np.concatenate([u.ravel() for u in unions])
    step = np.concatenate([np.tile([1, -1], len(u)) for u in unions])
    order = np.lexsort((step, bounds))  # at one instant an end before a start: touching is not overlapping
    at, inside = bounds[order], np.cumsum(step[order])
    full = np.flatnonzero((inside[:-1] == len(unions)) & (at[1:] > at[:-1]))
    return np.column_stack((at[full], at[full + 1])) if len(full) else np.empty((0, 2))


def common_window(process: np.ndarray, sessions: Sequence[np.ndarray], times: Timeline) -> np.ndarray | None:
    """The intervals (k x 2) in which every database of *sessions* has a session at work; None for
    fewer than two databases (one database's rate is over its own sessions' time).

    A replay keeps the traced work: a database whose loops run faster under a plan ends its work
    early, and the others would then have the disk to themselves, which no layout gives them while
    every database keeps working. Rates taken over the window compare the databases while they compete.

    >>> times = (np.array([0.0, 5.0, 1.0, 9.0]), np.array([1.0, 6.0, 2.0, 10.0]))
    >>> common_window(np.array([0, 0, 1, 1]), [np.array([True, True, False, False]),
    ...                                        np.array([False, False, True, True])], times).tolist()
    [[1.0, 6.0]]
    >>> times = (np.array([0.0, 5.0, 0.5, 5.5]), np.array([1.0, 6.0, 2.0, 10.0]))  # four sessions
    >>> common_window(np.array([0, 1, 2, 3]), [np.array([True, True, False, False]),
    ...                                        np.array([False, False, True, True])], times).tolist()
    [[0.5, 1.0], [5.5, 6.0]]
    """
    groups = [mask for mask in sessions if mask.any()]
    if len(groups) < 2:
        return None
    return _covered_by_all([_union(*_spans(process, mask, times)) for mask in groups])


WINDOW_SHARE = 0.25
"""A database decides the common window when its sessions were at work this share of the traced span or more: a
workload that runs through a good part of the trace, not a probe that came for a moment."""


def window_sessions(process: np.ndarray, timelines: Timelines) -> list[np.ndarray]:
    """The sessions of the databases that decide the common window (:func:`common_window`): those whose sessions
    were at work :data:`WINDOW_SHARE` of the traced span or more, as traced. A database that came for a moment (a
    monitoring probe, a one-off job in another database) would otherwise shrink the window to that moment, and
    every rate and time of the disk to the few requests completed in it.

    >>> times = (np.array([0.0, 9.0, 4.0]), np.array([9.0, 10.0, 4.5]))
    >>> [m.tolist() for m in window_sessions(np.array([0, 0, 1]), Timelines(times, [], None, {
    ...     "shop": np.array([True, True, False]), "probe": np.array([False, False, True])}))]
    [[True, True, False]]
    """
    issue, complete = timelines.measured
    span = float(complete.max() - issue.min()) if len(issue) else 0.0
    kept = []
    for mask in timelines.sessions.values():
        if mask.any():
            spans = _union(*_spans(process, mask, timelines.measured))
            if float((spans[:, 1] - spans[:, 0]).sum()) >= WINDOW_SHARE * span:
                kept.append(mask)
    return kept


def _covered_before(at: np.ndarray, window: np.ndarray) -> np.ndarray:
    """Per instant of *at*, the seconds of *window* (sorted, disjoint intervals) before it."""
    lengths = window[:, 1] - window[:, 0]
    before = np.r_[0.0, np.cumsum(lengths)]
    k = np.searchsorted(window[:, 0], at, side="right") - 1
    into = np.clip(at - window[np.maximum(k, 0), 0], 0.0, lengths[np.maximum(k, 0)])
    covered: np.ndarray = np.where(k >= 0, before[np.maximum(k, 0)] + into, 0.0)
    return covered


def session_seconds(process: np.ndarray, requests: np.ndarray, times: Timeline,
                    window: np.ndarray | None = None) -> float:
    """The sum, per process of *requests*, of the time from its first issue to its last completion among
    them; inside *window* (intervals, :func:`common_window`) when given.

    >>> process, times = np.array([0, 0, 1, 1]), (np.array([0.0, 1.0, 0.0, 3.0]), np.array([1.0, 2.0, 1.0, 4.0]))
    >>> session_seconds(process, np.ones(4, dtype=bool), times)  # 2 s + 4 s
    6.0
    >>> session_seconds(process, np.ones(4, dtype=bool), times, np.array([[1.0, 3.0]]))  # 1 s + 2 s
    3.0
    """
    if not requests.any():
        return 0.0
    first, last = _spans(process, requests, times)
    if window is None:
        return float((last - first).sum())
    if not len(window):
        return 0.0
    return float((_covered_before(last, window) - _covered_before(first, window)).sum())


def session_rate(process: np.ndarray, requests: np.ndarray, times: Timeline,
                 sessions: Collection[np.ndarray] = ()) -> float | None:
    """Requests of *requests* per second of their sessions' activity (:func:`session_seconds`); None for none.
    With *sessions* of two databases or more, only the requests completed and the seconds spent while
    every one of them works (:func:`common_window`) count.

    >>> process, times = np.array([0, 0, 1, 1]), (np.array([0.0, 1.0, 0.0, 3.0]), np.array([1.0, 2.0, 1.0, 4.0]))
    >>> session_rate(process, np.ones(4, dtype=bool), times)  # 4 requests over 2 s + 4 s
    0.6667
    """
    return rate_in(process, requests, times, common_window(process, list(sessions), times))


def rate_in(process: np.ndarray, requests: np.ndarray, times: Timeline, window: np.ndarray | None) -> float | None:
    """:func:`session_rate` inside a *window* already found (:func:`common_window`; None: the whole spans), for a
    caller that takes the rates of several databases on one timeline: the window is the same for each."""
    if window is not None and not len(window):
        return None
    seconds = session_seconds(process, requests, times, window)
    if window is None:
        counted = float(requests.sum())
    else:
        inside = in_window(times[1][requests], window)
        counted = float(inside.sum()) if inside is not None else 0.0
    return round(counted / seconds, 4) if seconds > 0 else None


def phase_mean(values: Sequence[float | None]) -> float | None:
    """The mean of one figure over the rotational phases replayed; None unless every phase has it.

    >>> phase_mean([0.5, 0.25]), phase_mean([0.5, None])
    (0.375, None)
    """
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 4) if known and len(known) == len(values) else None


def phase_rates(process: np.ndarray, requests: np.ndarray, times: Sequence[Timeline],
                windows: Sequence[np.ndarray | None]) -> list[float | None]:
    """:func:`rate_in` of each phase's timeline in its window (:class:`Windowed`): the phases' mean is a database's
    rate (:func:`phase_mean`), today's and the plan's side by side its change (:func:`rate_changes`)."""
    return [rate_in(process, requests, t, w) for t, w in zip(times, windows, strict=True)]


def rate_changes(today: Sequence[float | None], planned: Sequence[float | None]) -> tuple[float, float] | None:
    """The least and the most a database's planned rate changes against today's over the rotational phases, each
    phase's planned rate against the same phase's today (:func:`phase_rates`); None unless every phase has both.
    Where every phase moves the same way beyond the replay's tolerance, the direction holds whatever phase the
    drive was at (:mod:`advisor.engine.replay_loops`).

    >>> rate_changes([1.0, 1.0], [2.0, 1.0]), rate_changes([1.0, None], [2.0, 1.0]), rate_changes([1.0], [2.0, 1.0])
    ((0.0, 1.0), None, None)
    """
    if len(today) != len(planned):
        return None
    changes = [new / old - 1.0 for old, new in zip(today, planned, strict=True) if old and new is not None]
    if not changes or len(changes) != len(today):
        return None
    return round(min(changes), 4), round(max(changes), 4)


def issuer_rows(processes: Sequence[TraceProcess], process: np.ndarray, owners: np.ndarray, data: np.ndarray,
                flushes_timed: np.ndarray, measured_s: np.ndarray, today: Sequence[np.ndarray],
                planned: Sequence[np.ndarray] | None,
                flush_waits_s: np.ndarray | None = None,
                timelines: Timelines | None = None) -> tuple[ReplayIssuer, ...]:
    """One row per issuer of the requests (see the module docstring), in order of measured time, most first.

    *process* indexes *processes* per request; *owners* is each flush's owning write (-1: none);
    *data* marks the reads and writes, *flushes_timed* the flushes whose time counts; *measured_s*
    the traced times, *today* and *planned* each phase's replayed times (None: no plan);
    *flush_waits_s* each request's traced wait behind a cache flush
    (:func:`advisor.engine.replay_barriers.behind_flushes`; None: not measured); *timelines* the
    issue and completion times a database's rate is taken from (None: no rates)."""
    found = issuer_names(processes, process, owners, data)
    if found is None:
        return ()  # nothing named, or a process column that does not index the table: no issuer to tell
    return named_issuer_rows(found, process, data, flushes_timed, measured_s, today, planned, flush_waits_s,
                             timelines)


def named_issuer_rows(found: tuple[np.ndarray, dict[str, IssuerKind]], process: np.ndarray, data: np.ndarray,
                      flushes_timed: np.ndarray, measured_s: np.ndarray, today: Sequence[np.ndarray],
                      planned: Sequence[np.ndarray] | None,
                      flush_waits_s: np.ndarray | None = None,
                      timelines: Timelines | None = None,
                      within: Windowed | None = None) -> tuple[ReplayIssuer, ...]:
    """:func:`issuer_rows` of requests whose issuers :func:`issuer_names` already *found* (names, kinds),
    for a caller that needs the names too; *within*, each timeline's requests an issuer's times are taken of
    (:func:`windowed_requests`; None: every request)."""
    names, kinds = found
    rows = []
    # the databases' common windows, found once for every issuer's rate (and, given *within*, its times)
    windows = None if timelines is None else within if within is not None else windowed_requests(process, timelines)
    for issuer in sorted({n for n in names.tolist() if n}):
        mask, flushes = data & (names == issuer), flushes_timed & (names == issuer)
        if not mask.any():
            continue
        measured = per_request_ms([measured_s], mask, flushes, None if within is None else [within.measured])
        replayed = per_request_ms(today, mask, flushes, None if within is None else within.today)
        waits = None if flush_waits_s is None else flush_waits_s[mask]
        # a rate is a closed loop's: a database's client sessions; a server process or a kernel thread runs on
        # its own clock, a parallel worker lives inside a session
        rates = timelines if timelines is not None and issuer in timelines.sessions else None
        today_rates = None if rates is None or windows is None else \
            phase_rates(process, mask, rates.today, windows.today_windows)
        planned_rates = None if rates is None or rates.planned is None or windows is None else \
            phase_rates(process, mask, rates.planned, windows.planned_windows or ())
        changes = None if today_rates is None or planned_rates is None else rate_changes(today_rates, planned_rates)
        rows.append(ReplayIssuer(
            issuer=issuer, kind=kinds[issuer],
            processes=len(set(process[mask].tolist())), requests=int(mask.sum()), measured_ms=measured,
            replayed_ms=replayed, planned_ms=None if planned is None else
            per_request_ms(planned, mask, flushes, None if within is None else within.planned),
            flushes=int(flushes.sum()),
            deviation=round(replayed / measured - 1.0, 4) if measured > 0 else None,
            behind_flush=None if waits is None else round(float(np.mean(waits > 0.0)), 4),
            flush_wait_ms=None if waits is None else round(float(waits.mean()) * 1000.0, 4),
            measured_rate=None if rates is None or windows is None else
            phase_mean(phase_rates(process, mask, [rates.measured], [windows.measured_window])),
            replayed_rate=None if today_rates is None else phase_mean(today_rates),
            planned_rate=None if planned_rates is None else phase_mean(planned_rates),
            rate_change_low=None if changes is None else changes[0],
            rate_change_high=None if changes is None else changes[1]))
    return tuple(sorted(rows, key=lambda r: (-r.measured_ms * r.requests, r.issuer)))


def per_request_ms(values: Sequence[np.ndarray], requests: np.ndarray, flushes: np.ndarray,
                   within: Sequence[np.ndarray | None] | None = None) -> float:
    """The time of *requests* and of the *flushes* they own, per request (ms), the mean over the
    phases of *values* (each phase's times; one element for the measured times); with *within*, each
    phase's requests completed in its databases' common window (:func:`in_window`), where it holds any.

    >>> t = [np.array([0.01, 0.03, 0.05])]
    >>> per_request_ms(t, np.array([True, True, True]), np.zeros(3, dtype=bool))
    30.0
    >>> per_request_ms(t, np.array([True, True, True]), np.zeros(3, dtype=bool), [np.array([False, True, True])])
    40.0
    """
    per_phase = []
    for k, v in enumerate(values):
        keep = within[k] if within is not None else None
        if keep is not None and (requests & keep).any():
            per_phase.append(float(v[(requests | flushes) & keep].sum() / (requests & keep).sum()))
        else:
            per_phase.append(float(v[requests | flushes].sum() / requests.sum()))
    return round(sum(per_phase) / len(per_phase) * 1000.0, 4)


def in_window(done_s: np.ndarray, window: np.ndarray | None) -> np.ndarray | None:
    """Per request, whether it completed (*done_s*) inside *window* (:func:`common_window`); None for none.

    >>> in_window(np.array([0.5, 2.0, 3.5]), np.array([[0.0, 1.0], [3.0, 4.0]])).tolist()
    [True, False, True]
    """
    if window is None:
        return None
    at = np.searchsorted(window[:, 0], done_s, side="right") - 1
    inside: np.ndarray = (at >= 0) & (done_s <= window[np.maximum(at, 0), 1]) if len(window) else \
        np.zeros(len(done_s), dtype=bool)
    return inside


@dataclass(frozen=True)
class Windowed:
    """Per timeline of :class:`Timelines`, its databases' common window (:func:`common_window`; None: one
    database) and which requests completed in it (:func:`in_window`; None: every request counts): a disk's
    rates and its per-area and per-issuer times are taken there (:func:`windowed_requests`)."""

    measured: np.ndarray | None
    today: Sequence[np.ndarray | None]
    planned: Sequence[np.ndarray | None] | None
    measured_window: np.ndarray | None = None
    today_windows: Sequence[np.ndarray | None] = ()
    planned_windows: Sequence[np.ndarray | None] | None = None


def windowed_requests(process: np.ndarray, timelines: Timelines) -> Windowed:
    """The requests of each timeline inside its databases' common window (:func:`common_window`).

    A replay keeps each database's traced work. Under a plan that serves one database faster, its sessions end
    their work early, and a session that starts when traced (the next run of a benchmark, a new connection)
    starts late: between the two the others have the drive to themselves, which a measured run, where every
    database keeps working for the run's length, never gives them. On the accuracy suite's three databases the
    catalogue's last quarter of requests, replayed as applied, ran alone at 15 ms a read where it took 29-32 ms
    while the ledger and the reporting worked, and its replayed gain read +9 % where inside the window it reads
    -15 %, measured -30 % (docs/accuracy.md, after run 35). Per-area and per-issuer times of a disk several
    databases share are therefore taken inside the window, on every timeline alike."""
    sessions = window_sessions(process, timelines)

    def windowed(times: Sequence[Timeline]) -> tuple[list[np.ndarray | None], list[np.ndarray | None]]:
        windows = [common_window(process, sessions, t) for t in times]
        return windows, [in_window(t[1], w) for t, w in zip(times, windows, strict=True)]

    (measured_window,), (measured,) = windowed([timelines.measured])
    today_windows, today = windowed(timelines.today)
    planned_windows, planned = (None, None) if timelines.planned is None else windowed(timelines.planned)
    return Windowed(measured, today, planned, measured_window, today_windows, planned_windows)
