"""A saturated disk seen in its trace, and an area the replay misjudges while the disk's mean fits.

The kernel's busy share covers the collect's whole interval, whose idle first and last seconds
can hide a queue; the trace's span is when requests were sent (advisor.engine.replay_today.busy_share).
Where a fitting replay judges a saturated disk, the aggregate model's work gain is not its
prediction (advisor.engine.saturation.saturation). Per area, the replay says where its times
miss the measured ones even when the disk's mean fits (ReplayArea.fits)."""

from __future__ import annotations

import numpy as np

from advisor.engine.replay_today import REPLAY_TOLERANCE, busy_share
from advisor.trace.codec import Requests
from tests.helpers.model_trace import QUIET_UTIL, ZONES, model_made_requests
from tests.helpers.model_trace import quiet_disk_report as report
from tests.helpers.workloads import DISK_BYTES


def test_a_trace_without_idle_time_says_the_disk_is_saturated_where_the_kernel_did_not() -> None:
    judged = report(model_made_requests(think_s=0.0))
    (check,) = judged.replay
    assert check.fits and check.traced_busy is not None and check.traced_busy >= 0.9
    assert judged.saturation is not None and judged.saturation.util == QUIET_UTIL
    assert judged.saturation.traced_busy == check.traced_busy
    # the replay judges the disk: no aggregate work gain is offered for it
    assert judged.saturation.replay_judges == ("sda",) and judged.saturation.work_gain is None
    (found,) = [f for f in judged.findings if f.code == "DISK_SATURATED"]
    assert found.predicted_gain is None and f"{check.traced_busy:.0%} of the traced span" in found.title


def test_a_trace_with_think_time_is_not_saturated() -> None:
    judged = report(model_made_requests(think_s=0.1))
    (check,) = judged.replay
    assert check.traced_busy is not None and check.traced_busy < 0.9
    assert judged.saturation is None


def test_busy_share_counts_overlapping_requests_once() -> None:
    issue = np.array([0.0, 0.1, 0.2, 5.0])
    done = np.array([1.0, 0.5, 2.0, 6.0])
    assert busy_share(issue, done) == round(1 - 3.0 / 6.0, 4)  # idle from 2.0 to 5.0 of 0..6
    assert busy_share(np.array([]), np.array([])) is None


def _scaled_in(made: Requests, zone: tuple[float, float], factor: float) -> Requests:
    at = made.sector * 512 / DISK_BYTES
    inside = (at >= zone[0]) & (at < zone[1])
    return Requests(made.issue_s, np.where(inside, made.service_s * factor, made.service_s), made.sector,
                    made.sectors, made.op, made.process)


def _stretched_in(made: Requests, zone: tuple[float, float], factor: float) -> Requests:
    """*made* with the requests in *zone* *factor* x slower, each later request of their process later by
    the time its earlier ones took longer (the process's think times kept); in issue order again."""
    at = made.sector * 512 / DISK_BYTES
    inside = (at >= zone[0]) & (at < zone[1])
    extra = np.where(inside, made.service_s * (factor - 1.0), 0.0)
    issue = made.issue_s.copy()
    for process in np.unique(made.process[inside]):
        mine = np.flatnonzero(made.process == process)
        issue[mine] += np.concatenate(([0.0], np.cumsum(extra[mine])[:-1]))
    order = np.argsort(issue, kind="stable")
    return Requests(issue[order], (made.service_s + extra)[order], made.sector[order], made.sectors[order],
                    made.op[order], made.process[order])


def test_an_area_the_replay_misjudges_is_named_while_the_disk_fits() -> None:
    # the cold area's reads measured 1.5 x slower than the model serves them (and its process waited
    # for each, so its next read came as much later): the rest of the trace is the model's own
    judged = report(_stretched_in(model_made_requests(), ZONES["cold"], 1.5))
    (check,) = judged.replay
    assert check.fits  # the disk's mean is within its tolerance
    rows = {a.area: a for a in check.areas}
    cold, hot = rows["cold"], rows["hot"]
    assert cold.fits is False and cold.deviation is not None and cold.deviation < -REPLAY_TOLERANCE
    assert hot.fits is True and hot.deviation is not None and abs(hot.deviation) <= REPLAY_TOLERANCE
    (note,) = [n for n in check.notes if n.startswith(f"{cold.area}: ")]
    assert "the model does not describe this area's requests today" in note
    # the cold area's gain starts from what it measured, the hot one's from its replay, whose bias then cancels
    assert cold.planned_ms is not None and hot.planned_ms is not None
    assert cold.gain_from == "measured" and cold.predicted_gain == round(1.0 - cold.planned_ms / cold.measured_ms, 4)
    assert hot.gain_from == "replayed" and hot.predicted_gain == round(1.0 - hot.planned_ms / hot.replayed_ms, 4)
    assert f"its planned {cold.planned_ms:.2f} ms against the {cold.measured_ms:.2f} ms measured (" in note
    assert f"against the {cold.replayed_ms:.2f} ms replayed)" in note  # the other bound, beside it


