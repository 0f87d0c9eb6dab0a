"""Waits behind a cache flush: the part of a saturated disk's time that the commits decide.

A cache flush is a barrier (:mod:`advisor.disk.replay`): a SATA drive's FLUSH CACHE is not a
queued command, so what is issued while one is in the drive waits until it completes. The
trace shows the wait: a request issued while a flush was in flight took at least until that
flush completed. Per issuer (:mod:`.replay_issuers`) the report gives the share of its
requests that met a flush so and their wait behind it, per request of the issuer.

Why it gets a note on a saturated disk: a faster layout lets the clients that commit (the
databases whose sessions' writes the flushes follow; a server process's writes keep its own
clock) commit more often at the same concurrency, and every extra flush is one more barrier
the other databases' requests wait behind; the replay keeps the traced requests, so it keeps
the traced commits and cannot add those waits. On the
accuracy suite's three databases (docs/accuracy.md, run 19) the ledger committed 66 % more
after the move, the catalogue's reads met a flush 52 % of the time instead of 35 %, and they
waited twice as long before the drive served them (9.5 -> 18.2 ms) while the drive served
them as fast as before: its requests took 31 % longer where the replay said 35 % less.

So the planned figure of such a database, and of an area whose requests wait so, is no
prediction (``barrier_free`` False, ``behind_commits`` the share of its measured time spent so):
the extra barriers lengthen its waits, while the time the faster layout frees shortens them, and
which wins the replay cannot say. On the suite's three databases both happened: the catalogue
(25 % of its time behind the ledger's flushes) measured +4 % per request where the replay said
+34 %, the reporting (33 %) measured what the replay said. Only the waits of a database's
sessions behind another database's flushes count: its own commits are in its own loop, which
the replay keeps; a server process's flushes (the background writer's) keep their own clock;
and no one waits for a server process's requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
import numpy as np

from advisor.engine.saturation import BUSY_MIN
from advisor.model import ReplayIssuer
from advisor.trace.codec import FLUSH, FloatArray, IntArray

FLUSH_WAIT_NOTED = 0.15
"""A database whose requests spent this share of their measured time behind flushes gets a note."""

COMMITTER_SHARE = 0.1
"""A database is named as committing when this share of the owned flushes or more follow its sessions' writes."""


def behind_flushes(op: np.ndarray, issue_s: np.ndarray, complete_s: np.ndarray) -> tuple[FloatArray, IntArray]:
    """Per request, the seconds it waited behind a cache flush in flight when it was issued (from its
    issue until that flush completed, or until it completed itself, if sooner), and that flush's index;
    0 and -1 for a flush and for a request issued with none in flight. Of several flushes in flight, the
    one that completed last is the one it waited for.

    >>> op = np.array([FLUSH, 0, 0, 1])
    >>> waited, flush = behind_flushes(op, np.array([0.0, 0.5, 2.0, 0.75]), np.array([1.0, 1.25, 2.5, 0.875]))
    >>> waited.tolist(), flush.tolist()
    ([0.0, 0.5, 0.0, 0.125], [-1, 0, -1, 0])
    """
    flushes = np.flatnonzero(op == FLUSH)
    if not len(flushes):
        return np.zeros(len(op), dtype=np.float64), np.full(len(op), -1, dtype=np.int64)
    order = flushes[np.argsort(issue_s[flushes], kind="stable")]
    done = complete_s[order]
    ends = np.maximum.accumulate(done)  # the latest completion of the flushes issued so far
    latest = np.maximum.accumulate(np.where(done >= ends, np.arange(len(order)), 0))  # ... and which flush it is
    before = np.searchsorted(issue_s[order], issue_s, side="left") - 1  # flushes issued strictly before
    pending = np.where(before >= 0, ends[np.maximum(before, 0)], -np.inf)
    waited: FloatArray = np.clip(np.minimum(pending, complete_s) - issue_s, 0.0, None)
    waited[op == FLUSH] = 0.0
    flush: IntArray = np.where(waited > 0.0, order[latest[np.maximum(before, 0)]], -1).astype(np.int64)
    return waited, flush


def committing(issuers: Sequence[ReplayIssuer]) -> tuple[str, ...]:
    """The databases whose sessions' writes :data:`COMMITTER_SHARE` or more of the owned flushes follow.

    A database's sessions commit in a closed loop (the next transaction when the last one's flush
    completes); a server process's writes (the background writer's, the checkpointer's) follow its own
    clock, not the disk's, so it is never one."""
    owned = sum(r.flushes for r in issuers)
    return tuple(r.issuer for r in issuers if r.kind == "database" and owned and r.flushes >= COMMITTER_SHARE * owned)


@dataclass(frozen=True)
class Barriers:
    """Per request of a saturated disk's trace, its wait behind a flush that follows another committing
    database's writes, and that database's name ("" for none); each committer's replayed gain under the
    plan (1 - planned / today per request; None without a plan); the disk's busy share of the traced span."""

    waited_s: FloatArray
    behind: np.ndarray
    gains: dict[str, float | None]
    busy: float

    def share(self, requests: np.ndarray, measured_s: float) -> float | None:
        """The share of *measured_s* (the measured time of *requests*, a mask, with the flushes they own)
        they spent behind other databases' flushes; None for no time."""
        return round(float(self.waited_s[requests].sum()) / measured_s, 4) if measured_s > 0 else None

    def committers(self, requests: np.ndarray) -> tuple[str, ...]:
        """The databases whose flushes *requests* (a mask) waited behind."""
        return tuple(sorted({str(n) for n in self.behind[requests & (self.waited_s > 0.0)].tolist()}))


