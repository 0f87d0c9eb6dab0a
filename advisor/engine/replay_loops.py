"""Whether the replay's closed loops say what a faster layout gives a saturated disk's sessions.

A saturated disk's clients wait mostly for each other: a faster layout gives them more work at the
same concurrency, not a shorter wait per request. The replay runs each session as a closed loop
(:mod:`advisor.disk.replay`): a session whose requests are served sooner sends its next sooner, so
its rate, requests per session-second (:func:`advisor.engine.replay_issuers.session_rate`), rises
under a faster plan.

That holds while what a session waits for moves with the disk: its own requests, another session's
(the commit of a session that holds the WAL lock, a chunk of a table another session scans in step),
or a cache flush the replay issues after a session's write (:mod:`advisor.trace.links`). A session
that waited for a request on **a clock of its own** (the file system journal's commits every 5 s,
the page writeback's, a background writer's rounds: a process that is no database session, or a
flush the replay issues after such a process's write, :func:`on_own_clock`) keeps that request's
traced pace on any layout. So the planned rates are a prediction only where

* no database's sessions spent :data:`LOOP_WAIT_SHARE` or more of their time so waiting, as traced
  or replayed under the plan (:func:`waits_on_others`);
* every database's replayed rate today is within :data:`RATE_TOLERANCE` of its measured one, the
  loops' self-check (:func:`rate_misses`);
* one database's sessions use the disk. With several, how the drive shares the freed time among
  their loops decides each one's rate, and the replay has not predicted how much each takes: on the
  accuracy suite's three databases (runs 31-43, re-judged) their sessions' time per request changed,
  measured, by +9 to +33 % for the catalogue, -35 to -42 % for the ledger and -14 to -46 % for the
  reporting, where the replay gave -6 to +20 %, -26 to -37 % and -17 to -42 % (docs/accuracy.md, after
  run 43). It does say **which way** each moves where it can tell (``rate_direction``): where every
  rotational phase replayed moves a database's rate by more than :data:`RATE_TOLERANCE` the same way
  (the replay's own error on a rate today, so a smaller change cannot be told from it), and the loops
  pass their self-check and close. On runs 31-50 re-judged, 31 of the 54 databases' rows got a
  direction and all 31 were the measured one; the figures beside them missed the measured time per
  transaction by -27 to +15 points (docs/accuracy.md, after run 50).

The rates of one disk's databases decide each other, so one reason makes every planned rate on that
disk no prediction (``rate_predicted`` false, and a note says which; a shared disk whose loops are sound
gets a second note, its directions). On the suite's single-database
workloads (tpcb-qd1, tpcb-qd8, wal-inserts, two-disks, mixed-oltp-scan, temp sorts) the planned rate's
time for the same work was within 6 points of the measured gain per transaction in 29 of 30 measured
runs (the temp sorts' run 26: 0 % for 10 %). A database's own commits are its own loop: the block
layer's worker issues the flush, but the database's write owns it.
"""
from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np

from advisor.engine.replay_issuers import Timeline, Timelines, phase_mean, session_seconds
from advisor.model import ReplayIssuer
from advisor.model.report import RateDirection

RATE_TOLERANCE = 0.15
"""The most a database's replayed rate today may be off its measured one for its planned rate to
predict (the replay's own tolerance on a request's time, :data:`advisor.engine.replay_today.REPLAY_TOLERANCE`)."""

SHARED_EVIDENCE = ("on the accuracy suite's three databases, runs 31-50 re-judged, every direction the replay gave "
                   "was the way the measured time moved, but its figures missed by up to 27 points: docs/accuracy.md")
"""What the accuracy suite measured of the databases' rates on a shared disk: the replay's directions against the
measured changes (docs/accuracy.md, after run 50)."""

LOOP_WAIT_SHARE = 0.15
"""From this share of its sessions' time spent waiting for requests on a clock of their own
(:func:`on_own_clock`), a database's loop does not close in the replay (the module docstring)."""


