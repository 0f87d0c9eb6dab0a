"""The search's cost on big databases: the fast approximation, with the fixed areas folded into profiles.

:meth:`ModelPhysics.fast_mixed_service_ms` compares every area's band with every other's
(n x n x grid x grid seeks), and the order search calls it thousands of times: on a 500-area
database that was minutes. Most areas carry almost no IO (under
:data:`~advisor.engine.optimizer.TAIL_SHARE`); the search leaves them at the inner end in a
fixed order, so their bands never change. Their part of every other area's expected seek is
then a *profile*: for each position on the stroke, the share-weighted mean seek to all of
them. It is built once (the fixed areas' grid points binned by lookup cell, times the seek
kernel), and each candidate order costs only its k active areas against each other plus k
profile lookups.

The sums are the same terms as ``fast_mixed_service_ms`` (same grid, same lookup cells, same
visit structure from :func:`~advisor.disk.physics.transitions`), regrouped; the result
agrees to rounding (tests compare both). It assumes distinct areas have distinct bands,
which holds because every area is at least 1 MiB.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from advisor.disk.mechanism import BUS_BYTES_PER_S
from advisor.disk.physics import FAST_GRID, LUT_SIZE, Band, ModelPhysics, Visits
from advisor.disk.predict import HOST_TURNAROUND_MS

PROFILE_CHUNK = 512
"""Lookup cells per block when building a profile (bounds memory to CHUNK x sources)."""


@dataclass(frozen=True)
class _Weights:
    """Per area: its IO share, how its row weighs the others (type 0: ``v``, type 1: ``pick``)."""

    shares: np.ndarray  # normalised IO shares (the cost's weights)
    bursty: np.ndarray  # rows that come in visits (type 1)
    row_scale: np.ndarray  # c_i: 1 for type-0 rows, the visit-opening share for type-1 rows
    v: np.ndarray  # column weights of a type-0 row (same for every such row)
    pick: np.ndarray  # column weights of a type-1 row off its diagonal
    diag: np.ndarray  # F_ii: a row's weight on itself
    row_sum: np.ndarray  # sum_j F_ij
    opens: np.ndarray


def _weights(shares: np.ndarray, visits: Visits) -> _Weights:
    """The transition weights of :func:`~advisor.disk.physics.transitions` in rank-one-plus-diagonal form."""
    n = len(shares)
    total = float(shares.sum())
    p = shares / total if total > 0 else np.zeros(n)
    bursty = np.array([v is not None and v > 0 for v in visits]) if visits is not None else np.zeros(n, dtype=bool)
    data = ~bursty & (p > 0)
    data_share = float(p[data].sum())
    if not bursty.any() or data_share <= 0:  # random interleaving: every row is p
        zeros = np.zeros(n)
        return _Weights(p, np.zeros(n, dtype=bool), np.ones(n), p, zeros, p.copy(), np.full(n, p.sum()), zeros)
    assert visits is not None
    rate = np.array([min(1.0, v) if v is not None and v > 0 else 0.0 for v in visits])
    wanted = rate * p
    a = wanted * min(1.0, data_share / max(float(wanted.sum()), 1e-300))
    stay = max(0.0, 1.0 - float(a.sum()) / data_share)
    pick = np.where(data, p / data_share, 0.0)
    v = a / data_share + stay * pick
    opens = np.where(bursty, np.minimum(1.0, np.divide(a, p, out=np.ones(n), where=p > 0)), 0.0)
    row_scale = np.where(bursty, opens, 1.0)
    diag = np.where(bursty, opens * pick + (1.0 - opens), v)
    row_sum = np.where(bursty, opens * pick.sum() + (1.0 - opens), v.sum())
    return _Weights(p, bursty, row_scale, v, pick, diag, row_sum, opens)


class _Kernel:
    """The seek kernel of one physics on its lookup cells, as ``fast_mixed_service_ms`` reads it."""

    def __init__(self, physics: ModelPhysics) -> None:
        self.seek, self.rate = physics._tables()
        self.stroke = physics._stroke_lut
        self.model = physics.model
        self.cylinders = physics.model.total_cylinders

    def seeks(self, distance: np.ndarray) -> np.ndarray:
        """Seek time of each stroke distance (0 under half a cylinder)."""
        index = np.minimum((distance * LUT_SIZE + 0.5).astype(np.int64), LUT_SIZE)
        return np.where(distance * self.cylinders >= 0.5, self.seek[index], 0.0)

    def profile(self, cells: np.ndarray, weights: np.ndarray, queries: np.ndarray) -> np.ndarray:
        """At each of the lookup cells *queries*, the sum over points of weight x seek(cell -> point).

        Other cells of the returned table stay 0: callers ask only where their areas can be.
        """
        mass = np.bincount(cells.ravel(), weights=weights.ravel(), minlength=LUT_SIZE + 1)
        used = np.nonzero(mass)[0]
        out = np.zeros(LUT_SIZE + 1)
        if len(used) == 0 or len(queries) == 0:
            return out
        sources = self.stroke[used]
        for start in range(0, len(queries), PROFILE_CHUNK):
            rows = queries[start:start + PROFILE_CHUNK]
            out[rows] = self.seeks(np.abs(self.stroke[rows][:, None] - sources[None, :])) @ mass[used]
        return out


def _at(table: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Per area, the mean of *table* over its grid points (a row of *cells* each)."""
    means: np.ndarray = table[cells].sum(axis=1) / cells.shape[1]
    return means


