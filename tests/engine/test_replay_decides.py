"""Where a disk's trace replays within its tolerance, the replay, not the aggregate model's disk
time, judges the disk: the refutation becomes a note and the plan is judged by the replayed gain
(advisor.engine.saturation.overruled_by_replay, advisor.engine.replay_today.replay_fits)."""

from __future__ import annotations

from advisor.engine.replay_today import replay_fits, self_check
from advisor.model import Report
from advisor.trace.codec import Requests
from tests.helpers.model_trace import model_made_requests, quiet_disk, traced
from tests.helpers.model_trace import quiet_disk_report as report
from tests.helpers.workloads import models


def slow(made: Requests) -> Requests:
    """Service times 3 x what the model gives: a trace the replay cannot fit."""
    return Requests(made.issue_s, made.service_s * 3, made.sector, made.sectors, made.op, made.process)


def codes(found: Report) -> set[str]:
    return {f.code for f in found.findings}


def test_without_a_trace_the_disk_time_refutes_the_model_and_there_is_no_plan() -> None:
    plain = report(None)
    (refuted,) = [f for f in plain.findings if f.code == "MODEL_DOES_NOT_FIT"]
    assert refuted.evidence["measure"] == "disk time" and refuted.subject == "sda"
    assert plain.plan is None and plain.no_plan is not None and plain.no_plan.code == "model-does-not-fit"


def test_a_fitting_replay_overrules_the_disk_time_refutation_and_its_gain_is_the_verdict() -> None:
    # the aggregate model's gain is under 50 %, the replay's over: the replay decides
    judged = report(model_made_requests(), min_gain=0.5)
    (check,) = judged.replay
    assert check.fits and check.predicted_gain is not None and check.predicted_gain > 0.5 and check.aggregate_refuted
    assert judged.plan is not None and judged.plan.predicted_gain < 0.5
    assert judged.plan.not_worth_it is None and judged.no_plan is None
    assert "MODEL_DOES_NOT_FIT" not in codes(judged)
    (note,) = [n for n in check.notes if "the aggregate model charges" in n]
    assert f"up to {check.queue_depth} requests were in flight" in note and "judges this disk" in note
    # the modelled disk time is the over-charge: not a sign of saturation on a disk busy 30 %
    assert judged.saturation is None and "DISK_SATURATED" not in codes(judged)


def test_a_replayed_gain_under_the_minimum_refuses_the_plan_in_the_replays_words() -> None:
    judged = report(model_made_requests(), min_gain=0.7)
    (check,) = judged.replay
    assert judged.plan is not None and check.predicted_gain is not None and check.predicted_gain < 0.7
    assert judged.plan.not_worth_it is not None and judged.plan.not_worth_it.startswith("the replayed gain")


def test_a_replay_that_misfits_leaves_the_refutation_standing() -> None:
    judged = report(slow(model_made_requests()))
    (check,) = judged.replay
    assert check.fits is False and check.notes == () and not check.aggregate_refuted
    measures = {f.evidence["measure"] for f in judged.findings if f.code == "MODEL_DOES_NOT_FIT"}
    # three times slower, its requests overlap: a saturated disk, whose replay is judged by its busy time
    assert check.basis == "busy time" and measures == {"disk time", "replayed busy time"}
    assert judged.plan is None and judged.no_plan is not None and judged.no_plan.code == "model-does-not-fit"


def test_a_disk_judged_by_its_replay_needs_every_trace_of_it_to_fit() -> None:
    work = quiet_disk()
    good, bad = traced(model_made_requests(), work), traced(slow(model_made_requests()), work)
    physics = models().of("sda")
    assert replay_fits([self_check(good, work, physics)], (good,)) == {"sda"}
    both = (good, bad)
    assert replay_fits([self_check(t, work, physics) for t in both], both) == frozenset()


def test_the_replay_counts_requests_it_overlapped_that_the_trace_did_not() -> None:
    """The perfect disk's trace replays request for request: no process gets a second request in
    flight, and no note. A replay that issued a process's next request before its previous one
    completed, where the trace had them one after the other, is counted (docs/accuracy.md)."""
    import numpy as np

    from advisor.disk.replay import Replayed
    from advisor.engine.replay_today import SelfCheck, overlapped

    work = quiet_disk()
    checked = self_check(traced(model_made_requests(), work), work, models().of("sda"))
    assert isinstance(checked, SelfCheck)
    assert checked.overlapped == 0 and not [n for n in checked.notes if "went out before" in n]
    process = np.array([0, 0, 0, 1])
    issue, complete = np.array([0.0, 1.0, 2.0, 0.0]), np.array([1.0, 2.0, 3.0, 5.0])
    early = np.array([0.0, 0.5, 1.5, 0.0])  # the 2nd and 3rd out before their predecessor completed
    assert overlapped(process, issue, complete, [Replayed(early, complete, 1)]) == 2
    assert overlapped(process, issue, complete, [Replayed(issue, complete, 1)]) == 0
    assert overlapped(process, issue, complete, [Replayed(early, complete, 1)] * 3) == 2  # the mean over replays