def test_a_disk_that_misfits_names_no_area_of_its_own() -> None:
    judged = report(_scaled_in(model_made_requests(), (0.0, 1.0), 3.0))
    (check,) = judged.replay
    assert check.fits is False and all(a.fits is False for a in check.areas)
    assert not [n for n in check.notes if "does not describe this area" in n]


def _waited_before_the_drive(made: Requests, wait_s: float) -> Requests:
    """*made* with every request issued *wait_s* earlier, its completion where it was: each waited that long in
    front of the drive (a host's queue), so the requests' times grow while the drive's work stays the same."""
    return Requests(made.issue_s - wait_s, made.service_s + wait_s, made.sector, made.sectors, made.op, made.process)


def test_a_saturated_disk_is_judged_and_planned_by_its_busy_time() -> None:
    judged = report(model_made_requests(think_s=0.0))
    (check,) = judged.replay
    assert check.basis == "busy time" and check.measured_busy_s is not None and check.replayed_busy_s is not None
    # the model timed this trace itself: its replay keeps the drive busy as long as the trace had the disk
    assert check.busy_deviation is not None and abs(check.busy_deviation) <= 0.05 and check.fits
    assert check.planned_busy_s is not None and check.predicted_gain is not None and check.request_gain is not None
    assert check.predicted_gain == round(1.0 - check.planned_busy_s / check.replayed_busy_s, 4)
    # the plan moves the two areas together: the drive works less, and the verdict says which disk it judged so
    assert check.planned_busy_s < check.replayed_busy_s
    assert judged.plan is not None
    assert any("on sda, which had a queue, that is less drive busy time" in n for n in judged.plan.notes)


def test_a_disk_with_think_time_keeps_the_requests_basis() -> None:
    (check,) = report(model_made_requests(think_s=0.1)).replay
    assert check.basis == "requests" and check.replayed_busy_s is None and check.busy_deviation is None
    assert check.predicted_gain == round(1.0 - (check.planned_ms or 0.0) / (check.replayed_ms or 1.0), 4)


def test_a_wait_in_front_of_the_drive_misses_per_request_but_not_in_busy_time() -> None:
    made = model_made_requests(think_s=0.0)
    # each request waited a third of a mean service time in front of the drive (a host's path, as on the
    # emulated disk): the drive's throughput is what it was, the time of each request is not
    judged = report(_waited_before_the_drive(made, 0.3 * float(np.mean(made.service_s))))
    (check,) = judged.replay
    # per request the replay is far under the measure (the wait before the drive is not the drive's) ...
    assert check.deviation is not None and check.deviation < -REPLAY_TOLERANCE
    # ... while the drive's busy time for the same work fits the measured one
    assert check.basis == "busy time" and check.busy_deviation is not None
    assert abs(check.busy_deviation) <= REPLAY_TOLERANCE and check.fits and judged.plan is not None
    (note,) = [n for n in check.notes if "the disk is judged by its busy time" in n]
    assert f"{check.deviation:+.0%}" in note


def test_a_busy_time_the_model_cannot_give_refutes_it() -> None:
    # three times slower everywhere, each process's next request as much later (a closed loop): the disk busy
    # three times as long for the same work (times alone scaled with the issues kept would overlap instead)
    judged = report(_stretched_in(model_made_requests(think_s=0.0), (0.0, 1.0), 3.0))
    (check,) = judged.replay
    assert check.basis == "busy time" and check.busy_deviation is not None and check.busy_deviation < -0.5
    assert check.fits is False
    (misfit,) = [f for f in judged.findings if f.code == "MODEL_DOES_NOT_FIT" and f.evidence["measure"] != "disk time"]
    assert misfit.evidence["measure"] == "replayed busy time" and "with a queue" in misfit.title


def test_a_disk_with_two_requests_in_flight_has_a_queue_whatever_its_busy_share() -> None:
    made = model_made_requests(think_s=0.0)
    # a pause half-way through: the disk idle a tenth of the span, the queue as deep as before when it works
    later = made.issue_s >= float(np.median(made.issue_s))
    paused = Requests(np.where(later, made.issue_s + 0.6, made.issue_s), made.service_s, made.sector, made.sectors,
                      made.op, made.process)
    (check,) = report(paused).replay
    assert check.traced_busy is not None and check.traced_busy < 0.9
    assert check.mean_in_flight is not None and check.mean_in_flight >= 2.0
    assert check.basis == "busy time" and check.fits


def test_a_busy_disk_with_one_request_at_a_time_keeps_the_requests_basis() -> None:
    made = model_made_requests(think_s=0.0)
    # the same requests one after another, each issued as the last completes: the disk never idles, and
    # no request ever waits behind another (one client's sort spilling to temp, as the temp sorts' disk)
    issue = 100.0 + np.concatenate(([0.0], np.cumsum(made.service_s)[:-1]))
    serial = Requests(issue, made.service_s, made.sector, made.sectors, made.op, made.process)
    (check,) = report(serial).replay
    assert check.traced_busy is not None and check.traced_busy >= 0.9
    assert check.mean_in_flight is not None and check.mean_in_flight < 1.1
    assert check.basis == "requests" and check.replayed_busy_s is None