def _grid_of(n: int) -> int:
    return FAST_GRID if n <= 12 else 4


@dataclass(frozen=True)
class _Bands:
    """Per-band quantities that depend on the band alone."""

    cells: np.ndarray  # (n, grid) lookup cells of the grid points
    grid: int
    own: np.ndarray  # base + own-band terms (everything of a row but the cross seeks)
    cross_self: np.ndarray  # C_ii: the cross formula applied to an area's own band


def _bands(kernel: _Kernel, bands: np.ndarray, blocks: np.ndarray, sequential: np.ndarray, w: _Weights,
           grid: int) -> _Bands:
    model = kernel.model
    steps = (np.arange(grid) + 0.5) / grid
    points = np.clip(bands[:, :1] + (bands[:, 1:] - bands[:, :1]) * steps, 0.0, 1.0)
    cells = (points * LUT_SIZE).astype(np.int64)
    strokes = kernel.stroke[cells]
    rates = kernel.rate[cells].sum(axis=1) / grid
    transfer = blocks / (rates * 1000.0)
    base = model.overhead_ms + model.revolution_ms / 2 + transfer
    width = np.abs(kernel.stroke[np.minimum((bands[:, 1] * LUT_SIZE).astype(np.int64), LUT_SIZE)]
                   - kernel.stroke[(bands[:, 0] * LUT_SIZE).astype(np.int64)])
    own = np.abs(strokes[:, :, None] - strokes[:, None, :])
    cross_self = kernel.seeks(own).sum(axis=(1, 2)) / (grid * grid)
    own[:, np.arange(grid), np.arange(grid)] = (width / grid / 3.0)[:, None]
    self_seek = kernel.seeks(own).sum(axis=(1, 2)) / (grid * grid)
    streaming = np.maximum(transfer, model.overhead_ms + HOST_TURNAROUND_MS + blocks / BUS_BYTES_PER_S * 1000.0)
    diagonal = np.where(sequential, streaming, base + self_seek)
    flush = model.overhead_ms + HOST_TURNAROUND_MS + blocks / BUS_BYTES_PER_S * 1000.0
    settle = (w.row_sum - w.diag) * model.write_settle_ms
    extra = np.where(w.opens > 0, settle + w.opens * flush, 0.0)
    return _Bands(cells, grid, base * (w.row_sum - w.diag) + w.diag * diagonal + extra, cross_self)


def _arrays(streams: Sequence[tuple[Band, float, int, bool]]) -> tuple[np.ndarray, ...]:
    bands = np.array([s[0] for s in streams], dtype=float).reshape(len(streams), 2)
    shares = np.array([s[1] for s in streams], dtype=float)
    blocks = np.array([s[2] for s in streams], dtype=float)
    sequential = np.array([s[3] for s in streams], dtype=bool)
    return bands, shares, blocks, sequential


