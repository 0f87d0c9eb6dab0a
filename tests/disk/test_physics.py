"""Closed forms of zoned recording, the seek-curve construction and model validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from advisor.disk.model import DiskModel
from advisor.disk.seek import SeekCurve, fit_three_point
from advisor.disk.zbr import ZoneTable, lba_of_stroke, rate_factor, stroke_of_lba
from advisor.errors import BadInput


@pytest.mark.parametrize("rho", [1.0, 1.46, 2.0, 2.5])
def test_stroke_and_lba_maps_are_inverse_and_monotonic(rho: float) -> None:
    xs = np.linspace(0, 1, 101)
    us = [stroke_of_lba(x, rho) for x in xs]
    assert us[0] == 0.0 and us[-1] == pytest.approx(1.0)
    assert all(b > a for a, b in zip(us, us[1:], strict=False))
    assert all(lba_of_stroke(u, rho) == pytest.approx(x, abs=1e-12) for u, x in zip(us, xs, strict=True))


def test_rate_at_half_capacity_is_not_linear() -> None:
    # ref §1.2: rho = 2 → R(0.5) = 0.79·R_OD, not 0.75; the ID rate is R_OD/rho
    assert rate_factor(0.5, 2.0) == pytest.approx(math.sqrt(0.625))
    assert rate_factor(1.0, 2.0) == pytest.approx(0.5)
    # the outer 1 % of LBAs spans 0.75 % of the stroke, the inner 1 % spans 1.49 %
    assert stroke_of_lba(0.01, 2.0) == pytest.approx(0.0075, abs=5e-5)
    assert 1 - stroke_of_lba(0.99, 2.0) == pytest.approx(0.0149, abs=5e-4)


def test_zone_table_gives_slow_zones_less_stroke_per_byte() -> None:
    table = ZoneTable([(0.0, 200.0), (0.5, 100.0)])
    # half the bytes at half the rate need twice the radial width
    assert table.stroke(0.5) == pytest.approx(1 / 3)
    assert table.rate(0.25) == 200.0 and table.rate(0.75) == 100.0
    assert table.lba(table.stroke(0.8)) == pytest.approx(0.8)


@pytest.mark.parametrize(
    ("t1", "avg", "full"), [(0.8, 8.5, 17.0), (1.0, 12.0, 22.0), (0.3, 3.8, 7.8), (0.8, 7.0, 12.5)]
)
def test_three_point_curve_meets_the_datasheet(t1: float, avg: float, full: float) -> None:
    curve = SeekCurve.from_triple(t1, avg, full)
    x = np.linspace(0, 1, 200001)[1:]
    weighted = float(np.sum(curve.ms_array(x) * 2 * (1 - x)) / np.sum(2 * (1 - x)))
    assert weighted == pytest.approx(avg, rel=0.01)
    assert curve.ms(1.0) == pytest.approx(full)
    assert curve.ms(1e-6) == pytest.approx(t1, abs=0.05)
    fitted = fit_three_point(t1, avg, full)
    assert 0.0 < fitted.x0 <= 1.0
    # C1 at the boundary: both pieces and slopes agree
    left = fitted.a + fitted.b * math.sqrt(fitted.x0)
    assert left == pytest.approx(fitted.c + fitted.e * fitted.x0)
    assert fitted.b / (2 * math.sqrt(fitted.x0)) == pytest.approx(fitted.e)


def test_seek_table_is_interpolated_and_clamped() -> None:
    curve = SeekCurve.from_table([(1, 1.0), (100, 3.0), (1000, 9.0)], 1000)
    assert curve.ms(1 / 1000) == pytest.approx(1.0, abs=0.01)
    assert curve.ms(0.55) == pytest.approx(6.0, abs=0.02)  # halfway between 100 and 1000 cylinders
    assert curve.ms(0.0) == 0.0
    with pytest.raises(ValueError):
        SeekCurve.from_table([(0, 1.0), (10, 2.0)], 100)


def test_model_seek_uses_cylinders_through_the_radius_map() -> None:
    m = DiskModel(name="t", capacity_bytes=10**12, rpm=7200, r_od_mb_s_decimal=180.0, rho=2.0)
    assert m.seek_ms(0.3, 0.3) == 0.0
    assert m.seek_ms(0.0, 1.0) == pytest.approx(17.0, rel=1e-3)
    # equal LBA distances are shorter seeks at the outer edge (more bytes per cylinder)
    assert m.seek_ms(0.0, 0.1) < m.seek_ms(0.9, 1.0)
    assert m.seek_ms(0.0, 0.5, write=True) == pytest.approx(m.seek_ms(0.0, 0.5) + m.write_settle_ms)
    # sustained rate × revolution × heads × cylinders ≈ capacity (geometry is consistent)
    mean_track = m.r_od_mb_s_decimal * (1 - (1 - 1 / m.rho) / 2) * 1e6 * (1 + m.head_switch_ms / m.revolution_ms)
    assert mean_track * m.revolution_ms / 1000 * m.heads * m.total_cylinders == pytest.approx(10**12, rel=1e-3)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rpm": 100}, "rpm"),
        ({"rho": 0.5}, "rho"),
        ({"seek_avg_ms": 30.0}, "track < average < full"),
        ({"write_cache": "maybe"}, "write_cache"),
        ({"zones": ((0.1, 100.0),)}, "zones"),
    ],
)
def test_bad_models_are_refused_with_a_reason(change: dict[str, object], message: str) -> None:
    good = DiskModel(name="bad", capacity_bytes=10**12, rpm=7200, r_od_mb_s_decimal=180.0)
    with pytest.raises(BadInput, match=message):
        good.with_changes(**change)


def test_models_are_hashable_values() -> None:
    a = DiskModel(name="a", capacity_bytes=10**12, rpm=7200, r_od_mb_s_decimal=180.0)
    assert a == a.with_changes() and hash(a) == hash(a.with_changes())
    assert a != a.with_changes(overhead_ms=0.5)