def barriers(busy: float | None, issuers: Sequence[ReplayIssuer], names: np.ndarray, waited_s: FloatArray,
             flush: IntArray) -> Barriers | None:
    """The waits of database sessions behind other databases' commits on a disk busy *busy* of the traced
    span; None on a disk under :data:`~advisor.engine.saturation.BUSY_MIN` (the time a faster layout frees
    is idle time there, not more commits) or with no committing database. *names* is each request's issuer
    (:func:`advisor.engine.replay_issuers.issuer_names`), *waited_s* and *flush* :func:`behind_flushes`'.
    A server process's requests are not counted: the background writer's writes wait behind the
    flushes too, but no one waits for them, so their time is no database's."""
    committers = committing(issuers)
    if busy is None or busy < BUSY_MIN or not committers:
        return None
    sessions = [r.issuer for r in issuers if r.kind == "database"]
    owner = np.where(flush >= 0, names[np.maximum(flush, 0)], "")
    other = (flush >= 0) & np.isin(owner, committers) & (owner != names) & np.isin(names, sessions)
    gains = {r.issuer: (None if r.planned_ms is None or not r.replayed_ms else 1.0 - r.planned_ms / r.replayed_ms)
             for r in issuers if r.issuer in committers}
    return Barriers(np.where(other, waited_s, 0.0), np.where(other, owner, ""), gains, busy)


def barrier_fields(found: Barriers | None, requests: np.ndarray, measured_s: float,
                   planned: bool) -> tuple[float | None, bool | None]:
    """(``behind_commits``, ``barrier_free``) of a row whose requests are *requests* (a mask) and measured
    time *measured_s*: both null where no waits are counted (:func:`barriers`), ``barrier_free`` also
    without a plan (*planned* False)."""
    share = found.share(requests, measured_s) if found is not None else None
    return share, None if share is None or not planned else share < FLUSH_WAIT_NOTED


def with_commit_waits(found: Barriers | None, issuers: Sequence[ReplayIssuer], names: np.ndarray,
                      data: np.ndarray, measured_s: FloatArray, flushes: np.ndarray) -> tuple[ReplayIssuer, ...]:
    """*issuers* with each database's ``behind_commits`` and ``barrier_free`` (:func:`barrier_fields`;
    *flushes* the timed flushes, which count with the write they follow, as in the rows)."""
    if found is None:
        return tuple(issuers)
    rows = []
    for row in issuers:
        mine = names == row.issuer
        if row.kind == "database":
            share, free = barrier_fields(found, data & mine, float(measured_s[(data | flushes) & mine].sum()),
                                         row.planned_ms is not None)
            row = msgspec.structs.replace(row, behind_commits=share, barrier_free=free)
        rows.append(row)
    return tuple(rows)


def barrier_notes(found: Barriers | None, issuers: Sequence[ReplayIssuer], names: np.ndarray,
                  data: np.ndarray) -> tuple[str, ...]:
    """A note per database of a saturated disk (:func:`barriers` *found* its waits) whose requests spent
    :data:`FLUSH_WAIT_NOTED` of their measured time or more behind flushes that follow other databases'
    writes (*issuers* as :func:`with_commit_waits` leaves them): who those are, how much faster the replay
    serves them under the plan, and why this database's planned figure is then no prediction."""
    if found is None:
        return ()
    notes = []
    for row in issuers:
        if row.behind_commits is None or row.behind_commits < FLUSH_WAIT_NOTED:
            continue
        mine = data & (names == row.issuer)
        who = found.committers(mine)
        waited = found.waited_s[mine]
        note = (f"{row.issuer}: {np.mean(waited > 0.0):.0%} of its requests were issued while a cache flush that "
                f"follows the writes of {', '.join(who)} was in the drive and waited for it, "
                f"{waited.mean() * 1000.0:.1f} ms per request ({row.behind_commits:.0%} of its measured time). "
                f"The disk is saturated (busy {found.busy:.0%} of the traced span): a faster layout lets those commit "
                f"more often at the same concurrency, each flush a barrier {row.issuer}'s requests wait behind, "
                "and the replay keeps the traced commits")
        rises = [f"{name} {gain:.0%} less time per request, about {1.0 / (1.0 - gain) - 1.0:.0%} more commits if its "
                 "transactions speed up as much"
                 for name in who if (gain := found.gains.get(name)) is not None and 0 < gain < 1]
        if rises:
            note += f" (replayed under the plan: {'; '.join(rises)})"
        if row.barrier_free is False:
            note += (f"; so the planned time of {row.issuer}, and of each area whose requests wait so, is no "
                     "prediction: the extra barriers lengthen their waits, the time the faster layout frees "
                     "shortens them, and which wins the replay cannot say (docs/accuracy.md)")
        notes.append(note)
    return tuple(notes)
