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
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from advisor.engine.saturation import BUSY_MIN
from advisor.model import ReplayIssuer
from advisor.trace.codec import FLUSH, FloatArray

FLUSH_WAIT_NOTED = 0.15
"""A database whose requests spent this share of their measured time behind flushes gets a note."""

COMMITTER_SHARE = 0.1
"""A database is named as committing when this share of the owned flushes or more follow its sessions' writes."""


def flush_waits(op: np.ndarray, issue_s: np.ndarray, complete_s: np.ndarray) -> FloatArray:
    """Per request, the seconds it waited behind a cache flush in flight when it was issued: from its
    issue until that flush completed (or until it completed itself, if sooner); 0 for a flush and for
    a request issued with none in flight.

    >>> op = np.array([FLUSH, 0, 0, 1])
    >>> flush_waits(op, np.array([0.0, 0.5, 2.0, 0.75]), np.array([1.0, 1.25, 2.5, 0.875])).tolist()
    [0.0, 0.5, 0.0, 0.125]
    """
    flushes = np.flatnonzero(op == FLUSH)
    if not len(flushes):
        return np.zeros(len(op), dtype=np.float64)
    order = flushes[np.argsort(issue_s[flushes], kind="stable")]
    ends = np.maximum.accumulate(complete_s[order])  # the latest completion of the flushes issued so far
    before = np.searchsorted(issue_s[order], issue_s, side="left") - 1  # flushes issued strictly before
    pending = np.where(before >= 0, ends[np.maximum(before, 0)], -np.inf)
    waited: FloatArray = np.clip(np.minimum(pending, complete_s) - issue_s, 0.0, None)
    waited[op == FLUSH] = 0.0
    return waited


def barrier_notes(busy: float | None, issuers: Sequence[ReplayIssuer]) -> tuple[str, ...]:
    """A note per database of a saturated disk (busy *busy* of the traced span) whose requests spent
    :data:`FLUSH_WAIT_NOTED` of their time or more behind flushes that follow other issuers' writes."""
    if busy is None or busy < BUSY_MIN:
        return ()
    owned = sum(r.flushes for r in issuers)
    # a database's sessions commit in a closed loop (the next transaction when the last one's flush completes);
    # a server process's writes (the background writer's, the checkpointer's) follow its own clock, not the disk's
    committing = [r.issuer for r in issuers if r.kind == "database" and owned and r.flushes >= COMMITTER_SHARE * owned]
    notes = []
    for row in issuers:
        others = [name for name in committing if name != row.issuer]
        if row.kind != "database" or row.flush_wait_ms is None or row.behind_flush is None or not others:
            continue
        share = row.flush_wait_ms / row.measured_ms if row.measured_ms > 0 else 0.0
        if share < FLUSH_WAIT_NOTED:
            continue
        notes.append(
            f"{row.issuer}: {row.behind_flush:.0%} of its requests were issued while a cache flush was in the drive "
            f"and waited for it, {row.flush_wait_ms:.1f} ms per request ({share:.0%} of its measured time); the "
            f"flushes follow the writes of {', '.join(others)}. The disk is saturated (busy {busy:.0%} of the traced "
            "span): a faster layout lets those commit more often at the same concurrency, each flush a barrier "
            f"{row.issuer}'s requests wait behind, and the replay keeps the traced commits, so its planned time "
            "for them leaves out the waits the extra commits add (they can take longer after the move: "
            "docs/accuracy.md, run 19)")
    return tuple(notes)
