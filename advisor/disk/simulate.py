"""Discrete-event simulation of streams of IO on one drive (one actuator, one queue).

Each :class:`StreamSpec` is a closed loop: it keeps ``qd`` requests outstanding and
submits the next one ``think_ms`` after a completion (the host's turnaround: two QD1
processes therefore alternate on the actuator, as on real disks). With ``weight`` set on
every stream, a completion is instead replaced by a request from stream *j* drawn with
probability ∝ weight_j, which is the model :func:`advisor.disk.predict.mixed_service_ms`
assumes. With ``burst`` set on every stream, one request is in flight at a time and the
streams take turns, each issuing ``burst`` IOs in a row: a transaction of N reads in the
data band, then one log write and its flush (``flush_every=1``) — the visit structure of
a commit-driven workload that ``mixed_service_ms(..., visits=...)`` predicts. Offsets
for random patterns are drawn up front with numpy (uniform, aligned to the block, inside
the band); sequential patterns walk the band and wrap.

The drive is a :class:`~advisor.disk.mechanism.Mechanism`: SPTF with a margin among the
requests that have arrived, real rotational positions, read-ahead and write cache. The
result is deterministic for a given seed.

>>> from advisor.disk.model import DiskModel
>>> m = DiskModel(name="d", capacity_bytes=10**12, rpm=7200, r_od_mb_s_decimal=180.0)
>>> r = simulate(m, [StreamSpec("randread", (0.0, 1.0), 8192)], ios=500, seed=1)
>>> 50 < r.iops < 100
True
"""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_left, insort
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from advisor.disk.mechanism import Mechanism, Request
from advisor.disk.model import DiskModel
from advisor.errors import BadInput
from advisor.units import DISK_MB, CacheMode

Pattern = Literal["randread", "read", "write", "randwrite"]
PATTERNS: tuple[str, ...] = ("randread", "read", "write", "randwrite")


@dataclass(frozen=True, slots=True)
class StreamSpec:
    """One IO stream: pattern, LBA band (fractions), block size, queue depth."""

    pattern: Pattern
    band: tuple[float, float] = (0.0, 1.0)
    block_bytes: int = 8192
    qd: int = 1
    weight: float | None = None  # share of IOs when every stream has one (see module doc)
    burst: int | None = None  # IOs in a row per turn when every stream has one (see module doc)
    flush_every: int | None = None  # a flush after every N writes; that write's latency runs to the flush's end
    think_ms: float = 0.02


@dataclass(frozen=True, slots=True)
class StreamResult:
    """What one stream achieved."""

    pattern: str
    band: tuple[float, float]
    block_bytes: int
    qd: int
    ios: int
    iops: float
    mb_s_decimal: float
    mean_ms: float
    p50_ms: float
    p99_ms: float


@dataclass(frozen=True, slots=True)
class SimResult:
    """Totals over all streams plus per-stream figures (after warm-up)."""

    ios: int
    seconds: float
    iops: float
    mb_s_decimal: float
    mean_ms: float
    p50_ms: float
    p99_ms: float
    per_stream: tuple[StreamResult, ...]
    flushes: int = 0


