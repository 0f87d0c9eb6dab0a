"""The physical HDD model: zones, seek curve, rotation, overheads and cache settings.

:class:`DiskModel` is the one description of a drive that the simulator, the emulated HDD,
the predictor and the placement engine share. It is a frozen dataclass, built from a
preset (:mod:`advisor.disk.presets`), a user's ``drive.toml`` or a fit of a measured
profile (:mod:`advisor.disk.fit`).

Conventions (Ruemmler & Wilkes 1994; DiskSim's disk models):

* positions are LBA fractions ``X`` in [0, 1], 0 = outer edge; the radial position is the
  stroke fraction ``u(X)`` from the zoned-recording closed form (or an explicit zone table);
* ``r_od_mb_s_decimal`` and :meth:`DiskModel.rate_mb_s_decimal` are the *sustained* sequential rate
  (what a zone benchmark and "sustained" datasheet lines report, head switches included);
  the rate under the head inside one track is :meth:`DiskModel.media_mb_s_decimal`, higher by one
  head switch per revolution: ``media = rate·(1 + t_hs/T_rev)``;
* seek distances are whole cylinders: ``|u₁ - u₂|·cylinders`` rounded, zero when both ends
  share a cylinder; writes add the write-settle time to any non-zero seek;
* MB is 10⁶ bytes, as on datasheets; times are in ms unless the name says ``_s``.

Example::

    >>> m = DiskModel(name="demo", capacity_bytes=10**12, rpm=7200, r_od_mb_s_decimal=180.0, rho=2.0)
    >>> round(m.revolution_ms, 3), round(m.rate_mb_s_decimal(1.0), 1)
    (8.333, 90.0)
    >>> m.seek_ms(0.0, 0.0), round(m.seek_ms(0.0, 1.0), 1)
    (0.0, 17.0)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from advisor.disk.seek import SeekCurve
from advisor.disk.zbr import FloatArray, ZoneTable, lba_of_stroke, rate_factor, stroke_of_lba, stroke_of_lba_array
from advisor.errors import BadInput
from advisor.units import DISK_MB, DRIVE_RPM_RANGE, KIB, MIB

MAX_CYLINDERS = 5_000_000
"""More cylinders than any drive has (the densest have about 500,000 tracks per surface): a model
beyond it comes from figures that are not a disk's, and its seek table alone would take
32 bytes a cylinder."""

WriteCache = Literal["off", "volatile", "battery"]
WRITE_CACHE_MODES: tuple[str, ...] = ("off", "volatile", "battery")


@dataclass(frozen=True, slots=True)
class DiskModel:
    """Physics of one drive; see the module docstring for units and conventions."""

    name: str
    capacity_bytes: int
    rpm: float
    r_od_mb_s_decimal: float
    rho: float = 2.0
    zones: tuple[tuple[float, float], ...] = ()  # explicit (LBA fraction start, sustained MB/s)
    seek_track_ms: float = 0.8
    seek_avg_ms: float = 8.5
    seek_full_ms: float = 17.0
    seek_table: tuple[tuple[float, float], ...] = ()  # measured (cylinders, ms); overrides the triple
    overhead_ms: float = 0.2
    head_switch_ms: float = 1.0
    write_settle_ms: float = 0.3
    read_ahead_bytes: int = 512 * KIB
    cache_bytes: int = 16 * MIB
    write_cache: WriteCache = "volatile"
    heads: int = 4
    cylinders: int | None = None  # derived from capacity, rates and rpm when not given
    _curve: SeekCurve = field(init=False, repr=False, compare=False, hash=False)
    _table: ZoneTable | None = field(init=False, repr=False, compare=False, hash=False)
    _cylinders: int = field(init=False, repr=False, compare=False, hash=False)
    _layout_cylinders: int = field(init=False, repr=False, compare=False, hash=False)
    _hash: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        problems = self._problems()
        if problems:
            raise BadInput(f"drive {self.name!r}: " + "; ".join(problems))
        table = ZoneTable(self.zones) if self.zones else None
        object.__setattr__(self, "_table", table)
        layout = self._derived_cylinders(table)
        cylinders = self.cylinders or layout
        if max(cylinders, layout) > MAX_CYLINDERS:
            raise BadInput(f"drive {self.name!r}: its capacity, rates and rpm imply {max(cylinders, layout):,} "
                           f"cylinders, more than any drive's {MAX_CYLINDERS:,}: these are not a disk's figures")
        object.__setattr__(self, "_cylinders", cylinders)
        object.__setattr__(self, "_layout_cylinders", layout)
        try:
            if self.seek_table:
                curve = SeekCurve.from_table(self.seek_table, cylinders)
            else:
                curve = SeekCurve.from_triple(self.seek_track_ms, self.seek_avg_ms, self.seek_full_ms)
        except ValueError as exc:
            raise BadInput(f"drive {self.name!r}: {exc}") from None
        object.__setattr__(self, "_curve", curve)
        public = tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)
        object.__setattr__(self, "_hash", hash(public))

    def __hash__(self) -> int:
        """Hash computed once: the predictor memoises on models."""
        return self._hash

    def _problems(self) -> list[str]:
        out = []
        if self.capacity_bytes <= 0:
            out.append("capacity_bytes must be positive")
        if not DRIVE_RPM_RANGE[0] <= self.rpm <= DRIVE_RPM_RANGE[1]:
            out.append(f"rpm {self.rpm} is outside {DRIVE_RPM_RANGE[0]}..{DRIVE_RPM_RANGE[1]}")
        if self.r_od_mb_s_decimal <= 0:
            out.append("r_od_mb_s_decimal must be positive")
        if not 1.0 <= self.rho <= 4.0:
            out.append(f"rho {self.rho} is outside 1..4 (outer/inner rate ratio)")
        if self.zones:
            starts = [z[0] for z in self.zones]
            if starts[0] != 0.0 or starts != sorted(starts) or starts[-1] >= 1.0 or len(set(starts)) != len(starts):
                out.append("zones must start at fraction 0 and increase below 1")
            if any(z[1] <= 0 for z in self.zones):
                out.append("zone rates must be positive")
        for name in ("overhead_ms", "head_switch_ms", "write_settle_ms"):
            if getattr(self, name) < 0:
                out.append(f"{name} must not be negative")
        if self.read_ahead_bytes < 0 or self.cache_bytes < 0:
            out.append("cache sizes must not be negative")
        if self.write_cache not in WRITE_CACHE_MODES:
            out.append(f"write_cache must be one of {', '.join(WRITE_CACHE_MODES)}")
        if self.heads < 1 or (self.cylinders is not None and self.cylinders < 2):
            out.append("heads must be ≥ 1 and cylinders ≥ 2")
        return out

    def _derived_cylinders(self, table: ZoneTable | None) -> int:
        """Cylinders implied by capacity: tracks = capacity / mean bytes per track."""
        t_rev_s = 60.0 / self.rpm
        boost = 1.0 + self.head_switch_ms / (t_rev_s * 1000.0)
        if table is not None:
            widths = table.u_bounds[1:] - table.u_bounds[:-1]
            mean_rate = float((widths * table.rates).sum())
        else:
            mean_rate = self.r_od_mb_s_decimal * (1.0 - (1.0 - 1.0 / self.rho) / 2.0)
        mean_track = mean_rate * boost * DISK_MB * t_rev_s
        return max(2, round(self.capacity_bytes / mean_track / self.heads))

    # -- geometry -------------------------------------------------------------------
    @property
    def revolution_ms(self) -> float:
        """Time of one revolution (ms)."""
        return 60000.0 / self.rpm

    @property
    def total_cylinders(self) -> int:
        """Cylinders on the stroke (given, or derived from capacity and rates)."""
        return self._cylinders

    @property
    def layout_cylinders(self) -> int:
        """Cylinders whose tracks hold exactly one revolution at the media rate.

        Equal to :attr:`total_cylinders` unless an explicit cylinder count (used for seek
        distances, e.g. from a DiskSim table) disagrees with capacity and rates; the
        rotational layout always follows the rates so sequential transfers run at them.
        """
        return self._layout_cylinders

    @property
    def seek_curve(self) -> SeekCurve:
        """The sampled seek curve (stroke fraction → ms, reads)."""
        return self._curve

    def stroke(self, fraction: float) -> float:
        """u(X): stroke fraction of LBA fraction *fraction* (0 = outer edge)."""
        if self._table is not None:
            return self._table.stroke(fraction)
        return stroke_of_lba(fraction, self.rho)

    def stroke_array(self, fractions: FloatArray) -> FloatArray:
        """Vectorised :meth:`stroke`."""
        if self._table is not None:
            return self._table.stroke_array(fractions)
        return stroke_of_lba_array(fractions, self.rho)

    def lba_of_stroke(self, u: float) -> float:
        """X(u): LBA fraction at stroke fraction *u* (inverse of :meth:`stroke`)."""
        if self._table is not None:
            return self._table.lba(u)
        return lba_of_stroke(u, self.rho)

    def lba_of_stroke_array(self, u: FloatArray) -> FloatArray:
        """Vectorised :meth:`lba_of_stroke`."""
        u = np.asarray(u, dtype=np.float64)
        if self._table is not None:
            return np.asarray(np.interp(u, self._table.u_bounds, self._table.x_bounds), dtype=np.float64)
        k = 1.0 - 1.0 / self.rho
        return np.asarray((u - k * u * u / 2.0) / (1.0 - k / 2.0), dtype=np.float64)

    # -- rates ----------------------------------------------------------------------
    def rate_mb_s_decimal(self, fraction: float) -> float:
        """Sustained sequential MB/s at LBA fraction *fraction* (head switches included)."""
        if self._table is not None:
            return self._table.rate(fraction)
        return self.r_od_mb_s_decimal * rate_factor(min(max(fraction, 0.0), 1.0), self.rho)

    def media_mb_s_decimal(self, fraction: float) -> float:
        """MB/s under the head inside one track (no head switch)."""
        return self.rate_mb_s_decimal(fraction) * (1.0 + self.head_switch_ms / self.revolution_ms)

    def transfer_ms(self, fraction: float, nbytes: int) -> float:
        """Expected time to transfer *nbytes* at *fraction*, track switches included."""
        return nbytes / (self.rate_mb_s_decimal(fraction) * 1000.0)

    # -- seeks ----------------------------------------------------------------------
    def seek_cylinders_ms(self, distance: int, write: bool = False) -> float:
        """Seek time for a move of *distance* cylinders (0 → no seek, no settle)."""
        if distance <= 0:
            return 0.0
        t = self._curve.ms(distance / self._cylinders)
        return t + self.write_settle_ms if write else t

    def seek_ms(self, from_fraction: float, to_fraction: float, write: bool = False) -> float:
        """Seek time between two LBA fractions, via the radius map u(X)."""
        distance = round(abs(self.stroke(from_fraction) - self.stroke(to_fraction)) * self._cylinders)
        return self.seek_cylinders_ms(distance, write)

    def with_changes(self, **changes: Any) -> DiskModel:
        """A copy with some fields replaced (validated again)."""
        return dataclasses.replace(self, **changes)
