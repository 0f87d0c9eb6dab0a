"""What the engine needs from a disk model, and the adapter to :mod:`advisor.disk`.

The engine stays pure and testable: it asks a :class:`DiskPhysics` for predicted service
times of IO streams placed in bands of the disk. :class:`ModelPhysics` answers with the
analytic expectations of :mod:`advisor.disk.predict` (Ruemmler-Wilkes service time, zoned
recording rate, seek curve), which are cheap enough to call thousands of times.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from advisor.disk import predict
from advisor.disk.mechanism import BUS_BYTES_PER_S
from advisor.disk.model import DiskModel
from advisor.disk.predict import HOST_TURNAROUND_MS

Band = tuple[float, float]
"""A span of the disk as fractions of its LBA range (0 = outer edge)."""

FAST_GRID = 8
"""Points per band for the search's seek integration (predict uses 64)."""

LUT_SIZE = 4096
"""Resolution of the seek and rate tables the fast cost reads (1/4096 of the stroke)."""

Stream = tuple[Band, float, int, bool]
"""One IO stream on an actuator: band, share of the actuator's IOs, request bytes, sequential."""

Visits = Sequence[float | None] | None
"""Per stream, its visits per IO when it comes in visits (a log flushed by commits), else None."""


class DiskPhysics(Protocol):
    """Predicted behaviour of one disk model (one actuator)."""

    @property
    def name(self) -> str:
        """Model or preset name shown in reports."""

    @property
    def capacity_bytes(self) -> int:
        """Size of the disk the model describes."""

    @property
    def rpm(self) -> int | None:
        """Spindle speed; None for solid-state models."""

    def mean_service_ms(self, band: Band, block_bytes: int, random: bool = True) -> float:
        """Mean QD1 service time of requests alone in *band*."""

    def mixed_service_ms(self, streams: Sequence[Stream], visits: Visits = None) -> list[float]:
        """Mean service time of each stream when all are interleaved on one actuator.

        *visits*: per stream, visits per IO of a committing stream (WAL/redo), or None for
        random interleaving (see :func:`advisor.disk.predict.mixed_service_ms`).
        """

    def fast_mixed_service_ms(self, streams: Sequence[Stream], visits: Visits = None) -> list[float]:
        """A cheaper approximation of :meth:`mixed_service_ms` for searching many layouts."""

    def commit_rate_per_s(self, write_cache: str = "off") -> float:
        """Honest same-sector rewrite + flush rate (about RPM/60 without a write cache)."""

    def zone_curve(self, points: int) -> list[tuple[float, float]]:
        """Sequential rate (fraction, MB/s) from the outer to the inner edge."""


def weighted_mean_ms(streams: Sequence[Stream], times_ms: Sequence[float]) -> float:
    """IO-weighted mean service time of interleaved streams."""
    total = sum(s[1] for s in streams)
    if total <= 0:
        return 0.0
    return sum(s[1] * t for s, t in zip(streams, times_ms, strict=True)) / total


def transitions(shares: np.ndarray, visits: Visits) -> tuple[np.ndarray, np.ndarray] | None:
    """P(previous IO from stream j | an IO of stream i), and per stream the share of its IOs
    that open a visit, for the visit model of :func:`advisor.disk.predict.mixed_service_ms`.

    None when no stream has a visit rate or no data stream is left (random interleaving).
    """
    if visits is None or not any(v is not None and v > 0 for v in visits):
        return None
    n = len(shares)
    bursty = np.array([v is not None and v > 0 for v in visits])
    data = ~bursty & (shares > 0)
    data_share = float(shares[data].sum())
    if data_share <= 0:
        return None
    rate = np.array([min(1.0, v) if v is not None and v > 0 else 0.0 for v in visits])
    wanted = rate * shares
    a = wanted * min(1.0, data_share / max(float(wanted.sum()), 1e-300))
    stay = max(0.0, 1.0 - float(a.sum()) / data_share)
    follow = np.zeros((n, n))
    opens = np.zeros(n)
    pick_data = np.where(data, shares / data_share, 0.0)
    for i in range(n):
        if bursty[i]:
            opens[i] = min(1.0, a[i] / shares[i]) if shares[i] > 0 else 1.0
            follow[i] = opens[i] * pick_data
            follow[i, i] += 1.0 - opens[i]
        else:
            follow[i] = a / data_share + stay * pick_data
    return follow, opens