def profile_times(physics: ModelPhysics, streams: Sequence[tuple[Band, float, int, bool]],
                  visits: Visits = None) -> list[float]:
    """``fast_mixed_service_ms`` in O(n x cells) instead of O(n^2 x grid^2): per-stream times."""
    n = len(streams)
    bands, shares, blocks, sequential = _arrays(streams)
    if n == 0 or shares.sum() <= 0:
        return [0.0] * n
    kernel = _Kernel(physics)
    w = _weights(shares, visits)
    grid = _grid_of(n)
    per = _bands(kernel, bands, blocks, sequential, w, grid)
    queries = np.unique(per.cells)
    profile_v = kernel.profile(per.cells, np.repeat((w.v / grid)[:, None], grid, axis=1), queries)
    profile_p = (kernel.profile(per.cells, np.repeat((w.pick / grid)[:, None], grid, axis=1), queries)
                 if w.bursty.any() else np.zeros(LUT_SIZE + 1))
    to_v = _at(profile_v, per.cells) - w.v * per.cross_self
    to_p = _at(profile_p, per.cells) - w.pick * per.cross_self
    cross = w.row_scale * np.where(w.bursty, to_p, to_v)
    return [float(x) for x in per.own + cross]


class SplitCost:
    """IO-weighted mean of ``active`` (in a candidate order) followed by the fixed ``tail``.

    Equal, up to rounding, to the fast cost of ``order + tail`` laid out from the outer edge;
    the tail's bands start where the active areas end (their total is the same in every
    order), so the tail is folded into four profiles once.
    """

    def __init__(self, physics: ModelPhysics, active: Sequence[tuple[float, float, float, int, bool, float | None]],
                 tail: Sequence[tuple[float, float, float, int, bool, float | None]]) -> None:
        """Each item: (size fraction, slot fraction, iops, block bytes, sequential, visits)."""
        items = list(active) + list(tail)
        self.k = len(active)
        self.n = len(items)
        self.kernel = _Kernel(physics)
        self.grid = _grid_of(self.n)
        shares = np.array([i[2] for i in items], dtype=float)
        visits = [i[5] for i in items]
        self.empty = self.n == 0 or shares.sum() <= 0
        self.w = _weights(shares, visits if any(v is not None for v in visits) else None)
        self.size = np.array([i[0] for i in items])
        self.slot = np.array([i[1] for i in items])
        self.blocks = np.array([i[3] for i in items], dtype=float)
        self.sequential = np.array([i[4] for i in items], dtype=bool)
        if self.empty:
            return
        start = float(self.slot[:self.k].sum())
        tail_bands = self._bands_from(start, np.arange(self.k, self.n))
        t = np.arange(self.k, self.n)
        per = _bands(self.kernel, tail_bands, self.blocks[t], self.sequential[t], self._sub(t), self.grid)
        g = self.grid
        w = self.w

        # the active areas lie in [0, start]; the tail's own rows need its own cells
        reach = np.arange(0, min(LUT_SIZE, int(start * LUT_SIZE) + 1) + 1)
        own_cells = np.unique(per.cells)

        def prof(weights: np.ndarray, queries: np.ndarray = reach) -> np.ndarray:
            if not weights.any():
                return np.zeros(LUT_SIZE + 1)
            return self.kernel.profile(per.cells, np.repeat((weights / g)[:, None], g, axis=1), queries)

        both = np.union1d(reach, own_cells)
        tv, tp = prof(w.v[t], both), prof(w.pick[t], both)  # what a row sees of the tail
        tail_rows = w.shares[t] * w.row_scale[t]
        self.rows_v = prof(np.where(w.bursty[t], 0.0, tail_rows))  # tail type-0 rows seeing an active column
        self.rows_p = prof(np.where(w.bursty[t], tail_rows, 0.0))
        self.tail_v, self.tail_p = tv, tp
        to_v = _at(tv, per.cells) - w.v[t] * per.cross_self
        to_p = _at(tp, per.cells) - w.pick[t] * per.cross_self
        cross = w.row_scale[t] * np.where(w.bursty[t], to_p, to_v)
        self.constant = float(np.dot(w.shares[t], per.own + cross))

    def _sub(self, index: np.ndarray) -> _Weights:
        w = self.w
        return _Weights(w.shares[index], w.bursty[index], w.row_scale[index], w.v[index], w.pick[index],
                        w.diag[index], w.row_sum[index], w.opens[index])

    def _bands_from(self, start: float, index: np.ndarray) -> np.ndarray:
        slots = self.slot[index]
        lo = start + np.concatenate(([0.0], np.cumsum(slots)[:-1]))[:len(index)]
        return np.stack([lo, np.minimum(1.0, lo + self.size[index])], axis=1)

    def cost(self, order: Sequence[int]) -> float:
        """The mean for the active areas in *order* (indices into ``active``)."""
        if self.empty:
            return 0.0
        a = np.asarray(order, dtype=np.int64)
        w = self.w
        bands = self._bands_from(0.0, a)
        per = _bands(self.kernel, bands, self.blocks[a], self.sequential[a], self._sub(a), self.grid)
        strokes = self.kernel.stroke[per.cells]
        distance = np.abs(strokes[:, None, :, None] - strokes[None, :, None, :])
        pair = self.kernel.seeks(distance).sum(axis=(2, 3)) / (self.grid * self.grid)
        np.fill_diagonal(pair, 0.0)
        cols = np.where(w.bursty[a][:, None], w.pick[a][None, :], w.v[a][None, :])
        among = (pair * cols).sum(axis=1)
        to_tail = np.where(w.bursty[a], _at(self.tail_p, per.cells), _at(self.tail_v, per.cells))
        rows = w.shares[a] * (per.own + w.row_scale[a] * (among + to_tail))
        from_tail = (w.v[a] * _at(self.rows_v, per.cells) + w.pick[a] * _at(self.rows_p, per.cells))
        return float(rows.sum() + from_tail.sum()) + self.constant


