"""Starved requests beside the self-check: the shares measured and replayed, and the means without them."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.engine.replay_starved import STARVED_S, Starved, starved, starved_note

TIMED = np.ones(6, dtype=bool)
MEASURED = np.array([0.010, 0.010, 0.010, 0.010, 0.500, 0.600])  # two starved as traced


def test_the_shares_count_each_side_and_the_rest_is_compared_pairwise() -> None:
    phases = [np.array([0.011, 0.011, 0.011, 0.011, 0.300, 0.020]),  # one starved here
              np.array([0.009, 0.009, 0.009, 0.009, 0.020, 0.020])]  # none
    found = starved(MEASURED, phases, TIMED)
    assert found.measured == pytest.approx(2 / 6) and found.replayed == pytest.approx((1 / 6 + 0) / 2)
    # the four requests that starved on neither side: +10 % in one phase, -10 % in the other
    assert found.deviation_without == pytest.approx(0.0)
    untimed = TIMED.copy()
    untimed[4:] = False
    assert starved(MEASURED, phases, untimed).measured == 0.0  # only the timed requests count


def test_a_note_only_where_requests_starved_and_the_mean_misses() -> None:
    found = Starved(measured=0.016, replayed=0.008, deviation_without=-0.05)
    note = starved_note("sdb", found, deviation=-0.20, tolerance=0.15)
    assert note is not None and "1.6% of the requests waited 200 ms or more" in note and "0.8% replayed" in note
    assert "the model fits the rest" in note  # -5 % without them: within the tolerance
    beyond = starved_note("sdb", Starved(0.016, 0.008, -0.16), deviation=-0.20, tolerance=0.15)
    assert beyond is not None and "-16%" in beyond and "fits the rest" not in beyond
    assert starved_note("sdb", found, deviation=-0.10, tolerance=0.15) is None  # the mean fits
    assert starved_note("sdb", Starved(0.001, 0.002, 0.0), deviation=-0.30, tolerance=0.15) is None  # no tail


def test_the_threshold_is_inclusive() -> None:
    found = starved(np.array([STARVED_S, 0.01]), [np.array([STARVED_S - 1e-9, 0.01])], np.ones(2, dtype=bool))
    assert found.measured == 0.5 and found.replayed == 0.0
