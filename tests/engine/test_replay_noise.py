"""How sure a replayed gain is (advisor.engine.replay_noise): each request's share of the busy time,
the gain's standard error over windows of a trace, the file system's part, and the verdict that needs
a gain to clear --min-gain by them."""

from __future__ import annotations

import dataclasses

import msgspec
import numpy as np

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.replay_check import replayed_error, verdict
from advisor.engine.replay_noise import MODEL_ERROR, clears, gain_error, total_error, windows_of
from advisor.model import ReplayCheck
from advisor.trace.codec import ExtentTable, decode_extents, encode_extents
from advisor.trace.intervals import busy_shares, union_seconds
from tests.helpers.model_trace import NOW, base_workload, model_made_requests, traced
from tests.helpers.model_trace import quiet_disk_report as report
from tests.helpers.workloads import models


def check_notes(judged: object) -> str:
    """The plan's notes of a report, one string."""
    plan = getattr(judged, "plan", None)
    return " ".join(plan.notes) if plan is not None else ""


def test_busy_shares_split_the_busy_time_among_the_requests_in_flight() -> None:
    rng = np.random.default_rng(3)
    for _ in range(100):
        count = int(rng.integers(1, 60))
        starts = rng.random(count) * 10
        ends = starts + rng.random(count) * 2 * (rng.random(count) > 0.1)  # some of no length
        shares = busy_shares(starts, ends)
        assert abs(shares.sum() - union_seconds(starts, ends)) < 1e-9
        assert (shares >= -1e-12).all() and (shares <= ends - starts + 1e-12).all()
    apart = busy_shares(np.array([0.0, 2.0]), np.array([1.0, 3.5]))
    assert apart.tolist() == [1.0, 1.5]  # alone in flight: each its whole length


def test_equal_gains_in_every_window_have_no_error_and_one_window_has_none_known() -> None:
    window = windows_of(np.linspace(0.0, 9.0, 100))
    today = np.ones(100)
    assert (gain_error(today, 0.8 * today, window) or 1.0) < 1e-12
    assert gain_error(today, 0.8 * today, np.zeros(100, dtype=np.int64)) is None


def test_the_standard_error_is_the_spread_another_stretch_of_the_workload_would_give() -> None:
    """Many traces of one workload (a gain of 20 % on average, each request's own varying): the gains
    of the traces spread as much as one trace's windows say (within a quarter)."""
    rng = np.random.default_rng(11)
    gains, errors = [], []
    for _ in range(300):
        issue = np.sort(rng.random(3000) * 60.0)
        today = rng.exponential(0.008, 3000)
        planned = today * np.clip(rng.normal(0.8, 0.5, 3000), 0.0, None)
        gains.append(1.0 - planned.sum() / today.sum())
        error = gain_error(today, planned, windows_of(issue))
        assert error is not None
        errors.append(error)
    spread, said = float(np.std(gains, ddof=1)), float(np.mean(errors))
    assert 0.75 < said / spread < 1.25, (said, spread)


def test_the_layout_part_is_the_range_of_a_rectangular_distribution() -> None:
    assert total_error(None, 0.10, 0.10, model=0.0) == 0.0
    assert abs((total_error(None, 0.10, 0.04, model=0.0) or 0.0) - 0.06 / np.sqrt(12)) < 1e-12
    assert abs((total_error(0.03, 0.10, 0.04, model=0.0) or 0.0) - np.hypot(0.03, 0.06 / np.sqrt(12))) < 1e-12
    assert total_error(None, 0.1, None, model=0.0) == 0.0


def test_the_replays_own_error_is_part_of_every_replayed_gains_uncertainty() -> None:
    """No trace shows what the replay misses by under a layout nobody measured: the suite's measure of it is
    always in the gain's uncertainty, and nothing without a gain."""
    assert MODEL_ERROR > 0
    assert total_error(None, 0.10, 0.10) == MODEL_ERROR
    expected = np.hypot(np.hypot(0.03, 0.06 / np.sqrt(12)), MODEL_ERROR)
    assert abs((total_error(0.03, 0.10, 0.04) or 0.0) - expected) < 1e-12
    assert total_error(0.03, None, None) is None
    assert clears(0.08, 0.02, 0.05) and not clears(0.06, 0.02, 0.05) and clears(0.06, None, 0.05)


def test_a_gain_over_the_minimum_within_its_error_is_not_worth_a_move() -> None:
    judged = report(model_made_requests(), min_gain=0.05)
    (check,) = judged.replay
    assert judged.plan is not None and check.predicted_gain is not None and check.predicted_gain > 0.2
    assert check.gain_error is not None and check.window_error is not None and check.gain_windows == 10
    # one extent per area: as spread as today is laid end to end, so the window's error and the replay's own are
    # the whole
    assert check.spread_gain == check.predicted_gain and check.model_error == MODEL_ERROR
    assert abs(check.gain_error - np.hypot(check.window_error, MODEL_ERROR)) < 1e-4
    assert "the replay's own error on the accuracy suite" in check_notes(judged)
    plan = msgspec.structs.replace(judged.plan, not_worth_it=None, notes=())
    clear = verdict(plan, [check], 0.05)
    assert clear.not_worth_it is None and f"± {check.gain_error:.1%}" in clear.notes[-1]
    assert "where the file system puts a moved area" in clear.notes[-1]
    across = verdict(plan, [msgspec.structs.replace(check, spread_gain=None)], 0.05)  # a tier plan's check
    assert f"± {check.gain_error:.1%}" in across.notes[-1] and "file system" not in across.notes[-1]
    near = msgspec.structs.replace(check, predicted_gain=0.06, gain_error=0.02, model_error=None)  # an older document
    refused = verdict(plan, [near], 0.05)
    assert refused.not_worth_it is not None and "does not clear the 5%" in refused.not_worth_it
    assert "6.0% ± 2.0%" in refused.not_worth_it
    unknown = msgspec.structs.replace(near, gain_error=None)  # a document written before the error: the gain alone
    assert verdict(plan, [unknown], 0.05).not_worth_it is None


