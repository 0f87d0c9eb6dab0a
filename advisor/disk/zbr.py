"""Zoned bit recording: where an LBA fraction sits radially and how fast it streams.

With a uniform track pitch and sectors-per-track proportional to the radius, the LBA
fraction X reached at stroke fraction u (0 = outer edge) is ``X(u) = (u - k·u²/2)/(1 - k/2)``
with ``k = 1 - 1/ρ`` and ρ the outer/inner rate ratio. Inverting gives the closed forms
used everywhere in the model::

    u(X) = (1 - sqrt(1 - (1 - ρ⁻²)·X)) / k
    R(X) = R_OD · sqrt(1 - (1 - ρ⁻²)·X)

so a band of the first 1 % of LBAs spans only 0.75 % of the stroke at ρ = 2, and the
middle of the LBA range runs at 0.79·R_OD, not 0.75. An explicit zone table (fraction,
MB/s) can replace the closed form: each zone then covers a radial width proportional to
its share of LBAs divided by its rate (bytes per cylinder are proportional to the rate).

>>> round(rate_factor(0.5, 2.0), 3)
0.791
>>> round(stroke_of_lba(0.01, 2.0), 4)
0.0075
>>> round(lba_of_stroke(stroke_of_lba(0.3, 1.7), 1.7), 6)
0.3
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def rate_factor(x: float, rho: float) -> float:
    """R(X)/R_OD for LBA fraction *x* on a disk with outer/inner ratio *rho*."""
    return math.sqrt(max(0.0, 1.0 - (1.0 - rho**-2) * x))


def stroke_of_lba(x: float, rho: float) -> float:
    """u(X): stroke fraction (0 = outer edge, 1 = inner) where LBA fraction *x* lies."""
    k = 1.0 - 1.0 / rho
    if k < 1e-9:
        return x
    return (1.0 - math.sqrt(max(0.0, 1.0 - (1.0 - rho**-2) * x))) / k


def lba_of_stroke(u: float, rho: float) -> float:
    """X(u): LBA fraction at stroke fraction *u* (inverse of :func:`stroke_of_lba`)."""
    k = 1.0 - 1.0 / rho
    return (u - k * u * u / 2.0) / (1.0 - k / 2.0)


def stroke_of_lba_array(x: FloatArray, rho: float) -> FloatArray:
    """Vectorised :func:`stroke_of_lba`."""
    k = 1.0 - 1.0 / rho
    if k < 1e-9:
        return np.asarray(x, dtype=np.float64)
    inner = np.maximum(0.0, 1.0 - (1.0 - rho**-2) * np.asarray(x, dtype=np.float64))
    return np.asarray((1.0 - np.sqrt(inner)) / k, dtype=np.float64)


class ZoneTable:
    """Piecewise-constant rate zones and the piecewise-linear LBA↔stroke map they imply."""

    def __init__(self, zones: Sequence[tuple[float, float]]) -> None:
        starts = np.array([z[0] for z in zones], dtype=np.float64)
        rates = np.array([z[1] for z in zones], dtype=np.float64)
        ends = np.append(starts[1:], 1.0)
        widths = (ends - starts) / rates  # radial width ∝ LBA share / bytes per cylinder
        u_bounds = np.concatenate(([0.0], np.cumsum(widths))) / widths.sum()
        self.x_bounds: FloatArray = np.append(starts, 1.0)
        self.u_bounds: FloatArray = u_bounds
        self.rates: FloatArray = rates

    def rate(self, x: float) -> float:
        """Sustained MB/s of the zone holding LBA fraction *x*."""
        index = int(np.searchsorted(self.x_bounds, x, side="right")) - 1
        return float(self.rates[min(max(index, 0), len(self.rates) - 1)])

    def stroke(self, x: float) -> float:
        """u(X) by linear interpolation inside the zone."""
        return float(np.interp(x, self.x_bounds, self.u_bounds))

    def stroke_array(self, x: FloatArray) -> FloatArray:
        """Vectorised :meth:`stroke`."""
        return np.asarray(np.interp(x, self.x_bounds, self.u_bounds), dtype=np.float64)

    def lba(self, u: float) -> float:
        """X(u) by linear interpolation (inverse of :meth:`stroke`)."""
        return float(np.interp(u, self.u_bounds, self.x_bounds))