def waits_on_others(process: np.ndarray, cause: np.ndarray, owner: np.ndarray, issue_s: np.ndarray,
                    complete_s: np.ndarray) -> np.ndarray:
    """Per request, the time its process waited for its cause when that is another process's request:
    from the process's own last completion before its issue (or, for its first, its issue) to the
    cause's completion, never below 0 (seconds; 0 where its cause is its own or none). A cache flush
    its own write owns (*owner*, :func:`advisor.trace.links.flush_owners`) is its own: the block
    layer's worker issues it, but it is the process's own commit.

    >>> process, cause, owner = np.array([0, 1, 0]), np.array([-1, -1, 1]), np.full(3, -1)
    >>> waits_on_others(process, cause, owner, np.array([0.0, 0.5, 3.0]), np.array([1.0, 2.5, 4.0])).tolist()
    [0.0, 0.0, 1.5]
    >>> owner = np.array([-1, 0, -1])  # request 1 is the flush of process 0's write: its own commit
    >>> waits_on_others(process, cause, owner, np.array([0.0, 0.5, 3.0]), np.array([1.0, 2.5, 4.0])).tolist()
    [0.0, 0.0, 0.0]
    """
    count = len(process)
    own_done = np.full(count, -np.inf)  # the process's latest completion among its requests issued before
    if count:
        # a running maximum per process at once: each process's completions lifted above the one's before it
        order = np.lexsort((issue_s, process))
        first = np.r_[True, process[order][1:] != process[order][:-1]]
        segment = np.cumsum(first) - 1
        low, width = float(complete_s.min()), float(complete_s.max() - complete_s.min()) + 1.0
        running = np.maximum.accumulate(complete_s[order] - low + segment * width) - segment * width + low
        before = np.r_[-np.inf, running[:-1]]
        own_done[order] = np.where(first, -np.inf, before)
    c = np.maximum(cause, 0)
    whose = np.where(owner[c] >= 0, process[np.maximum(owner[c], 0)], process[c])  # a flush: its owner's
    linked = (cause >= 0) & (whose != process)
    since = np.where(np.isfinite(own_done), own_done, issue_s)
    return np.where(linked, np.maximum(complete_s[c] - since, 0.0), 0.0)


def open_share(waits_s: np.ndarray, requests: np.ndarray, session_s: float) -> float | None:
    """The share of *session_s* its *requests* spent waiting for other processes' requests (*waits_s*)."""
    return round(float(waits_s[requests].sum()) / session_s, 4) if session_s > 0 else None


def rate_misses(who: ReplayIssuer) -> bool:
    """Whether a database's replayed rate today misses its measured one by more than :data:`RATE_TOLERANCE`:
    the loops' self-check on today's layout (a prediction checks itself before it predicts).

    >>> rate_misses(ReplayIssuer("r", "database", 2, 10, 5.0, 5.0, measured_rate=7.8, replayed_rate=9.4))
    True
    """
    if who.measured_rate is None or who.replayed_rate is None or who.measured_rate <= 0:
        return False
    return abs(who.replayed_rate / who.measured_rate - 1.0) > RATE_TOLERANCE


def rate_direction(who: ReplayIssuer) -> RateDirection | None:
    """The way every rotational phase moves a database's sessions' rate under the plan beyond :data:`RATE_TOLERANCE`,
    the replay's own error on a rate: "more" (it takes time the plan frees), "less" (it loses time to the others);
    None within it, or where the phases disagree.

    >>> ledger = ReplayIssuer("ledger", "database", 4, 10, 5.0, 5.0, rate_change_low=0.22, rate_change_high=0.41)
    >>> rate_direction(ledger), rate_direction(msgspec.structs.replace(ledger, rate_change_low=0.08))
    ('more', None)
    """
    low, high = who.rate_change_low, who.rate_change_high
    if low is None or high is None:
        return None
    if low > RATE_TOLERANCE:
        return "more"
    if high < -RATE_TOLERANCE:
        return "less"
    return None


