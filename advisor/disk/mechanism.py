"""The stateful actuator: one head, a spinning platter, a read-ahead segment, a write cache.

:class:`Mechanism` is shared by the simulator (:mod:`advisor.disk.simulate`) and the
emulated HDD. It keeps the head's cylinder, the rotation clock and the cache state, and
answers two questions:

* ``service(op, offset_bytes, length_bytes, start_s) -> finish_s`` for ``op`` in
  ``read``/``write``/``write-fua``/``flush`` (``write-fua``: a write with Force Unit
  Access, which completes when it is on the media whatever the cache mode): command
  overhead, seek (plus write settle), the rotational
  wait read from the clock ``θ(t) = (t/T_rev + phase) mod 1`` (not an average: a rewrite
  of the same sector waits a whole turn, a sequential read arriving late misses its
  sector), transfer at the media rate with a head switch per track crossed, read-ahead
  hits, write-cache absorption and flushes that drain dirty data to the media;
* ``choose(pending, now_s) -> index``: SPTF among queued requests with a safety margin (a
  request whose sector would come under the head less than ``sptf_margin_ms`` after the
  seek is charged one more revolution, as real firmware will not gamble on it); FIFO when
  one is queued; reads the read-ahead segment holds and writes the cache can take cost no
  positioning and go first; a request older than ``max_age_ms`` goes first (starvation
  guard).

Layout: cylinder ``c = ⌊u(X)·C⌋`` with ``C`` cylinders; inside a cylinder the bytes fill
the ``heads`` tracks in turn; each track starts at an angle skewed by one head switch (one
cylinder switch at a cylinder boundary) from the previous, so a sequential transfer loses
just the switch time at each boundary, not a revolution.

Write cache modes: ``off`` (writes go to the media before completing), ``volatile``
(writes complete from cache; idle time and flushes destage; a flush returns when the data
is on the media), ``lying`` (a flush returns at once: a non-volatile cache, or a drive that
ignores FLUSH). ``None`` takes the model's setting (``battery`` → ``lying``).

The object is not thread-safe (the caller serialises) and every call is a few
microseconds: the emulated disk calls it on each IO.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from advisor.disk.model import DiskModel
from advisor.disk.sptf import ReadChooser
from advisor.units import CACHE_MODES, DISK_MB, CacheMode

# seek cylinder, start angle (turns), media transfer s, end seek cylinder, sustained B/s there
Geometry = tuple[int, float, float, int, float]
BUS_BYTES_PER_S = 300 * DISK_MB  # host interface burst rate (SATA-2/3, SAS); cache hits cost this
DESTAGE_WINDOW = 32  # dirty extents the drive considers when choosing what to destage
IDLE_BEFORE_DESTAGE_S = 0.001  # idle time before the drive starts destaging on its own



@dataclass(slots=True)
class Request:
    """One queued IO as the mechanism sees it."""

    op: str
    offset_bytes: int
    length_bytes: int
    submitted_s: float
    tag: int = 0


class Mechanism:
    """Head position, rotation clock and cache of one drive (see the module docstring)."""

    def __init__(
        self,
        model: DiskModel,
        *,
        seed: int = 0,
        phase: float | None = None,
        located: dict[tuple[int, int], Geometry] | None = None,
        sptf_margin_ms: float = 1.0,
        write_cache: CacheMode | None = None,
        max_age_ms: float = 500.0,
    ) -> None:
        self.model = model
        rng = random.Random(seed)
        if write_cache is None:
            write_cache = {"off": "off", "volatile": "volatile", "battery": "lying"}[model.write_cache]  # type: ignore[assignment]
        if write_cache not in CACHE_MODES:
            raise ValueError(f"write_cache must be off, volatile or lying, not {write_cache!r}")
        self.write_cache: CacheMode = write_cache
        self.t_rev = model.revolution_ms / 1000.0
        # the platter's angle under the head at time 0, in turns: the seed draws it (the one
        # thing the seed sets) unless the caller names it (a replay spread over a revolution)
        drawn = rng.random()
        self.phase = drawn if phase is None else phase % 1.0
        self.overhead = model.overhead_ms / 1000.0
        self.switch = model.head_switch_ms / 1000.0
        self.cyl_switch = max(model.head_switch_ms, model.seek_track_ms) / 1000.0
        self.settle = model.write_settle_ms / 1000.0
        self.margin = sptf_margin_ms / 1000.0
        self.max_age = max_age_ms / 1000.0
        self.capacity = model.capacity_bytes
        self.cylinders = model.total_cylinders
        self.layout_cylinders = model.layout_cylinders
        self.heads = model.heads
        self.boost = 1.0 + model.head_switch_ms / model.revolution_ms
        curve = model.seek_curve
        self._grid = curve.grid_list
        self._steps = curve.steps
        self._seek_min = curve.min_ms
        self.head_cyl = 0
        self.busy_until = 0.0
        # u(X) for the head position after read-ahead, on every read: without a zone table
        # it is zbr.stroke_of_lba, written out below with its constants hoisted
        self._stroke = model.stroke
        self._stroke_k = 1.0 - 1.0 / model.rho
        self._stroke_c = 1.0 - model.rho**-2
        self._stroke_inline = not model.zones and self._stroke_k >= 1e-9
        # read-ahead segment: bytes [ra_lo, ra_base) are cached; the drive streams from
        # ra_base (reached at ra_time) at ra_rate B/s until ra_limit while idle.
        self.ra_lo = self.ra_base = self.ra_limit = -1
        self.ra_time = 0.0
        self.ra_rate = 0.0
        self.ra_cyl = 0
        self.dirty: list[tuple[int, int]] = []
        self.dirty_bytes = 0
        # extents already located: *located* when given (:meth:`located`, shared by mechanisms of
        # the same model, the geometry being the same whatever the phase), else found on the way
        self._geo_cache: dict[tuple[int, int], Geometry] = {} if located is None else located
        self._geo_limit = max(65536, 2 * len(self._geo_cache))
        self._chooser: ReadChooser | None = None  # built on the first choice among several

    def read_chooser(self) -> ReadChooser:
        """The SPTF seek table and pruning windows of this drive (built on first use, then kept)."""
        if self._chooser is None:
            self._chooser = ReadChooser(self)
        return self._chooser

    def located(self) -> dict[tuple[int, int], Geometry]:
        """What :meth:`locate` has computed and :meth:`prime` has primed, by (offset, length): hand
        it to another Mechanism of the same model (``located=``) to spare it locating them again."""
        return self._geo_cache

    def geometry_lookup(self) -> Callable[[tuple[int, int]], Geometry | None]:
        """Look-up of what :meth:`locate` has computed or :meth:`prime` has primed, by (offset, length).

        None for an extent not located yet (the lookup never computes): the simulator asks
        it once per queued read, so the bound ``dict.get`` itself is handed out.
        """
        return self._geo_cache.get

    # -- geometry ---------------------------------------------------------------------
    def locate(self, offset: int, length: int) -> Geometry:
        """Cylinder, start angle, media transfer time and end cylinder of an extent."""
        key = (offset, length)
        cached = self._geo_cache.get(key)
        if cached is not None:
            return cached
        model, cap, ncyl, heads = self.model, self.capacity, self.layout_cylinders, self.heads
        x = min(max(offset / cap, 0.0), 1.0)
        u = model.stroke(x)
        cyl = min(int(u * ncyl), ncyl - 1)
        cyl_lo = model.lba_of_stroke(cyl / ncyl) * cap
        cyl_hi = model.lba_of_stroke((cyl + 1) / ncyl) * cap
        track_bytes = max((cyl_hi - cyl_lo) / heads, 1.0)
        pos = max(offset - cyl_lo, 0.0)
        head = min(int(pos / track_bytes), heads - 1)
        within = pos / track_bytes - head
        skew = (cyl * (self.cyl_switch + (heads - 1) * self.switch) + head * self.switch) / self.t_rev
        angle = (within + skew) % 1.0
        crossings = int(within + length / track_bytes)
        xfer = length / track_bytes * self.t_rev + crossings * self.switch
        end_x = min((offset + max(length, 1) - 1) / cap, 1.0)
        seek_cyls = self.cylinders
        end_cyl = min(int(model.stroke(end_x) * seek_cyls), seek_cyls - 1)
        sustained = track_bytes / (self.t_rev + self.switch)
        geo = (min(int(u * seek_cyls), seek_cyls - 1), angle, xfer, end_cyl, sustained)
        if len(self._geo_cache) > self._geo_limit:
            self._geo_cache.clear()
        self._geo_cache[key] = geo
        return geo

    def prime(self, offsets: npt.NDArray[np.int64], length: int) -> None:
        """Locate many extents of one length at once (numpy) and keep them in the cache.

        The simulator draws its random offsets up front; locating them vectorised keeps
        the per-IO path to dictionary look-ups. Same arithmetic as :meth:`locate`.
        """
        model, cap, ncyl, heads = self.model, self.capacity, self.layout_cylinders, self.heads
        off = np.asarray(offsets, dtype=np.float64)
        u = model.stroke_array(np.clip(off / cap, 0.0, 1.0))
        cyl = np.minimum((u * ncyl).astype(np.int64), ncyl - 1)
        cyl_lo = model.lba_of_stroke_array(cyl / ncyl) * cap
        cyl_hi = model.lba_of_stroke_array((cyl + 1) / ncyl) * cap
        track_bytes = np.maximum((cyl_hi - cyl_lo) / heads, 1.0)
        pos = np.maximum(off - cyl_lo, 0.0)
        head = np.minimum((pos / track_bytes).astype(np.int64), heads - 1)
        within = pos / track_bytes - head
        skew = (cyl * (self.cyl_switch + (heads - 1) * self.switch) + head * self.switch) / self.t_rev
        angle = np.mod(within + skew, 1.0)
        crossings = (within + length / track_bytes).astype(np.int64)
        xfer = length / track_bytes * self.t_rev + crossings * self.switch
        seek_cyls = self.cylinders
        end_u = model.stroke_array(np.minimum((off + max(length, 1) - 1) / cap, 1.0))
        end_cyl = np.minimum((end_u * seek_cyls).astype(np.int64), seek_cyls - 1)
        seek_cyl = np.minimum((u * seek_cyls).astype(np.int64), seek_cyls - 1)
        sustained = track_bytes / (self.t_rev + self.switch)
        self._geo_limit = max(self._geo_limit, 2 * (len(self._geo_cache) + len(off)))
        keys = zip(offsets.tolist(), itertools.repeat(length))
        rows = zip(seek_cyl.tolist(), angle.tolist(), xfer.tolist(), end_cyl.tolist(), sustained.tolist(), strict=True)
        self._geo_cache.update(zip(keys, rows, strict=True))

    def seek_s(self, distance: int) -> float:
        """Read seek time in seconds for *distance* cylinders."""
        if distance <= 0:
            return 0.0
        x = distance / self.cylinders
        pos = math.sqrt(x if x < 1.0 else 1.0) * self._steps
        i = int(pos)
        if i >= self._steps:
            t = self._grid[self._steps]
        else:
            lo = self._grid[i]
            t = lo + (pos - i) * (self._grid[i + 1] - lo)
        return (t if t > self._seek_min else self._seek_min) / 1000.0

    def wait_s(self, angle: float, at_s: float) -> float:
        """Rotational wait from time *at_s* until *angle* (turns) is under the head."""
        return ((angle - at_s / self.t_rev - self.phase) % 1.0) * self.t_rev

    # -- read-ahead -------------------------------------------------------------------
    def _ra_available(self, t: float) -> int:
        if self.ra_rate <= 0.0 or t <= self.ra_time:
            return self.ra_base
        return min(self.ra_limit, self.ra_base + int((t - self.ra_time) * self.ra_rate))

    def _ra_hit(self, offset: int, length: int, t: float) -> float | None:
        """Completion time if the read-ahead segment serves the read, else None.

        Data already streamed in is a cache hit; a read that continues the stream (starts
        inside the segment while the head is still streaming) waits for the head to get
        there, so sequential reads of any size run at the sustained rate.
        """
        if self.ra_lo < 0 or offset < self.ra_lo:
            return None
        end = offset + length
        if end <= self._ra_available(t):
            ready = t
        elif self.ra_rate > 0.0 and offset <= self.ra_limit:
            stall = self.ra_time + (self.ra_limit - self.ra_base) / self.ra_rate
            if end <= self.ra_limit:
                ready = self.ra_time + (end - self.ra_base) / self.ra_rate
            else:
                ready = max(t, stall) + (end - self.ra_limit) / self.ra_rate
        else:
            return None
        finish = max(t + length / BUS_BYTES_PER_S, ready)  # the bus overlaps the media
        if self.ra_rate > 0.0:
            self.ra_base, self.ra_time = end, max(t, ready)
            self.ra_limit = end + self.model.read_ahead_bytes
            self.ra_lo = max(self.ra_lo, end - self.model.cache_bytes)
        return finish

    def _ra_stop(self, t: float) -> None:
        """The head leaves to serve something else: freeze what was read so far."""
        if self.ra_lo >= 0 and self.ra_rate > 0.0:
            avail = self._ra_available(t)
            self.ra_base = self.ra_limit = avail
            self.ra_rate = 0.0
            x = max(avail - 1, 0) / self.capacity
            self.head_cyl = min(int(self.model.stroke(min(x, 1.0)) * self.cylinders), self.cylinders - 1)

    # -- media access -----------------------------------------------------------------
    def _media(self, write: bool, geo: Geometry, t: float) -> float:
        cyl, angle, xfer, end_cyl, _ = geo
        distance = abs(cyl - self.head_cyl)
        seek = self.seek_s(distance)
        if write and distance:
            seek += self.settle
        arrive = t + seek
        finish = arrive + self.wait_s(angle, arrive) + xfer
        self.head_cyl = end_cyl
        return finish

    def _destage_one(self, t: float) -> float:
        """Write one dirty extent (SPTF among the oldest few) to the media; finish time."""
        window = self.dirty[:DESTAGE_WINDOW]
        best, best_cost = 0, math.inf
        if len(window) > 1:
            for i, (off, length) in enumerate(window):
                cyl, angle, *_ = self.locate(off, length)
                seek = self.seek_s(abs(cyl - self.head_cyl))
                cost = seek + self.wait_s(angle, t + seek)
                if cost < best_cost:
                    best, best_cost = i, cost
        off, length = self.dirty.pop(best)
        self.dirty_bytes -= length
        return self._media(True, self.locate(off, length), t)

    def _catch_up(self, start_s: float) -> float:
        """Destage dirty data while idle before *start_s*; returns when the head is free."""
        t = self.busy_until
        if t + IDLE_BEFORE_DESTAGE_S < start_s:
            t += IDLE_BEFORE_DESTAGE_S
            while self.dirty and t < start_s:
                self._ra_stop(t)
                t = self._destage_one(t)
        return max(t, start_s)

    # -- public API -------------------------------------------------------------------
    def service(self, op: str, offset_bytes: int, length_bytes: int, start_s: float) -> float:
        """Serve one request starting no earlier than *start_s*; return its finish time (s)."""
        busy = self.busy_until
        t = self._catch_up(start_s) if self.dirty else (busy if busy > start_s else start_s)
        t += self.overhead
        if op == "read":
            finish = self._read(offset_bytes, length_bytes, t)
        elif op == "write":
            finish = self._write(offset_bytes, length_bytes, t)
        elif op == "write-fua":
            finish = self._write_through(offset_bytes, length_bytes, t)
        elif op == "flush":
            finish = self._flush(t)
        else:
            raise ValueError(f"unknown op {op!r}")
        self.busy_until = finish
        return finish

    def _read(self, offset: int, length: int, t: float) -> float:
        # The simulator's hottest path: _ra_hit's first test, _ra_stop, _ra_available,
        # _media, seek_s and wait_s are written out here, same arithmetic in the same order.
        ra_lo = self.ra_lo
        if ra_lo >= 0:
            if ra_lo <= offset <= self.ra_limit:  # past the limit _ra_hit is None (all it holds is below)
                hit = self._ra_hit(offset, length, t)
                if hit is not None:
                    return hit
            rate = self.ra_rate
            if rate > 0.0:  # the head leaves the stream: freeze what was read so far
                avail = self.ra_base
                if t > self.ra_time:
                    avail += int((t - self.ra_time) * rate)
                    if avail > self.ra_limit:
                        avail = self.ra_limit
                self.ra_base = self.ra_limit = avail
                self.ra_rate = 0.0
                x = (avail - 1 if avail > 1 else 0) / self.capacity
                cylinders = self.cylinders
                if x > 1.0:
                    x = 1.0
                if self._stroke_inline:
                    inner = 1.0 - self._stroke_c * x
                    u = (1.0 - math.sqrt(inner if inner > 0.0 else 0.0)) / self._stroke_k
                else:
                    u = self._stroke(x)
                cyl_now = int(u * cylinders)
                self.head_cyl = cyl_now if cyl_now < cylinders - 1 else cylinders - 1
        geo = self._geo_cache.get((offset, length)) or self.locate(offset, length)
        distance = geo[0] - self.head_cyl
        if distance:
            x = (distance if distance > 0 else -distance) / self.cylinders
            pos = math.sqrt(x if x < 1.0 else 1.0) * self._steps
            i = int(pos)
            grid = self._grid
            if i >= self._steps:
                ms = grid[self._steps]
            else:
                lo = grid[i]
                ms = lo + (pos - i) * (grid[i + 1] - lo)
            arrive = t + (ms if ms > self._seek_min else self._seek_min) / 1000.0
        else:
            arrive = t + 0.0
        t_rev = self.t_rev
        finish = arrive + ((geo[1] - arrive / t_rev - self.phase) % 1.0) * t_rev + geo[2]
        self.head_cyl = geo[3]
        end = offset + length
        self.ra_lo, self.ra_base, self.ra_time = offset, end, finish
        read_ahead = self.model.read_ahead_bytes
        self.ra_limit = end + read_ahead
        self.ra_rate = geo[4] if read_ahead > 0 else 0.0
        return finish

    def _write(self, offset: int, length: int, t: float) -> float:
        end = offset + length
        if self.ra_lo >= 0 and offset < self.ra_limit and end > self.ra_lo:
            self._ra_stop(t)
            self.ra_lo = self.ra_base = self.ra_limit = -1  # overlapping cached data is stale
        if self.write_cache == "off":
            self._ra_stop(t)
            return self._media(True, self.locate(offset, length), t)
        while self.dirty and self.dirty_bytes + length > self.model.cache_bytes:
            self._ra_stop(t)
            t = self._destage_one(t)
        if (offset, length) in self.dirty[-DESTAGE_WINDOW:]:
            return t + length / BUS_BYTES_PER_S  # rewrite of data still in the cache
        if self.dirty and self.dirty[-1][0] + self.dirty[-1][1] == offset:
            last_off, last_len = self.dirty[-1]
            self.dirty[-1] = (last_off, last_len + length)  # sequential writes coalesce
        else:
            self.dirty.append((offset, length))
        self.dirty_bytes += length
        return t + length / BUS_BYTES_PER_S

    def _write_through(self, offset: int, length: int, t: float) -> float:
        """A FUA write: to the media before it completes; what the cache held of it is superseded."""
        end = offset + length
        if self.ra_lo >= 0 and offset < self.ra_limit and end > self.ra_lo:
            self._ra_stop(t)
            self.ra_lo = self.ra_base = self.ra_limit = -1
        self._ra_stop(t)
        if (offset, length) in self.dirty:
            self.dirty.remove((offset, length))
            self.dirty_bytes -= length
        return self._media(True, self.locate(offset, length), t)

    def _flush(self, t: float) -> float:
        if self.write_cache == "lying":
            return t
        while self.dirty:
            self._ra_stop(t)
            t = self._destage_one(t)
        return t

    def choose(self, pending: Sequence[Any], now_s: float) -> int:
        """Index of the request to serve next at *now_s*: SPTF with margin, FIFO for one."""
        if len(pending) <= 1:
            return 0
        t = (now_s if now_s > self.busy_until else self.busy_until) + self.overhead
        t_rev, margin, head = self.t_rev, self.margin, self.head_cyl
        turns_now = t / t_rev + self.phase
        table = (self._chooser or self.read_chooser()).table
        settle = self.settle if self.write_cache == "off" else 0.0
        absorbs, cache_limit = self.write_cache != "off", self.model.cache_bytes
        ra_lo, ra_limit = self.ra_lo, self.ra_limit
        cache, locate = self._geo_cache, self.locate
        best, best_cost = 0, math.inf
        oldest, oldest_t = 0, math.inf
        for i, req in enumerate(pending):
            submitted = req.submitted_s
            if submitted < oldest_t:
                oldest, oldest_t = i, submitted
            op = req.op
            if op == "flush":
                cost = 0.0  # not reorderable: the host waits on it
            else:
                offset, length = req.offset_bytes, req.length_bytes
                if op == "read" and 0 <= ra_lo <= offset and offset + length <= ra_limit:
                    cost = -1.0  # served from the read-ahead segment
                elif op == "write" and absorbs and self.dirty_bytes + length <= cache_limit:
                    cost = -0.5  # acknowledged from the write cache, no positioning
                else:
                    geo = cache.get((offset, length)) or locate(offset, length)
                    distance = geo[0] - head
                    if distance:
                        seek = table[2 * distance]
                        if op == "write":
                            seek += settle
                        elif op == "write-fua":
                            seek += self.settle
                    else:
                        seek = 0.0
                    wait = ((geo[1] - turns_now - seek / t_rev) % 1.0) * t_rev
                    if wait < margin:
                        wait += t_rev
                    cost = seek + wait
            if cost < best_cost:
                best, best_cost = i, cost
        if t - oldest_t > self.max_age:
            return oldest
        return best

    def choose_reads(
        self, cylinders: list[int], angles: list[float], submitted: list[float], offsets: list[int], now_s: float
    ) -> int | None:
        """:meth:`choose` for a queue of located reads, or None (see :meth:`ReadChooser.choose`)."""
        return self.read_chooser().choose(cylinders, angles, submitted, offsets, now_s)
