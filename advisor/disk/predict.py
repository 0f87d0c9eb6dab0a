"""Analytic expectations of service time: fast enough for a placement optimizer.

No simulation here: each figure is the Ruemmler–Wilkes sum ``overhead + E[seek] +
T_rev/2 + transfer`` with ``E[seek]`` integrated numerically over uniform LBA pairs mapped
through the radius map u(X) (a 48×48 midpoint grid in LBA, with the same-cell diagonal
taken at a third of the cell width, the mean gap of two uniform points). Results are
memoised per (model, bands), so repeated calls cost microseconds.

* :func:`mean_service_ms` — QD1 random (or sequential) IO confined to a band;
* :func:`mixed_service_ms` — streams interleaved on one actuator: the IO before each IO of
  stream *i* comes from stream *j* with probability share_j, so its seek starts in band *j*
  (what makes "WAL at the outer edge, data at the inner edge" expensive), and a sequential
  stream keeps streaming only when it follows itself. Committing streams (WAL/redo) can
  instead be given their *visit* rate (flushes per IO): each flush is one visit to the
  stream's band between two data IOs, which random interleaving under-counts;
* :func:`commit_rate_per_s` — same-sector rewrite + flush: one revolution per commit on an
  honest drive (≤ RPM/60), bounded by command overheads when the cache acknowledges;
* :func:`zone_curve` — sustained MB/s at n points across the LBA range.

These agree with :func:`advisor.disk.simulate.simulate` within a few per cent (tests).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from advisor.disk.mechanism import BUS_BYTES_PER_S
from advisor.disk.model import DiskModel

Band = tuple[float, float]
GRID = 48
OUTER: Band = (0.0, 0.01)
MIDDLE: Band = (0.495, 0.505)
INNER: Band = (0.99, 1.0)
HOST_TURNAROUND_MS = 0.02  # completion → next submission on the host (as in simulate)


def _strokes(model: DiskModel, band: Band) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = band
    edges = np.linspace(lo, hi, GRID + 1)
    u_edges = model.stroke_array(edges)
    mids = model.stroke_array((edges[:-1] + edges[1:]) / 2.0)
    return mids, np.abs(np.diff(u_edges))


@lru_cache(maxsize=8192)
def expected_seek_ms(model: DiskModel, to_band: Band, from_band: Band | None = None, write: bool = False) -> float:
    """E[seek] (ms) from a uniform point of *from_band* to one of *to_band* (same band if None)."""
    cyl = model.total_cylinders
    u_to, width = _strokes(model, to_band)
    same = from_band is None or from_band == to_band
    u_from = u_to if same else _strokes(model, from_band)[0]  # type: ignore[arg-type]
    distance = np.abs(u_to[:, None] - u_from[None, :]) * cyl
    if same:
        cell = width * cyl
        np.fill_diagonal(distance, cell / 3.0)
    seeks = np.where(distance >= 0.5, model.seek_curve.ms_array(np.maximum(distance, 1.0) / cyl), 0.0)
    if same:
        p_zero = 1.0 / np.maximum(width * cyl, 1.0)  # both ends on the same cylinder
        np.fill_diagonal(seeks, np.diag(seeks) * (1.0 - p_zero))
    mean = float(seeks.mean())
    if write and mean > 0:
        mean += model.write_settle_ms
    return mean


@lru_cache(maxsize=8192)
def _mean_rate(model: DiskModel, band: Band) -> float:
    lo, hi = band
    return float(np.mean([model.rate_mb_s_decimal(lo + (hi - lo) * (i + 0.5) / 8) for i in range(8)]))


def sequential_io_ms(model: DiskModel, band: Band, block_bytes: int) -> float:
    """Per-IO time of a QD1 sequential stream: media-bound or command-bound."""
    media = block_bytes / (_mean_rate(model, band) * 1000.0)
    host = model.overhead_ms + HOST_TURNAROUND_MS + block_bytes / BUS_BYTES_PER_S * 1000.0
    return max(media, host)


def positioned_io_ms(model: DiskModel, band: Band, block_bytes: int, from_band: Band | None, write: bool) -> float:
    """Overhead + E[seek] + half a turn + transfer for one IO landing uniformly in *band*."""
    seek = expected_seek_ms(model, band, from_band, write)
    transfer = block_bytes / (_mean_rate(model, band) * 1000.0)
    return model.overhead_ms + seek + model.revolution_ms / 2.0 + transfer


def mean_service_ms(
    model: DiskModel, band: Band, block_bytes: int, random: bool = True, write: bool = False
) -> float:
    """Mean QD1 service time (ms) of IOs confined to *band* (random or sequential)."""
    if not random:
        return sequential_io_ms(model, band, block_bytes)
    return positioned_io_ms(model, band, block_bytes, None, write)


def mixed_service_ms(
    model: DiskModel,
    streams: Sequence[tuple[Band, float, int, bool]],
    visits: Sequence[float | None] | None = None,
) -> list[float]:
    """Mean service time (ms) of each of several streams interleaved on one actuator.

    Each stream is ``(band, iops_share, block_bytes, sequential)``; shares are normalised.

    Without *visits* the streams interleave at random: the IO before an IO of stream *i*
    is from stream *j* with probability share_j. *visits* gives, per stream, its visits
    per IO (None: random interleaving), see :func:`_visit_service_ms`.
    """
    total = sum(share for _, share, _, _ in streams)
    if total <= 0:
        raise ValueError("stream shares must not all be zero")
    if visits is not None and any(v is not None and v > 0 for v in visits):
        bursty = _visit_service_ms(model, streams, visits, total)
        if bursty is not None:
            return bursty
    out = []
    for i, (band_i, _, block_i, seq_i) in enumerate(streams):
        expected = 0.0
        for j, (band_j, share_j, _, _) in enumerate(streams):
            p = share_j / total
            if p == 0:
                continue
            if i == j and seq_i:
                cost = sequential_io_ms(model, band_i, block_i)
            else:
                cost = positioned_io_ms(model, band_i, block_i, None if band_j == band_i else band_j, False)
            expected += p * cost
        out.append(expected)
    return out


def _visit_service_ms(
    model: DiskModel,
    streams: Sequence[tuple[Band, float, int, bool]],
    visits: Sequence[float | None],
    total: float,
) -> list[float] | None:
    """Per-stream means when committing streams come in visits between data IOs.

    A commit-driven workload does not draw its next IO at random: a transaction reads in
    the data area, then writes its WAL/redo record and flushes it. Every flush is a visit
    to the log's band — a seek there and, for the next data IO, a seek back — however
    small the log's share of the IOs. With 2 reads and 1 log write + flush per
    transaction, 2 of 3 IOs follow a switch of band, where random interleaving gives
    2·(2/3)·(1/3) = 4/9.

    Streams with a visit rate ``visits[s]`` (visits per IO of *s*: flushes per write for a
    log; 1 when each write is flushed) are *bursty*; the others are *data* streams and
    interleave among themselves at random. Each visit sits in one gap between two data
    IOs (at most one visit per gap, so the visit rate is capped by the data IO rate) and
    is a visit of stream *s* with probability ∝ its visit rate. Then, with a_s = visits[s]
    · share_s and D the data streams' total share:

    * a data IO follows a visit of *s* with probability a_s / D (its seek starts in band
      *s*), else a data IO of stream *d* with probability (1 - Σa/D) · share_d / D;
    * an IO of *s* opens a visit with probability a_s / share_s and then follows a data
      IO (drawn ∝ share_d); otherwise it follows its own previous IO (streaming when
      sequential). The visit ends in a media write, so the seek carries the write settle,
      and in a flush, a command of its own: one more overhead and host turnaround per
      visit, plus the bus transfer of the write the cache took first.

    With a_s = share_s · D this is exactly random interleaving, so the visit rate only
    changes the answer where the workload's flushes say the switches are more frequent
    (or rarer) than chance. Returns None when no data stream is left to alternate with.

    Not modelled: a log IO that opens no visit (the cap bound, or the log alone on its
    disk) streams, although a flushed write there still waits for its sector to come
    round (half a turn when commits arrive at random, a whole one back to back: see
    :func:`commit_rate_per_s`), so a log on its own actuator is predicted cheaper than it
    is; the objective is per-IO service time, which also leaves out that two actuators
    overlap their waits.
    """
    rate = [(v if v is not None and v > 0 else None) for v in visits]
    shares = [share / total for _, share, _, _ in streams]
    data = [j for j, v in enumerate(rate) if v is None and shares[j] > 0]
    data_share = sum(shares[j] for j in data)
    if not data or data_share <= 0:
        return None
    wanted = {s: min(1.0, v) * shares[s] for s, v in enumerate(rate) if v is not None}
    scale = min(1.0, data_share / max(sum(wanted.values()), 1e-300))
    a = {s: w * scale for s, w in wanted.items()}
    stay = max(0.0, 1.0 - sum(a.values()) / data_share)
    out = []
    for i, (_, _, block_i, _) in enumerate(streams):
        if i not in a:
            expected = sum(a[s] / data_share * _after(model, streams, i, s) for s in a)
            expected += sum(stay * shares[d] / data_share * _after(model, streams, i, d) for d in data)
        else:
            opens = min(1.0, a[i] / shares[i]) if shares[i] > 0 else 1.0
            command = model.overhead_ms + HOST_TURNAROUND_MS + block_i / BUS_BYTES_PER_S * 1000.0
            first = sum(shares[d] / data_share * _after(model, streams, i, d, write=True) for d in data) + command
            expected = opens * first + (1.0 - opens) * _after(model, streams, i, i)
        out.append(expected)
    return out


def _after(
    model: DiskModel, streams: Sequence[tuple[Band, float, int, bool]], i: int, j: int, write: bool = False
) -> float:
    """Service time of an IO of stream *i* right after one of stream *j*."""
    band_i, _, block_i, seq_i = streams[i]
    band_j = streams[j][0]
    if i == j and seq_i:
        return sequential_io_ms(model, band_i, block_i)
    return positioned_io_ms(model, band_i, block_i, None if band_j == band_i else band_j, write)


def commit_rate_per_s(model: DiskModel, write_cache: str | None = None, block_bytes: int = 8192) -> float:
    """Commits/s of a same-offset rewrite + flush loop (pg_test_fsync's fdatasync test).

    Honest drives (cache off, or volatile with a real flush) write the sector when it next
    comes under the head: one revolution per commit, more if the command turnaround does
    not fit in one. ``battery`` / ``lying`` caches acknowledge at command speed.
    """
    mode = write_cache or model.write_cache
    turnaround = 2.0 * (model.overhead_ms + HOST_TURNAROUND_MS) + block_bytes / BUS_BYTES_PER_S * 1000.0
    if mode in ("battery", "lying"):
        return 1000.0 / turnaround
    transfer = block_bytes / (model.media_mb_s_decimal(0.0) * 1000.0)
    revolutions = max(1, math.ceil((turnaround + transfer) / model.revolution_ms))
    return 1000.0 / (revolutions * model.revolution_ms)


def zone_curve(model: DiskModel, n: int = 11) -> list[tuple[float, float]]:
    """(LBA fraction, sustained datasheet MB/s) at *n* evenly spaced points from the outer to the inner edge."""
    if n < 2:
        raise ValueError("a zone curve needs at least two points")
    return [(i / (n - 1), model.rate_mb_s_decimal(i / (n - 1))) for i in range(n)]
