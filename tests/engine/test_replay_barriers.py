"""Waits behind a cache flush, per issuer, and the note a saturated disk's databases get for them."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.engine.replay_barriers import (
    FLUSH_WAIT_NOTED,
    barrier_notes,
    barriers,
    behind_flushes,
    with_commit_waits,
)
from advisor.engine.replay_issuers import issuer_names, issuer_rows
from advisor.model import ReplayArea, ReplayCheck, ReplayIssuer, TraceProcess
from advisor.render.replay import area_rows, issuer_table_rows
from advisor.trace.codec import FLUSH, READ, WRITE


def test_a_request_issued_during_a_flush_waits_until_it_completes() -> None:
    # a flush from 1.0 to 3.0 s; reads at 0.5 (before it), 1.5 and 2.5 (during it), 3.5 (after it);
    # the write at 2.0 completes at 2.2, before the flush: it waited only its own 0.2 s
    op = np.array([READ, FLUSH, READ, WRITE, READ, READ])
    issue = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.5])
    done = np.array([0.6, 3.0, 3.4, 2.2, 3.1, 3.6])
    assert behind_flushes(op, issue, done)[0].tolist() == pytest.approx([0.0, 0.0, 1.5, 0.2, 0.5, 0.0])
    assert not behind_flushes(np.array([READ, READ]), np.array([0.0, 1.0]), np.array([0.5, 1.5]))[0].any()


def test_two_flushes_in_flight_hold_a_request_until_the_later_completes() -> None:
    op = np.array([FLUSH, FLUSH, READ])
    waits, _ = behind_flushes(op, np.array([0.0, 0.1, 0.2]), np.array([2.0, 1.0, 2.5]))
    assert waits.tolist() == pytest.approx([0.0, 0.0, 1.8])


def test_the_flush_a_request_waited_for_is_the_one_in_flight_that_completed_last() -> None:
    op = np.array([FLUSH, FLUSH, READ, READ, FLUSH, READ])
    waited, flush = behind_flushes(op, np.array([0.0, 0.1, 0.2, 3.0, 4.0, 4.5]),
                                   np.array([2.0, 1.0, 2.5, 3.5, 5.0, 4.6]))
    assert flush.tolist() == [-1, -1, 0, -1, -1, 4]  # the first read waited for flush 0 (to 2.0 s), not flush 1
    assert waited.tolist() == pytest.approx([0.0, 0.0, 1.8, 0.0, 0.0, 0.1])


PROCESSES = (
    TraceProcess(10, "postgres", "ledger", "client backend"),
    TraceProcess(11, "postgres", "catalogue", "client backend"),
    TraceProcess(14, "kworker/0:1H"),
    TraceProcess(15, "postgres", None, "background writer"),
)

# the ledger writes and commits (a flush from 1.0 to 3.0 s); the catalogue reads at 0.2 (free), 1.5 and 2.0
# (behind the flush): two of its three reads waited 1.5 and 1.0 s; the background writer's write at 1.2 waited too
PROCESS = np.array([0, 2, 1, 1, 1, 3])
OP = np.array([WRITE, FLUSH, READ, READ, READ, WRITE])
ISSUE = np.array([0.0, 1.0, 0.2, 1.5, 2.0, 1.2])
DONE = np.array([0.9, 3.0, 0.3, 3.1, 3.2, 3.05])
OWNERS = np.array([-1, 0, -1, -1, -1, -1])
DATA = OP != FLUSH
MEASURED = DONE - ISSUE


def _issuers(planned: list[np.ndarray] | None = None) -> tuple[ReplayIssuer, ...]:
    return issuer_rows(PROCESSES, PROCESS, OWNERS, DATA, OP == FLUSH, MEASURED, [MEASURED], planned,
                       behind_flushes(OP, ISSUE, DONE)[0])


def _judged(busy: float | None, planned: list[np.ndarray] | None) -> tuple[tuple[ReplayIssuer, ...], tuple[str, ...]]:
    """The issuers with their waits on others' commits, and the notes, as the report makes them."""
    rows = _issuers(planned)
    found = issuer_names(PROCESSES, PROCESS, OWNERS, DATA)
    assert found is not None
    names = found[0]
    waited, flush = behind_flushes(OP, ISSUE, DONE)
    behind = barriers(busy, rows, names, waited, flush)
    rows = with_commit_waits(behind, rows, names, DATA, MEASURED, OP == FLUSH)
    return rows, barrier_notes(behind, rows, names, DATA)


def test_each_issuer_says_how_many_of_its_requests_met_a_flush_and_how_long_they_waited() -> None:
    rows = {r.issuer: r for r in _issuers()}
    catalogue, ledger = rows["catalogue"], rows["ledger"]
    assert catalogue.behind_flush == pytest.approx(2 / 3, abs=1e-4)  # rounded to 4 places
    assert catalogue.flush_wait_ms == pytest.approx((1500.0 + 1000.0) / 3, abs=1e-4)
    assert ledger.behind_flush == 0.0 and ledger.flushes == 1
    unmeasured = issuer_rows(PROCESSES, np.array([1]), np.array([-1]), np.array([True]), np.array([False]),
                             np.array([0.01]), [np.array([0.01])], None)
    assert unmeasured[0].behind_flush is None and unmeasured[0].flush_wait_ms is None