def test_the_disks_errors_combine_by_their_weights() -> None:
    one = ReplayCheck("sda", requests=100, fits=True, planned_ms=1.0, predicted_gain=0.1, gain_error=0.03)
    two = msgspec.structs.replace(one, disk="sdb", gain_error=0.04)
    assert abs((replayed_error([one, two]) or 0.0) - 0.025) < 1e-12
    assert replayed_error([one, msgspec.structs.replace(two, gain_error=None)]) is None


def test_the_replays_own_error_is_one_for_every_disk_and_no_mean_averages_it_away() -> None:
    """Two disks, each with its own part (0.03, 0.04) and the replay's 0.04 in its gain_error: the own parts
    combine by the weights, the replay's is added whole once."""
    one = ReplayCheck("sda", requests=100, fits=True, planned_ms=1.0, predicted_gain=0.1,
                      gain_error=float(np.hypot(0.03, 0.04)), model_error=0.04)
    two = msgspec.structs.replace(one, disk="sdb", gain_error=float(np.hypot(0.04, 0.04)))
    assert abs((replayed_error([one, two]) or 0.0) - np.hypot(0.025, 0.04)) < 1e-12
    assert abs((replayed_error([one]) or 0.0) - np.hypot(0.03, 0.04)) < 1e-12


def test_a_small_gain_the_trace_alone_would_clear_is_not_worth_a_move_within_the_replays_own_error() -> None:
    """The three databases' re-advice of run 30 (docs/accuracy.md): +5.9 % ± 0.8 of the trace cleared the 5 %,
    and the move measured +2.8 %. With the replay's own error it does not clear; a first move of +20 % still does."""
    judged = report(model_made_requests(), min_gain=0.05)
    (check,) = judged.replay
    assert judged.plan is not None
    plan = msgspec.structs.replace(judged.plan, not_worth_it=None, notes=())
    small = msgspec.structs.replace(check, predicted_gain=0.0587, spread_gain=0.0587, window_error=0.0076,
                                    gain_error=total_error(0.0076, 0.0587, 0.0587), model_error=MODEL_ERROR)
    assert clears(0.0587, 0.0076, 0.05)  # the trace's windows alone
    refused = verdict(plan, [small], 0.05)
    assert refused.not_worth_it is not None and "does not clear the 5%" in refused.not_worth_it
    large = msgspec.structs.replace(small, predicted_gain=0.20, spread_gain=0.20)
    assert verdict(plan, [large], 0.05).not_worth_it is None


def test_a_moved_area_with_a_gap_in_its_extents_widens_the_gains_uncertainty() -> None:
    """The hot area's file in two extents with a quarter of its span between them (the reads that fall
    there belong to no file and stay): laid end to end the plan closes the gap, kept as spread as today
    it does not; the gain's uncertainty takes the distance between the two."""
    work = base_workload()
    trace = traced(model_made_requests(), work)
    table = decode_extents(trace.extents, len(trace.files))
    hot = trace.files.index(next(p for p in trace.files if "/hot/" in p))
    (row,) = np.flatnonzero(table.file == hot)
    start, length = int(table.disk_byte[row]), int(table.length[row])
    gap = length // 4 // 4096 * 4096
    half = length // 2 // 4096 * 4096
    rows = [(int(f), int(o), int(d), int(n)) for f, o, d, n in
            zip(table.file, table.file_offset, table.disk_byte, table.length, strict=True) if f != hot]
    rows += [(hot, 0, start, half), (hot, half, start + half + gap, length - half - gap)]
    rows.sort(key=lambda r: r[2])
    cols = np.array(rows, dtype=np.int64)
    split = msgspec.structs.replace(trace, extents=encode_extents(ExtentTable(cols[:, 0], cols[:, 1], cols[:, 2],
                                                                             cols[:, 3])))
    judged = advise(AdviceRequest(dataclasses.replace(work, traces=(split,)), models(), generated_at=NOW))
    (check,) = judged.replay
    assert check.predicted_gain is not None and check.spread_gain is not None
    assert check.window_error is not None and check.gain_error is not None
    assert check.predicted_gain - check.spread_gain > 0.002  # the gap kept costs seeks the end-to-end layout saves
    layout = abs(check.predicted_gain - check.spread_gain) / np.sqrt(12)
    assert abs(check.gain_error - np.hypot(np.hypot(check.window_error, layout), MODEL_ERROR)) < 2e-4  # 4 places each