class IncrementalOrder:
    """A local search's current order with its cost kept up to date move by move.

    A swap or a move inside a window changes the bands of the areas between its two ends
    only; the cost changes by their own terms and their seeks to every other area. The
    pairwise expected seeks are kept in a matrix (area by area), so a candidate costs
    O(changed x k) instead of O(k^2): what makes 60 busy areas on one disk a fraction of a
    second instead of tens of seconds.
    """

    def __init__(self, split: SplitCost, order: Sequence[int]) -> None:
        self.split = split
        self.order = list(order)
        w = split.w
        k = split.k
        self.rows = w.shares[:k] * w.row_scale[:k]
        cols_v, cols_p = w.v[:k], w.pick[:k]
        weights = np.where(w.bursty[:k][:, None], cols_p[None, :], cols_v[None, :]) * self.rows[:, None]
        self.pair_weight = weights + weights.T
        np.fill_diagonal(self.pair_weight, 0.0)
        self._memo: dict[tuple[int, float], tuple[np.ndarray, float]] = {}
        self.cells = np.zeros((k, split.grid), dtype=np.int64)
        self.single = np.zeros(k)
        self.pair = np.zeros((k, k))
        self._set(np.asarray(self.order, dtype=np.int64), 0.0)
        strokes = split.kernel.stroke[self.cells]
        distance = np.abs(strokes[:, None, :, None] - strokes[None, :, None, :])
        self.pair = split.kernel.seeks(distance).sum(axis=(2, 3)) / (split.grid * split.grid)
        self.total = self._full()

    def _terms(self, items: np.ndarray, start: float) -> tuple[np.ndarray, np.ndarray]:
        """Lookup cells and single-area terms of *items* laid out from *start* in this order.

        Remembered per (area, position): a pass that changes nothing asks the same again.
        """
        s = self.split
        lows = s._bands_from(start, items)[:, 0]
        keys = list(zip(items.tolist(), lows.tolist(), strict=True))
        missing = [n for n, key in enumerate(keys) if key not in self._memo]
        if missing:
            index = np.asarray(missing, dtype=np.int64)
            cells, single = self._compute(items[index], lows[index])
            for row, n in enumerate(missing):
                self._memo[keys[n]] = (cells[row], float(single[row]))
        found = [self._memo[key] for key in keys]
        return np.stack([f[0] for f in found]), np.array([f[1] for f in found])

    def _compute(self, items: np.ndarray, lows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = self.split
        w = s.w
        bands = np.stack([lows, np.minimum(1.0, lows + s.size[items])], axis=1)
        per = _bands(s.kernel, bands, s.blocks[items], s.sequential[items], s._sub(items), s.grid)
        to_tail = np.where(w.bursty[items], _at(s.tail_p, per.cells), _at(s.tail_v, per.cells))
        from_tail = w.v[items] * _at(s.rows_v, per.cells) + w.pick[items] * _at(s.rows_p, per.cells)
        single = w.shares[items] * (per.own + w.row_scale[items] * to_tail) + from_tail
        return per.cells, single

    def _set(self, items: np.ndarray, start: float) -> None:
        cells, single = self._terms(items, start)
        self.cells[items] = cells
        self.single[items] = single

    def _full(self) -> float:
        return float(self.single.sum() + 0.5 * (self.pair * self.pair_weight).sum()) + self.split.constant

    def _start(self, position: int) -> float:
        return float(self.split.slot[np.asarray(self.order[:position], dtype=np.int64)].sum()) if position else 0.0

    def propose(self, candidate: list[int], lo: int, hi: int) -> float:
        """The cost of *candidate*, which differs from the current order at positions lo..hi only."""
        s = self.split
        items = np.asarray(candidate[lo:hi + 1], dtype=np.int64)
        cells, single = self._terms(items, self._start(lo))
        strokes_all = s.kernel.stroke[self.cells]
        strokes_new = s.kernel.stroke[cells]
        strokes_all[items] = strokes_new
        distance = np.abs(strokes_new[:, None, :, None] - strokes_all[None, :, None, :])
        rows = s.kernel.seeks(distance).sum(axis=(2, 3)) / (s.grid * s.grid)
        change = (rows - self.pair[items]) * self.pair_weight[items]
        inside = np.zeros(s.k, dtype=bool)
        inside[items] = True
        delta = float(single.sum() - self.single[items].sum())
        delta += float(change[:, ~inside].sum() + 0.5 * change[:, inside].sum())
        self._pending = (candidate, items, cells, single, rows)
        return self.total + delta

    def accept(self, value: float) -> None:
        """Make the last proposal the current order."""
        candidate, items, cells, single, rows = self._pending
        self.order = candidate
        self.cells[items] = cells
        self.single[items] = single
        self.pair[items, :] = rows
        self.pair[:, items] = rows.T
        self.total = value


def incremental_search(split: SplitCost, start: Sequence[int], window: int | None,
                       max_passes: int) -> tuple[list[int], float]:
    """Pairwise swaps and single moves within *window* until none helps (the optimizer's local search)."""
    if len(start) < 2 or split.empty:  # nothing to reorder (or no IO at all): the order as given
        return list(start), split.cost(start)
    state = IncrementalOrder(split, start)
    n = len(state.order)
    reach = window or n
    for _ in range(max_passes):
        improved = False
        for i in range(n):
            for j in range(i + 1, min(n, i + reach + 1)):
                swapped = state.order.copy()
                swapped[i], swapped[j] = swapped[j], swapped[i]
                value = state.propose(swapped, i, j)
                if value < state.total - 1e-12:
                    state.accept(value)
                    improved = True
        for i in range(n):
            for j in range(max(0, i - reach), min(n, i + reach + 1)):
                if i == j:
                    continue
                moved = state.order.copy()
                moved.insert(j, moved.pop(i))
                value = state.propose(moved, min(i, j), max(i, j))
                if value < state.total - 1e-12:
                    state.accept(value)
                    improved = True
        if not improved:
            break
    return state.order, split.cost(state.order)