def judged_rates(issuers: Sequence[ReplayIssuer], traced: dict[str, float | None],
                 planned: dict[str, float | None], shared: bool = False) -> tuple[ReplayIssuer, ...]:
    """*issuers* with each database's share of its sessions' time spent waiting for requests on a clock of
    their own, as traced (``waits_on_others``) and as replayed under the plan (``planned_waits_on_others``),
    and whether the planned rates are a prediction (``rate_predicted``, on every database of the disk:
    false for all when one waits so :data:`LOOP_WAIT_SHARE` or more either way, when one's replayed
    rate today misses its measured one, :func:`rate_misses`, or when the disk is *shared* by the sessions
    of several databases: how much of the freed time each takes the replay does not predict, the module
    docstring). On a shared disk whose loops pass their self-check and close, each database gets the
    direction of its planned rate where every phase agrees on it (``rate_direction``, :func:`rate_direction`)."""
    shares = [s for s in (*traced.values(), *planned.values()) if s is not None]
    any_planned = any(who.planned_rate is not None for who in issuers)
    sound = not any(rate_misses(who) for who in issuers if who.issuer in traced) \
        and all(s < LOOP_WAIT_SHARE for s in shares)
    predicted = (sound and not shared) if any_planned else None
    directed = any_planned and sound and shared
    return tuple(msgspec.structs.replace(who, waits_on_others=traced.get(who.issuer),
                                         planned_waits_on_others=planned.get(who.issuer),
                                         rate_predicted=predicted,
                                         rate_direction=rate_direction(who) if directed else None)
                 if who.issuer in traced else who for who in issuers)


def loop_notes(issuers: Sequence[ReplayIssuer], shared: bool = False) -> tuple[str, ...]:
    """The note that says why a disk's planned rates are no prediction: several databases share it, the
    loops' self-check missed, or the open loops, each named; on a shared disk whose loops are sound, a second
    note that says which database takes the freed time, as a direction (:func:`direction_note`)."""
    if not any(who.rate_predicted is False for who in issuers):
        return ()
    reasons = []
    if shared:
        reasons.append("the disk serves the sessions of several databases, and how much of the freed time each of "
                       f"their loops takes the replay does not predict ({SHARED_EVIDENCE})")
    missed = [f"{who.issuer} {who.replayed_rate:.1f}/s for {who.measured_rate:.1f}/s measured"
              for who in issuers if rate_misses(who) and who.replayed_rate is not None
              and who.measured_rate is not None]
    if missed:
        reasons.append(f"the replayed rate today misses the measured one by more than {RATE_TOLERANCE:.0%} "
                       f"({'; '.join(missed)}): the loops' self-check fails")
    open_loops = []
    for who in issuers:
        traced, planned = who.waits_on_others, who.planned_waits_on_others
        if (traced or 0.0) >= LOOP_WAIT_SHARE or (planned or 0.0) >= LOOP_WAIT_SHARE:
            open_loops.append(f"{who.issuer} {traced or 0.0:.0%} as traced, {planned or 0.0:.0%} replayed under "
                              "the plan")
    if open_loops:
        reasons.append(f"the sessions of {'; '.join(open_loops)} of their time waited for requests on a clock of "
                       "their own (the file system journal's commits, the page writeback's, a background "
                       "writer's), which keep their traced pace on any layout, so their loops do not close")
    sound = shared and not missed and not open_loops
    what = ("the databases' planned rates (their sessions' work per second) are no prediction as figures" if sound
            else "the databases' planned rates (their sessions' work per second) are no prediction, nor which of "
            "them takes the time the plan frees" if shared else
            "the planned rate (the sessions' work per second) is no prediction")
    first = f"{what}: {'; and '.join(reasons)} (docs/report.md)"
    note = direction_note(issuers) if sound else ""
    return (first, note) if note else (first,)