def test_a_database_waiting_behind_anothers_commits_on_a_saturated_disk_has_no_planned_prediction() -> None:
    # under the plan every request takes half as long: the ledger 50 % less time per request
    rows, notes = _judged(0.98, [MEASURED / 2])
    by = {r.issuer: r for r in rows}
    catalogue = by["catalogue"]
    # 2.5 s of its 2.9 s measured behind the ledger's flush
    assert catalogue.behind_commits == pytest.approx(2.5 / 2.9, abs=1e-4) and catalogue.barrier_free is False
    assert by["ledger"].behind_commits == 0.0 and by["ledger"].barrier_free is True  # its own commits: its own loop
    assert by["background writer"].behind_commits is None  # a server process: no one waits for its writes
    (note,) = notes
    assert note.startswith("catalogue: 67% of its requests were issued while a cache flush that follows the writes "
                           "of ledger was in the drive")
    assert "busy 98%" in note
    assert "ledger 50% less time per request, about 100% more commits if its transactions" in note
    assert "is no prediction" in note


def test_no_count_of_waits_on_an_unsaturated_disk_and_no_verdict_without_a_plan() -> None:
    rows, notes = _judged(0.5, [MEASURED / 2])  # no queue: the freed time is idle time, not more commits
    assert notes == () and all(r.behind_commits is None and r.barrier_free is None for r in rows)
    assert _judged(None, None)[1] == ()
    rows, notes = _judged(0.98, None)  # measured, but nothing planned to judge
    catalogue = next(r for r in rows if r.issuer == "catalogue")
    assert catalogue.behind_commits is not None and catalogue.barrier_free is None
    (note,) = notes
    assert "more commits" not in note and "no prediction" not in note


def test_below_the_share_a_database_keeps_its_prediction() -> None:
    light = MEASURED.copy()
    light[2] = 2.5 / FLUSH_WAIT_NOTED  # a long free read: its 2.5 s of waits under the share of its time
    rows = issuer_rows(PROCESSES, PROCESS, OWNERS, DATA, OP == FLUSH, light, [light], [light / 2],
                       behind_flushes(OP, ISSUE, DONE)[0])
    found = issuer_names(PROCESSES, PROCESS, OWNERS, DATA)
    assert found is not None
    waited, flush = behind_flushes(OP, ISSUE, DONE)
    behind = barriers(0.98, rows, found[0], waited, flush)
    rows = with_commit_waits(behind, rows, found[0], DATA, light, OP == FLUSH)
    catalogue = next(r for r in rows if r.issuer == "catalogue")
    assert catalogue.behind_commits is not None and catalogue.behind_commits < FLUSH_WAIT_NOTED
    assert catalogue.barrier_free is True and barrier_notes(behind, rows, found[0], DATA) == ()


def test_flushes_following_a_server_process_name_no_committer() -> None:
    # the same requests, the flush now owned by the background writer's write: its own clock, no closed loop
    owners = np.array([-1, 5, -1, -1, -1, -1])
    rows = issuer_rows(PROCESSES, PROCESS, owners, DATA, OP == FLUSH, MEASURED, [MEASURED], [MEASURED / 2],
                       behind_flushes(OP, ISSUE, DONE)[0])
    found = issuer_names(PROCESSES, PROCESS, owners, DATA)
    assert found is not None
    waited, flush = behind_flushes(OP, ISSUE, DONE)
    assert barriers(0.98, rows, found[0], waited, flush) is None


def test_the_tables_say_no_prediction_for_a_row_waiting_on_others_commits() -> None:
    catalogue = ReplayArea("catalogue", 5033, 30.5, 28.09, 18.55, deviation=-0.08, fits=True, phase_spread=0.02,
                           steady=True, behind_commits=0.2503, barrier_free=False)
    ledger = ReplayArea("ledger", 2705, 40.5, 26.6, 18.1, deviation=-0.34, fits=False, phase_spread=0.02,
                        steady=True, behind_commits=0.0071, barrier_free=True)
    rows, _ = _judged(0.98, [MEASURED / 2])
    check = ReplayCheck("loop0", requests=10, areas=(catalogue, ledger), issuers=rows)
    areas = {r[0]: r for r in area_rows(check)}
    assert areas["catalogue"][-2] == "18.55 NO PREDICTION (25% behind commits)"
    assert areas["ledger"][-2] == "18.10"
    issuers = {r[0]: r for r in issuer_table_rows(check)}
    assert issuers["catalogue"][7] == "-50.0% NO PREDICTION"
    assert issuers["ledger"][7] == "-50.0%"
