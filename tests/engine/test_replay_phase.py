"""An area whose planned gain depends on the platter's rotational phase is no prediction."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.engine.replay_phase import AREA_PHASE_SPREAD, phase_spread, unsteady_notes
from advisor.model import ReplayArea, ReplayCheck
from advisor.render.replay import area_rows
from tests.helpers.model_trace import model_made_requests
from tests.helpers.model_trace import quiet_disk_report as report

MASK = np.array([True, True, False])
NO_FLUSH = np.zeros(3, dtype=bool)


def test_the_spread_is_the_standard_deviation_of_the_phases_gains() -> None:
    today = [np.array([0.004, 0.004, 1.0])] * 4
    planned = [np.array([g, g, 5.0]) * 0.004 for g in (0.5, 0.6, 0.9, 1.0)]  # the third request is not the area's
    gains = [0.5, 0.4, 0.1, 0.0]
    assert phase_spread(today, planned, MASK, NO_FLUSH) == pytest.approx(np.std(gains, ddof=1), abs=1e-4)
    assert phase_spread(today[:2], planned[:2], MASK, NO_FLUSH) is None  # two phases say nothing of a spread
    steady = [np.array([0.003, 0.003, 1.0])] * 4
    assert phase_spread(today, steady, MASK, NO_FLUSH) == 0.0


def test_an_unsteady_area_gets_a_note_and_no_prediction_in_its_row() -> None:
    scan = ReplayArea("scan", 4092, 20.3, 20.3, 12.99, deviation=0.003, fits=True, phase_spread=0.17, steady=False)
    oltp = ReplayArea("oltp", 5510, 51.6, 61.5, 47.4, deviation=0.19, fits=False, phase_spread=0.02, steady=True)
    (note,) = unsteady_notes([scan, oltp], 8)
    assert note.startswith("scan: its gain under the plan depends on the platter's rotational phase")
    assert "over the 8 phases replayed it varies by 17%" in note
    rows = {r[0]: r for r in area_rows(ReplayCheck("loop0", requests=10, areas=(scan, oltp)))}
    assert rows["scan"][-2] == "12.99 NO PREDICTION (±17% by phase)" and rows["oltp"][-2] == "47.40"


def test_the_areas_of_a_steady_workload_are_steady() -> None:
    (check,) = report(model_made_requests()).replay
    assert check.areas and check.phases >= 3
    for area in check.areas:
        assert area.phase_spread is not None and area.phase_spread < AREA_PHASE_SPREAD and area.steady is True
    assert not any("rotational phase when the trace began" in n for n in check.notes)


def test_an_area_that_misses_its_self_check_shows_its_gain_from_what_it_measured() -> None:
    scan = ReplayArea("scan", 4092, 19.04, 13.50, 7.30, deviation=-0.29, fits=False, predicted_gain=0.6166,
                      gain_from="measured")
    oltp = ReplayArea("oltp", 5510, 51.5, 46.7, 37.6, deviation=-0.09, fits=True, predicted_gain=0.1949,
                      gain_from="replayed")
    rows = {r[0]: r for r in area_rows(ReplayCheck("loop0", requests=10, areas=(scan, oltp)))}
    assert rows["scan"][-1] == "+62% of measured" and rows["oltp"][-1] == "+19%"