def direction_note(issuers: Sequence[ReplayIssuer]) -> str:
    """Which databases of a shared disk take the time the plan frees and which lose time, as the phases replayed
    agree (``rate_direction``), and which the replay cannot tell, each with its range over the phases.

    >>> ledger = ReplayIssuer("ledger", "database", 4, 10, 5.0, 5.0, rate_change_low=0.22, rate_change_high=0.41,
    ...                       rate_direction="more")
    >>> catalogue = ReplayIssuer("catalogue", "database", 4, 10, 5.0, 5.0, rate_change_low=-0.2, rate_change_high=0.03)
    >>> print(direction_note([ledger, catalogue]))
    which database takes the time the plan frees, as a direction only: ledger (+22% to +41%) does more work per \
session-second under the plan in every rotational phase replayed; catalogue: -20% to +3%, within the replay's 15% \
either way, no direction (docs/report.md)
    """
    def span(who: ReplayIssuer) -> str:
        return f"{who.rate_change_low:+.0%} to {who.rate_change_high:+.0%}"

    rated = [who for who in issuers if who.kind == "database" and who.rate_change_low is not None
             and who.rate_change_high is not None]
    if not rated:
        return ""
    said = []
    for way in ("more", "less"):
        named = [who for who in rated if who.rate_direction == way]
        if named:
            verb = "does" if len(named) == 1 else "do"
            said.append(f"{' and '.join(f'{w.issuer} ({span(w)})' for w in named)} {verb} {way} work per "
                        "session-second under the plan in every rotational phase replayed")
    unclear = [who for who in rated if who.rate_direction is None]
    if unclear:
        said.append(f"{', '.join(f'{w.issuer}: {span(w)}' for w in unclear)}, within the replay's "
                    f"{RATE_TOLERANCE:.0%} either way, no direction")
    return f"which database takes the time the plan frees, as a direction only: {'; '.join(said)} (docs/report.md)"


def on_own_clock(cause: np.ndarray, data: np.ndarray, names: np.ndarray, sessions: Sequence[str]) -> np.ndarray:
    """Per request, whether what it waits for in the replay (its *cause*) runs on a clock of its own: a
    request of no database session (*names* each request's issuer, *sessions* the databases' issuer names),
    or a cache flush (not in *data*, the reads and writes) the replay issues after such a request. A read
    or write of a session, or a flush after a session's write, is on a loop the replay closes.

    >>> names = np.array(["ledger", "ledger", "not named", "not named", "ledger", "ledger", "ledger"], dtype=object)
    >>> data = np.array([True, False, True, False, True, True, True])  # 1 and 3 are flushes
    >>> cause = np.array([-1, 0, -1, 2, 1, 3, 2])  # 4 waits for the flush after the ledger's write 0,
    >>> on_own_clock(cause, data, names, ["ledger"]).tolist()  # 5 for the one after the journal's write 2
    [False, False, False, True, False, True, True]
    """
    c = np.maximum(cause, 0)
    root = np.where(data[c], c, cause[c])  # a flush: what the replay issues it after
    session = np.isin(names, list(sessions))
    waits: np.ndarray = (cause >= 0) & ((root < 0) | ~session[np.maximum(root, 0)])
    return waits


def judged_loops(issuers: tuple[ReplayIssuer, ...], names: np.ndarray, data: np.ndarray, process: np.ndarray,
                 cause: np.ndarray, owners: np.ndarray,
                 timelines: Timelines) -> tuple[tuple[ReplayIssuer, ...], tuple[str, ...]]:
    """*issuers* judged (:func:`judged_rates`) on the databases' waits for requests on a clock of their own as traced
    and replayed under the plan (each phase's, their mean), with the note that says why their planned rates are no
    prediction where they are not: *names* each request's issuer, *data* its reads and writes, *process* its
    process, *cause* what it waits for in the replay (:func:`advisor.disk.replay.causes`), *owners* each
    flush's owning write (:func:`advisor.trace.links.flush_owners`)."""
    databases = [who.issuer for who in issuers if who.kind == "database"]
    waiting = data & on_own_clock(cause, data, names, databases)
    shared = sum(bool(mask.any()) for mask in timelines.sessions.values()) > 1

    def shares(times: Timeline) -> dict[str, float | None]:
        waits = waits_on_others(process, cause, owners, *times) * waiting
        return {db: open_share(waits, data & (names == db), session_seconds(process, data & (names == db), times))
                for db in databases}

    traced = shares(timelines.measured)
    phases = [shares(times) for times in timelines.planned or ()]
    planned = {db: phase_mean([p[db] for p in phases]) for db in databases} if phases else {}
    judged = judged_rates(issuers, traced, planned, shared)
    return judged, loop_notes(judged, shared)
