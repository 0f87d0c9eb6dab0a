"""Seek curves: time to move the arm a given fraction of the full stroke.

Two sources:

* a datasheet triple (single-track, average, full-stroke) turned into the C¹-continuous
  Ruemmler–Wilkes form ``a + b·√x`` for ``x < x0`` and ``c + e·x`` beyond, with x the
  seek distance as a fraction of the stroke and x0 solved so that the triangular-weighted
  mean ``∫ t(x)·2(1-x) dx`` equals the datasheet average (that weighting is exactly how
  HGST/Hitachi/IBM define "average seek", and what a uniform random QD1 workload sees);
* a measured table of (cylinders, ms), interpolated linearly in distance as DiskSim does
  (flat beyond its ends), so every published point is reproduced.

Both are sampled once onto a grid that is uniform in √x, where the short-seek branch is a
straight line; evaluating a seek is then one index and one interpolation, cheap enough for
the simulator's inner loop.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from advisor.disk.zbr import FloatArray

GRID_POINTS = 2048


@dataclass(frozen=True, slots=True)
class ThreePoint:
    """Parameters of the two-piece curve built from a datasheet triple (times in ms)."""

    a: float
    b: float
    c: float
    e: float
    x0: float

    def ms(self, x: float) -> float:
        """Seek time for a distance of *x* stroke fractions (x > 0)."""
        if x < self.x0:
            return self.a + self.b * math.sqrt(x)
        return self.c + self.e * x


def _three_point(a: float, full: float, x0: float) -> ThreePoint:
    b = 2.0 * (full - a) * math.sqrt(x0) / (x0 + 1.0)
    e = b / (2.0 * math.sqrt(x0))
    c = a + b * math.sqrt(x0) / 2.0
    return ThreePoint(a, b, c, e, x0)


def _weighted_mean(curve: ThreePoint) -> float:
    """∫₀¹ t(x)·2(1-x) dx in closed form."""
    x0, a, b, c, e = curve.x0, curve.a, curve.b, curve.c, curve.e
    s = math.sqrt(x0)
    short = a * (2 * x0 - x0 * x0) + b * (4.0 / 3.0 * s**3 - 0.8 * s**5)
    long_c = c * (1.0 - 2 * x0 + x0 * x0)
    long_e = e * ((1.0 - x0 * x0) - 2.0 / 3.0 * (1.0 - x0**3))
    return short + long_c + long_e


def fit_three_point(t_track: float, t_avg: float, t_full: float) -> ThreePoint:
    """Solve x0 so the curve through (t_track, t_full) has the datasheet average.

    An average outside the feasible range ``[a + (full-a)/3, a + 0.533·(full-a)]`` is
    clamped to the nearest feasible curve (x0 at its bound) rather than rejected: vendor
    "typical" averages are rounded and sometimes sit just outside.

    >>> curve = fit_three_point(0.8, 8.5, 17.0)
    >>> round(_weighted_mean(curve), 3)
    8.5
    """
    if not 0 <= t_track < t_avg < t_full:
        raise ValueError(f"seek times must satisfy track < average < full (got {t_track}, {t_avg}, {t_full})")
    lo, hi = 1e-6, 1.0
    if _weighted_mean(_three_point(t_track, t_full, lo)) >= t_avg:
        return _three_point(t_track, t_full, lo)
    if _weighted_mean(_three_point(t_track, t_full, hi)) <= t_avg:
        return _three_point(t_track, t_full, hi)
    for _ in range(80):  # mean grows monotonically with x0
        mid = math.sqrt(lo * hi)
        if _weighted_mean(_three_point(t_track, t_full, mid)) < t_avg:
            lo = mid
        else:
            hi = mid
    return _three_point(t_track, t_full, math.sqrt(lo * hi))


class SeekCurve:
    """A seek curve sampled on a √x grid; ``ms(x)`` for a stroke fraction x in (0, 1]."""

    def __init__(self, grid: FloatArray, min_ms: float) -> None:
        self.grid = grid  # grid[i] = t(x = (i/N)²)
        self.grid_list: list[float] = [float(v) for v in grid]
        self.steps = len(grid) - 1
        self.min_ms = min_ms  # any non-zero seek costs at least the single-track time
        self._slopes = np.diff(grid)

    @classmethod
    def from_triple(cls, t_track: float, t_avg: float, t_full: float) -> SeekCurve:
        """Build from datasheet single-track, average and full-stroke times (ms)."""
        curve = fit_three_point(t_track, t_avg, t_full)
        s = np.linspace(0.0, 1.0, GRID_POINTS + 1)
        x = s * s
        grid = np.where(x < curve.x0, curve.a + curve.b * s, curve.c + curve.e * x)
        return cls(np.asarray(grid, dtype=np.float64), t_track)

    @classmethod
    def from_table(cls, points: Sequence[tuple[float, float]], cylinders: int) -> SeekCurve:
        """Build from measured (distance in cylinders, ms) points, interpolating linearly in d."""
        table = sorted((float(d), float(t)) for d, t in points)
        if len(table) < 2 or table[0][0] < 1 or any(t <= 0 for _, t in table):
            raise ValueError("a seek table needs at least two points with distance ≥ 1 cylinder and time > 0")
        distances = np.array([d for d, _ in table])
        times = np.array([t for _, t in table])
        s = np.linspace(0.0, 1.0, GRID_POINTS + 1)
        grid = np.interp(s * s * cylinders, distances, times)  # flat beyond the ends, as DiskSim clamps
        return cls(np.asarray(grid, dtype=np.float64), float(times[0]))

    def ms(self, x: float) -> float:
        """Seek time in ms for a move of *x* stroke fractions (0 → 0)."""
        if x <= 0.0:
            return 0.0
        pos = math.sqrt(x if x < 1.0 else 1.0) * self.steps
        i = int(pos)
        if i >= self.steps:
            return self.grid_list[self.steps]
        lo = self.grid_list[i]
        t = lo + (pos - i) * (self.grid_list[i + 1] - lo)
        return t if t > self.min_ms else self.min_ms

    def ms_array(self, x: FloatArray) -> FloatArray:
        """Vectorised :meth:`ms` (zero where x is zero)."""
        x = np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0)
        pos = np.sqrt(x) * self.steps
        k = np.minimum(pos.astype(np.int64), self.steps - 1)
        t = self.grid[k] + (pos - k) * self._slopes[k]
        return np.asarray(np.where(x > 0.0, np.maximum(t, self.min_ms), 0.0), dtype=np.float64)