class _Source:
    """Offsets for one stream."""

    def __init__(self, spec: StreamSpec, capacity: int, count: int, rng: np.random.Generator) -> None:
        lo, hi = spec.band
        if not 0.0 <= lo < hi <= 1.0:
            raise BadInput(f"band {lo}:{hi} must satisfy 0 ≤ lo < hi ≤ 1")
        if spec.pattern not in PATTERNS:
            raise BadInput(f"pattern {spec.pattern!r} is not one of {', '.join(PATTERNS)}")
        if spec.block_bytes <= 0 or spec.qd < 1:
            raise BadInput("block size and queue depth must be positive")
        block = spec.block_bytes
        self.first = int(lo * capacity) // block
        self.last = max(self.first + 1, (int(hi * capacity) - block) // block + 1)  # exclusive, in blocks
        self.block = block
        self.op = "read" if spec.pattern in ("randread", "read") else "write"
        self.random = spec.pattern.startswith("rand")
        self.draws = rng.integers(self.first, self.last, size=count) if self.random else None
        self.cursor = self.first
        # random offsets are drawn up front and replayed in a cycle (a C-level call per IO)
        self.next_offset: Callable[[], int] = (
            itertools.cycle((self.draws * block).tolist()).__next__ if self.draws is not None else self._next_in_band
        )

    def _next_in_band(self) -> int:
        offset = self.cursor * self.block
        self.cursor += 1
        if self.cursor >= self.last:
            self.cursor = self.first
        return offset


def simulate(
    model: DiskModel,
    streams: Sequence[StreamSpec],
    ios: int = 10000,
    seed: int = 0,
    *,
    sptf_margin_ms: float = 1.0,
    write_cache: CacheMode | None = None,
    warmup_ios: int | None = None,
) -> SimResult:
    """Run *ios* data IOs of *streams* on *model*; see the module docstring."""
    if not streams:
        raise BadInput("simulate needs at least one stream")
    if ios < 1:
        raise BadInput("ios must be at least 1")
    weighted = [s.weight for s in streams]
    if any(w is not None for w in weighted) and any(w is None or w < 0 for w in weighted):
        raise BadInput("give a non-negative weight to every stream or to none")
    bursts = [s.burst for s in streams]
    if any(b is not None for b in bursts):
        if any(b is None or b < 1 for b in bursts) or any(w is not None for w in weighted):
            raise BadInput("give a burst of at least 1 to every stream or to none, and no weights with bursts")
    warm = min(ios // 10, 500) if warmup_ios is None else warmup_ios
    total = ios + warm
    rng = np.random.default_rng(seed)
    mech = Mechanism(model, seed=seed, sptf_margin_ms=sptf_margin_ms, write_cache=write_cache)
    sources = [_Source(s, model.capacity_bytes, total + s.qd + 1, rng) for s in streams]
    for src in sources:
        if src.draws is not None:
            mech.prime(src.draws * src.block, src.block)
    pick: list[int] = []
    if weighted[0] is not None:
        w = np.array(weighted, dtype=np.float64)
        if w.sum() <= 0:
            raise BadInput("stream weights must not all be zero")
        pick = [int(v) for v in rng.choice(len(streams), size=total + 1, p=w / w.sum())]
    think = [s.think_ms / 1000.0 for s in streams]
    writes_since_flush = [0] * len(streams)
    arrivals: list[tuple[float, int, int]] = []  # (time, sequence, stream); op decided at submit
    seq = 0
    picked = 0
    if bursts[0] is not None:  # turns: one request in flight, the next stream's IO after each
        turn = [i for i, b in enumerate(bursts) for _ in range(b or 0)]
        pick = [turn[k % len(turn)] for k in range(total + 2)]
        arrivals.append((0.0, seq, pick[0]))
        seq, picked = 1, 1
    else:
        for index, spec in enumerate(streams):
            for _ in range(spec.qd):
                arrivals.append((0.0, seq, index))
                seq += 1
    heapq.heapify(arrivals)
    pending: list[Request] = []
    # Columns of the queue, in the order of `pending`, for ReadChooser.choose: the
    # geometry of a queued read is looked up once, not at every decision. Only reads whose
    # geometry is already known (random offsets are located in bulk up front) get one:
    # a sequential read is usually served from the read-ahead segment and never needs
    # locating, so it, a write or a flush is marked with cylinder -1 and, while one is
    # queued, decisions take Mechanism.choose, which knows their rules.
    track = sum(s.qd for s in streams) > 1
    cylinders: list[int] = []
    angles: list[float] = []
    submitted: list[float] = []
    read_offsets: list[int] = []  # of the located reads, sorted
    unlocated = 0  # queued requests with cylinder -1
    service, choose = mech.service, mech.choose
    choose_reads = mech.read_chooser().choose if track else None
    heappop, heappush = heapq.heappop, heapq.heappush
    located = mech.geometry_lookup()  # what Mechanism.locate has computed or primed
    flush_every = [s.flush_every for s in streams]
    latencies: list[list[float]] = [[] for _ in streams]
    flushes_pending = [False] * len(streams)
    commit_start = [-1.0] * len(streams)
    now = 0.0
    done = 0
    flushes = 0
    t_start = 0.0
    while done < total:
        if not pending and arrivals and arrivals[0][0] > now:
            now = arrivals[0][0]
        while arrivals and arrivals[0][0] <= now:
            at, _, index = heappop(arrivals)
            if flushes_pending[index]:
                flushes_pending[index] = False
                req = Request("flush", 0, 0, at, index)
            else:
                src = sources[index]
                req = Request(src.op, src.next_offset(), src.block, at, index)
            pending.append(req)
            if track:
                geo = located((req.offset_bytes, req.length_bytes)) if req.op == "read" else None
                if geo is None:
                    cylinders.append(-1)
                    angles.append(0.0)
                    unlocated += 1
                else:
                    cylinders.append(geo[0])
                    angles.append(geo[1])
                    insort(read_offsets, req.offset_bytes)
                submitted.append(at)
        last = len(pending) - 1
        if last:
            chosen = None
            if choose_reads is not None and not unlocated:
                chosen = choose_reads(cylinders, angles, submitted, read_offsets, now)
            if chosen is None:
                chosen = choose(pending, now)
            req = pending[chosen]
            pending[chosen] = pending[last]
        else:
            chosen = 0
            req = pending[0]
        pending.pop()
        op = req.op
        if track:
            if cylinders[chosen] < 0:
                unlocated -= 1
            else:
                del read_offsets[bisect_left(read_offsets, req.offset_bytes)]
            cylinders[chosen] = cylinders[last]
            cylinders.pop()
            angles[chosen] = angles[last]
            angles.pop()
            submitted[chosen] = submitted[last]
            submitted.pop()
        finish = service(op, req.offset_bytes, req.length_bytes, now)
        now = finish
        index = req.tag
        if op == "flush":
            flushes += 1
            if commit_start[index] >= 0 and latencies[index]:
                latencies[index][-1] = finish - commit_start[index]  # the commit ends with its flush
            commit_start[index] = -1.0
        else:
            done += 1
            if done > warm:
                latencies[index].append(finish - req.submitted_s)
            elif done == warm:
                t_start = finish
            every = flush_every[index]
            if every and op == "write":
                writes_since_flush[index] += 1
                if writes_since_flush[index] >= every:
                    writes_since_flush[index] = 0
                    commit_start[index] = req.submitted_s if done > warm else -1.0
                    flushes_pending[index] = True
                    heappush(arrivals, (finish + think[index], seq, index))
                    seq += 1
                    continue
        if pick and not flushes_pending[index]:
            index = pick[picked]
            picked += 1
        heappush(arrivals, (finish + think[index], seq, index))
        seq += 1
    seconds = max(now - t_start, 1e-12)
    return _summarise(streams, latencies, seconds, flushes)


def _summarise(
    streams: Sequence[StreamSpec], latencies: list[list[float]], seconds: float, flushes: int
) -> SimResult:
    per = []
    all_lat = np.array([v for lat in latencies for v in lat], dtype=np.float64) * 1000.0
    total_bytes = 0
    for spec, lat in zip(streams, latencies, strict=True):
        arr = np.array(lat, dtype=np.float64) * 1000.0
        count = len(lat)
        total_bytes += count * spec.block_bytes
        per.append(
            StreamResult(
                pattern=spec.pattern,
                band=spec.band,
                block_bytes=spec.block_bytes,
                qd=spec.qd,
                ios=count,
                iops=count / seconds,
                mb_s_decimal=count * spec.block_bytes / seconds / DISK_MB,
                mean_ms=float(arr.mean()) if count else 0.0,
                p50_ms=float(np.percentile(arr, 50)) if count else 0.0,
                p99_ms=float(np.percentile(arr, 99)) if count else 0.0,
            )
        )
    n = len(all_lat)
    return SimResult(
        ios=n,
        seconds=seconds,
        iops=n / seconds,
        mb_s_decimal=total_bytes / seconds / DISK_MB,
        mean_ms=float(all_lat.mean()) if n else 0.0,
        p50_ms=float(np.percentile(all_lat, 50)) if n else 0.0,
        p99_ms=float(np.percentile(all_lat, 99)) if n else 0.0,
        per_stream=tuple(per),
    )
