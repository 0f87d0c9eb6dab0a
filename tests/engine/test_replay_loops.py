"""Each database's rate (work per session-second) in a replay, and when its planned figure is no prediction."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest

from advisor.engine.replay_loops import (
    LOOP_WAIT_SHARE,
    RATE_TOLERANCE,
    judged_rates,
    loop_notes,
    rate_direction,
    waits_on_others,
)
from advisor.engine.saturation import replayed_work, saturation_finding
from advisor.model import ReplayIssuer, Saturation
from advisor.render.replay import rate_table_rows
from tests.helpers.commit_waits import commit_waits_report


def _issuer(name: str, planned_rate: float | None = 12.0, replayed_rate: float = 10.0,
            changes: tuple[float, float] | None = None) -> ReplayIssuer:
    return ReplayIssuer(issuer=name, kind="database", processes=2, requests=100, measured_ms=10.0, replayed_ms=10.0,
                        planned_ms=8.0, measured_rate=10.0, replayed_rate=replayed_rate, planned_rate=planned_rate,
                        rate_change_low=None if changes is None else changes[0],
                        rate_change_high=None if changes is None else changes[1])


def test_a_shared_disk_names_who_takes_the_freed_time_only_where_every_phase_agrees_beyond_the_tolerance() -> None:
    beyond = RATE_TOLERANCE + 0.01
    ledger, reporting = _issuer("ledger", changes=(beyond, 0.5)), _issuer("reporting", changes=(-0.4, -beyond))
    catalogue = _issuer("catalogue", changes=(-0.3, 0.02))  # the phases disagree: no direction
    issuers = (catalogue, ledger, reporting)
    calm = {"catalogue": 0.0, "ledger": 0.0, "reporting": 0.0}
    shared = {w.issuer: w for w in judged_rates(issuers, calm, calm, shared=True)}
    assert [shared[n].rate_direction for n in ("catalogue", "ledger", "reporting")] == [None, "more", "less"]
    assert not any(w.rate_predicted for w in shared.values())  # the figures stay no prediction
    first, direction = loop_notes(tuple(shared.values()), shared=True)
    assert "no prediction as figures" in first and "nor which" not in first
    assert f"ledger ({beyond:+.0%} to +50%) does more work" in direction
    assert f"reporting (-40% to {-beyond:+.0%}) does less work" in direction
    assert "catalogue: -30% to +2%, within the replay's 15% either way, no direction" in direction
    # one database alone: its figure is the prediction, no direction is needed
    alone = judged_rates((ledger,), {"ledger": 0.0}, {"ledger": 0.0})
    assert alone[0].rate_predicted is True and alone[0].rate_direction is None
    # a loop that does not close, or a missed self-check, leaves no direction either
    opened = judged_rates(issuers, {**calm, "ledger": LOOP_WAIT_SHARE}, calm, shared=True)
    assert all(w.rate_direction is None for w in opened)
    (note,) = loop_notes(opened, shared=True)
    assert "nor which of them takes" in note
    missed = (catalogue, ledger, _issuer("reporting", replayed_rate=10.0 * (1 + RATE_TOLERANCE) + 0.1,
                                         changes=(-0.4, -beyond)))
    assert all(w.rate_direction is None for w in judged_rates(missed, calm, calm, shared=True))
    # exactly at the tolerance is within it
    assert rate_direction(_issuer("x", changes=(RATE_TOLERANCE, 0.6))) is None


def test_closed_loops_of_one_database_give_its_rate_and_a_prediction() -> None:
    (check,) = commit_waits_report("shop", "shop").replay
    (shop,) = [r for r in check.issuers if r.kind == "database"]
    # the committing session waits for its own commits' flushes (the kworker issues them, its write owns them)
    # and the readers for nobody: no wait on a clock of its own
    assert shop.waits_on_others is not None and shop.waits_on_others < 0.01
    assert shop.measured_rate and shop.replayed_rate and shop.planned_rate
    assert shop.replayed_rate == pytest.approx(shop.measured_rate, rel=0.1)  # the loops' self-check
    assert shop.rate_predicted is True
    assert not any("planned rate" in n for n in check.notes)
    server = [r for r in check.issuers if r.kind != "database"]
    assert all(r.measured_rate is None and r.rate_predicted is None for r in server)


def test_several_databases_on_one_disk_get_their_rates_but_no_prediction_of_the_split() -> None:
    (check,) = commit_waits_report().replay
    issuers = {r.issuer: r for r in check.issuers}
    for who in (issuers["catalogue"], issuers["ledger"]):
        assert who.measured_rate and who.replayed_rate and who.planned_rate  # rates given ...
        assert who.replayed_rate == pytest.approx(who.measured_rate, rel=0.1)
        assert who.waits_on_others is not None and who.waits_on_others < 0.01
        assert who.rate_predicted is False  # ... but how much of the freed time each takes is not predicted
        assert who.rate_change_low is not None and who.rate_change_high is not None
        assert who.rate_change_low <= who.rate_change_high
    (note,) = [n for n in check.notes if "no prediction as figures" in n]
    assert "several databases" in note
    # only the direction: both sessions' loops speed up by more than the replay's tolerance in every phase
    assert all(issuers[n].rate_direction == "more" for n in ("catalogue", "ledger"))
    (direction,) = [n for n in check.notes if "as a direction only" in n]
    assert "catalogue (" in direction and "ledger (" in direction and "do more work" in direction


def test_one_open_loop_makes_every_planned_rate_of_the_disk_no_prediction() -> None:
    issuers = (_issuer("catalogue"), _issuer("ledger"))
    judged = judged_rates(issuers, {"catalogue": 0.0, "ledger": 0.05}, {"catalogue": 0.01, "ledger": 0.4})
    assert [w.rate_predicted for w in judged] == [False, False]  # the ledger's loop decides the catalogue's rate
    (note,) = loop_notes(judged)
    assert "ledger 5% as traced, 40% replayed under the plan" in note and "clock of their own" in note
    assert "catalogue" not in note.split(":")[1]
    closed = judged_rates(issuers, {"catalogue": 0.0, "ledger": LOOP_WAIT_SHARE - 0.01}, {})
    assert [w.rate_predicted for w in closed] == [True, True] and loop_notes(closed) == ()
    shared = judged_rates(issuers, {"catalogue": 0.0, "ledger": 0.0}, {}, shared=True)
    assert [w.rate_predicted for w in shared] == [False, False] and len(loop_notes(shared, shared=True)) == 1
    unplanned = judged_rates((_issuer("ledger", planned_rate=None),), {"ledger": 0.5}, {})
    assert unplanned[0].rate_predicted is None and loop_notes(unplanned) == ()


def test_a_replayed_rate_off_the_measured_one_makes_every_planned_rate_of_the_disk_no_prediction() -> None:
    # closed loops both, but the reporting's replayed rate today is 21 % over its measured one
    issuers = (_issuer("catalogue"), _issuer("reporting", replayed_rate=12.1))
    judged = judged_rates(issuers, {"catalogue": 0.0, "reporting": 0.0}, {"catalogue": 0.0, "reporting": 0.0})
    assert [w.rate_predicted for w in judged] == [False, False]
    (note,) = loop_notes(judged)
    assert "reporting 12.1/s for 10.0/s measured" in note and "self-check fails" in note and "catalogue" not in note
    within = (_issuer("catalogue"), _issuer("reporting", replayed_rate=10.0 * (1 + RATE_TOLERANCE) - 0.01))
    assert all(w.rate_predicted for w in judged_rates(within, {"catalogue": 0.0, "reporting": 0.0}, {}))


def test_a_wait_for_another_process_counts_from_the_waiters_own_last_completion() -> None:
    # process 0 reads (0-1 s), waits for process 1's read (0.5-2.5 s), then reads at 3 s: it waited 1.5 s;
    # process 1's second read follows its own first: no wait on others
    process, cause = np.array([0, 1, 0, 1]), np.array([-1, -1, 1, 1])
    issue, complete = np.array([0.0, 0.5, 3.0, 2.6]), np.array([1.0, 2.5, 4.0, 2.9])
    assert waits_on_others(process, cause, np.full(4, -1), issue, complete).tolist() == [0.0, 0.0, 1.5, 0.0]


def test_a_saturated_disk_says_how_much_more_work_its_database_gets_where_its_rate_is_a_prediction() -> None:
    (check,) = commit_waits_report("shop", "shop").replay
    (shop,) = [r for r in check.issuers if r.kind == "database"]
    assert shop.rate_predicted and shop.planned_rate and shop.replayed_rate
    sat = Saturation(disks=(check.disk,), util=0.97, modelled_busy_s_per_s=1.2, replay_judges=(check.disk,))
    said = replayed_work(sat, (check,))
    gain = shop.planned_rate / shop.replayed_rate - 1.0
    assert f"shop's sessions {gain:.0%} more work per second" in said
    bounded = replayed_work(msgspec.structs.replace(sat, work_gain_bound=gain / 2), (check,))
    assert f"at most {gain / 2:.0%} more work per second" in bounded  # the DB time not spent on IO bounds it
    unpredicted = msgspec.structs.replace(check, issuers=tuple(
        msgspec.structs.replace(w, rate_predicted=False) if w.kind == "database" else w for w in check.issuers))
    assert "no prediction" in replayed_work(sat, (unpredicted,)) and "more work per second" not in \
        replayed_work(sat, (unpredicted,))
    assert replayed_work(msgspec.structs.replace(sat, replay_judges=()), (check,)) == ""
    assert "more work per second" in saturation_finding(sat, (check,)).action


def test_the_finding_and_the_rates_table_give_a_shared_disks_direction_not_its_figures() -> None:
    (check,) = commit_waits_report().replay
    sat = Saturation(disks=(check.disk,), util=0.97, modelled_busy_s_per_s=1.2, replay_judges=(check.disk,))
    said = replayed_work(sat, (check,))
    assert "is no prediction" in said and "more work per second (" not in said
    assert f"the time the plan frees goes on {check.disk} to catalogue and ledger, as a direction only" in said
    rows = {row[0]: row for row in rate_table_rows(check)}
    assert rows["ledger"][6].endswith("% MORE, direction only") and "NO PREDICTION" not in rows["ledger"][6]
    undirected = msgspec.structs.replace(check, issuers=tuple(
        msgspec.structs.replace(w, rate_direction=None) for w in check.issuers))
    assert rate_table_rows(undirected)[0][6].endswith("NO PREDICTION")
    one_way = msgspec.structs.replace(check, issuers=tuple(
        msgspec.structs.replace(w, rate_direction=None) if w.issuer == "catalogue" else w for w in check.issuers))
    one_way_rows = {row[0]: row for row in rate_table_rows(one_way)}
    assert one_way_rows["catalogue"][6].endswith("% NO DIRECTION")  # beside a direction: within the replay's error
    assert one_way_rows["ledger"][6].endswith("% MORE, direction only")
    assert "as a direction only" not in replayed_work(sat, (undirected,))
    losing = msgspec.structs.replace(check, issuers=tuple(
        msgspec.structs.replace(w, rate_direction="less") if w.issuer == "catalogue" else w for w in check.issuers))
    assert f"goes on {check.disk} to ledger (from catalogue), as a direction only" in replayed_work(sat, (losing,))