class ModelPhysics:
    """:class:`DiskPhysics` backed by a :class:`advisor.disk.model.DiskModel` and its predictor.

    *time_scale* S describes the drive run on a clock S times fast, as ``advisor disk emulate
    --scale S`` runs it: every modelled time is divided by S and every rate multiplied by S, so
    absolute times match that disk while ratios between layouts (the gains) stay the same.
    Scaling the drive's figures instead (S times the rpm) would leave the drive's valid ranges.

    *path_s* is a request's time between the host's block layer and the drive, both ways, on the
    host's clock (``--path-ms``): the replay of a trace serves its requests behind it
    (:class:`advisor.disk.replay_devices.DriveDevice`); the aggregate model, which has no block layer,
    does not use it.
    """

    def __init__(self, model: DiskModel, solid_state: bool = False, time_scale: float = 1.0,
                 path_s: float = 0.0) -> None:
        if not time_scale > 0:
            raise ValueError("time_scale must be positive")
        if not path_s >= 0:
            raise ValueError("path_s cannot be negative")
        self.model = model
        self.time_scale = float(time_scale)
        self.path_s = float(path_s)
        self._solid_state = solid_state
        self._luts: tuple[np.ndarray, np.ndarray] | None = None
        self._stroke_lut = np.zeros(0)

    @property
    def name(self) -> str:
        """The drive model's name."""
        return self.model.name

    @property
    def capacity_bytes(self) -> int:
        """Capacity of the modelled drive."""
        return self.model.capacity_bytes

    @property
    def rpm(self) -> int | None:
        """Spindle speed on the clock the disk runs on (S times the drive's at *time_scale* S), None
        when the disk was measured as solid state: the rotation limit of commits follows it."""
        return None if self._solid_state else int(round(self.model.rpm * self.time_scale))

    def mean_service_ms(self, band: Band, block_bytes: int, random: bool = True) -> float:
        """QD1 mean service time alone in *band* (advisor.disk.predict)."""
        return float(predict.mean_service_ms(self.model, band, block_bytes, random=random)) / self.time_scale

    def mixed_service_ms(self, streams: Sequence[Stream], visits: Visits = None) -> list[float]:
        """Per-stream mean with all streams interleaved on the actuator (advisor.disk.predict)."""
        return [float(t) / self.time_scale for t in predict.mixed_service_ms(self.model, list(streams), visits)]

    def fast_mixed_service_ms(self, streams: Sequence[Stream], visits: Visits = None) -> list[float]:
        """The predictor's formula with an 8x8-point grid for seeks between bands, vectorised.

        ``predict.mixed_service_ms`` integrates each pair of bands on a 64x64 grid and caches
        per band pair; a search visits thousands of distinct layouts, so it would miss the
        cache every time. Same terms (overhead, E[seek], half a turn, transfer; sequential
        streams stream only after themselves), within a few per cent of the exact figure.
        With *visits*, the same transition structure as the exact predictor's visit model
        (:func:`transitions`), the write settle and the flush command included.
        """
        model = self.model
        n = len(streams)
        bands = np.array([s[0] for s in streams], dtype=float).reshape(n, 2)
        shares = np.array([s[1] for s in streams], dtype=float)
        total = shares.sum()
        if n == 0 or total <= 0:
            return [0.0] * n
        seek_lut, rate_lut = self._tables()
        grid = FAST_GRID if n <= 12 else 4
        steps = (np.arange(grid) + 0.5) / grid
        points = np.clip(bands[:, :1] + (bands[:, 1:] - bands[:, :1]) * steps, 0.0, 1.0)
        cells = (points * LUT_SIZE).astype(np.int64)
        strokes = self._stroke_lut[cells]
        rates = rate_lut[cells].mean(axis=1)
        cylinders = model.total_cylinders
        distance = np.abs(strokes[:, None, :, None] - strokes[None, :, None, :])
        index = np.minimum((distance * LUT_SIZE + 0.5).astype(np.int64), LUT_SIZE)
        expected = np.where(distance * cylinders >= 0.5, seek_lut[index], 0.0).mean(axis=(2, 3))
        # inside its own band: same grid, the diagonal cell at a third of its width (as predict does)
        width = np.abs(self._stroke_lut[np.minimum((bands[:, 1] * LUT_SIZE).astype(np.int64), LUT_SIZE)]
                       - self._stroke_lut[(bands[:, 0] * LUT_SIZE).astype(np.int64)])
        own = np.abs(strokes[:, :, None] - strokes[:, None, :])
        own[:, np.arange(grid), np.arange(grid)] = (width / grid / 3.0)[:, None]
        own_index = np.minimum((own * LUT_SIZE + 0.5).astype(np.int64), LUT_SIZE)
        self_seek = np.where(own * cylinders >= 0.5, seek_lut[own_index], 0.0).mean(axis=(1, 2))
        blocks = np.array([s[2] for s in streams], dtype=float)
        transfer = blocks / (rates * 1000.0)
        positioned = model.overhead_ms + model.revolution_ms / 2 + transfer[:, None] + expected
        sequential = np.array([s[3] for s in streams], dtype=bool)
        streaming = np.maximum(transfer, model.overhead_ms + HOST_TURNAROUND_MS + blocks / BUS_BYTES_PER_S * 1000.0)
        diagonal = np.where(sequential, streaming, model.overhead_ms + model.revolution_ms / 2 + transfer + self_seek)
        positioned[np.arange(n), np.arange(n)] = diagonal
        structure = transitions(shares / total, visits)
        if structure is None:
            return [float(v) / self.time_scale for v in positioned @ (shares / total)]
        follow, opens = structure
        far = np.any(bands[:, None, :] != bands[None, :, :], axis=2)
        flush = model.overhead_ms + HOST_TURNAROUND_MS + blocks / BUS_BYTES_PER_S * 1000.0
        settle = (follow * far).sum(axis=1) * model.write_settle_ms
        extra = np.where(opens > 0, settle + opens * flush, 0.0)
        return [float(v) / self.time_scale for v in (positioned * follow).sum(axis=1) + extra]

    def _tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Seek time by stroke distance and rate by LBA fraction, sampled once per model."""
        if self._luts is None:
            grid = np.linspace(0.0, 1.0, LUT_SIZE + 1)
            cylinders = self.model.total_cylinders
            seek = self.model.seek_curve.ms_array(np.maximum(grid, 1.0 / cylinders))
            rate = np.array([self.model.rate_mb_s_decimal(float(x)) for x in grid])
            self._stroke_lut = self.model.stroke_array(grid)
            self._luts = (seek, rate)
        return self._luts

    def commit_rate_per_s(self, write_cache: str = "off") -> float:
        """Honest flush rate of the drive (advisor.disk.predict)."""
        return float(predict.commit_rate_per_s(self.model, write_cache)) * self.time_scale

    def zone_curve(self, points: int) -> list[tuple[float, float]]:
        """Sequential MB/s at *points* fractions from the outer edge."""
        return [(float(f), float(rate) * self.time_scale) for f, rate in predict.zone_curve(self.model, points)]
