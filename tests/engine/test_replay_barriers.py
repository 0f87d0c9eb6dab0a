"""Waits behind a cache flush, per issuer, and the note a saturated disk's databases get for them."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.engine.replay_barriers import FLUSH_WAIT_NOTED, barrier_notes, flush_waits
from advisor.engine.replay_issuers import issuer_rows
from advisor.model import ReplayIssuer, TraceProcess
from advisor.trace.codec import FLUSH, READ, WRITE


def test_a_request_issued_during_a_flush_waits_until_it_completes() -> None:
    # a flush from 1.0 to 3.0 s; reads at 0.5 (before it), 1.5 and 2.5 (during it), 3.5 (after it);
    # the write at 2.0 completes at 2.2, before the flush: it waited only its own 0.2 s
    op = np.array([READ, FLUSH, READ, WRITE, READ, READ])
    issue = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.5])
    done = np.array([0.6, 3.0, 3.4, 2.2, 3.1, 3.6])
    assert flush_waits(op, issue, done).tolist() == pytest.approx([0.0, 0.0, 1.5, 0.2, 0.5, 0.0])
    assert not flush_waits(np.array([READ, READ]), np.array([0.0, 1.0]), np.array([0.5, 1.5])).any()


def test_two_flushes_in_flight_hold_a_request_until_the_later_completes() -> None:
    op = np.array([FLUSH, FLUSH, READ])
    waits = flush_waits(op, np.array([0.0, 0.1, 0.2]), np.array([2.0, 1.0, 2.5]))
    assert waits.tolist() == pytest.approx([0.0, 0.0, 1.8])


PROCESSES = (
    TraceProcess(10, "postgres", "ledger", "client backend"),
    TraceProcess(11, "postgres", "catalogue", "client backend"),
    TraceProcess(14, "kworker/0:1H"),
)


def _issuers() -> tuple[ReplayIssuer, ...]:
    # the ledger writes and commits (a flush from 1.0 to 3.0 s); the catalogue reads at 0.2 (free),
    # 1.5 and 2.0 (behind the flush): two of its three reads waited 1.5 and 1.0 s
    process = np.array([0, 2, 1, 1, 1])
    op = np.array([WRITE, FLUSH, READ, READ, READ])
    issue = np.array([0.0, 1.0, 0.2, 1.5, 2.0])
    done = np.array([0.9, 3.0, 0.3, 3.1, 3.2])
    owners = np.array([-1, 0, -1, -1, -1])
    data = op != FLUSH
    measured = done - issue
    return issuer_rows(PROCESSES, process, owners, data, op == FLUSH, measured, [measured], None,
                       flush_waits(op, issue, done))


def test_each_issuer_says_how_many_of_its_requests_met_a_flush_and_how_long_they_waited() -> None:
    rows = {r.issuer: r for r in _issuers()}
    catalogue, ledger = rows["catalogue"], rows["ledger"]
    assert catalogue.behind_flush == pytest.approx(2 / 3, abs=1e-4)  # rounded to 4 places
    assert catalogue.flush_wait_ms == pytest.approx((1500.0 + 1000.0) / 3, abs=1e-4)
    assert ledger.behind_flush == 0.0 and ledger.flushes == 1
    unmeasured = issuer_rows(PROCESSES, np.array([1]), np.array([-1]), np.array([True]), np.array([False]),
                             np.array([0.01]), [np.array([0.01])], None)
    assert unmeasured[0].behind_flush is None and unmeasured[0].flush_wait_ms is None


def test_a_saturated_disks_database_waiting_behind_anothers_commits_gets_a_note() -> None:
    issuers = _issuers()
    (note,) = barrier_notes(0.98, issuers)
    assert note.startswith("catalogue: 67% of its requests were issued while a cache flush was in the drive")
    assert "follow the writes of ledger" in note and "busy 98%" in note
    assert barrier_notes(0.5, issuers) == ()  # no queue: the freed time is idle time, not more commits
    assert barrier_notes(None, issuers) == ()


def test_no_note_for_the_committer_itself_nor_below_the_share() -> None:
    ledger = ReplayIssuer("ledger", "database", 2, 100, measured_ms=20.0, replayed_ms=20.0, flushes=50,
                          behind_flush=0.5, flush_wait_ms=10.0)
    assert barrier_notes(0.99, [ledger]) == ()  # its own commits: no one else's
    light = ReplayIssuer("catalogue", "database", 2, 100, measured_ms=20.0, replayed_ms=20.0,
                         behind_flush=0.1, flush_wait_ms=20.0 * FLUSH_WAIT_NOTED * 0.9)
    assert barrier_notes(0.99, [ledger, light]) == ()
    heavy = ReplayIssuer("catalogue", "database", 2, 100, measured_ms=20.0, replayed_ms=20.0,
                         behind_flush=0.4, flush_wait_ms=20.0 * FLUSH_WAIT_NOTED * 1.1)
    assert len(barrier_notes(0.99, [ledger, heavy])) == 1
    worker = ReplayIssuer("checkpointer", "server process", 1, 100, measured_ms=20.0, replayed_ms=20.0,
                          behind_flush=0.9, flush_wait_ms=15.0)
    assert barrier_notes(0.99, [ledger, worker]) == ()  # a note is for a database's sessions
    # one database behind flushes that follow the background writer's writes (its own clock, not a
    # closed loop that a faster disk speeds up): no one commits more, no note
    writer = ReplayIssuer("background writer", "server process", 1, 100, measured_ms=20.0, replayed_ms=20.0,
                          flushes=40)
    assert barrier_notes(0.99, [heavy, writer]) == ()
