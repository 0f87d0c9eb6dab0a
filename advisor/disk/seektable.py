"""Seek time by whole-cylinder distance, tabulated once per drive for SPTF.

SPTF prices every queued request on every decision, and interpolating the seek curve was
most of that cost; see :func:`seek_table` for why the table is bit-identical to the scalar
evaluation and laid out the way it is.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np

SEEK_TABLES_KEPT = 2  # drives whose seek tables stay cached (each is 32 bytes per cylinder)

# (cylinders, steps, min ms, revolution s, grid) -> seek table (see seek_table)
_SEEK_TABLES: dict[tuple[int, int, float, float, tuple[float, ...]], array[float]] = {}


def seek_table(grid: Sequence[float], steps: int, seek_min_ms: float, cylinders: int, t_rev: float) -> array[float]:
    """Read seek time (s) and the same in revolutions by signed cylinder distance d.

    ``table[2*d]`` is the seek in seconds and ``table[2*d + 1]`` that divided by the
    revolution time, for ``-cylinders < d < cylinders``. SPTF prices every queued request
    on every decision and interpolating the seek curve was most of that cost. Seek
    distances are whole cylinders, so the curve is tabulated once per drive with numpy,
    using the arithmetic of the scalar path in the same order (``d·(1/C)``, a correctly
    rounded square root, one interpolation, the single-track floor, ``/1000``, then
    ``/t_rev``): every entry is bit-identical to what the inline evaluation gave.

    Layout, for speed: the pair of a distance shares a cache line (the table is megabytes
    and the look-ups are random, so memory latency dominates; a list of float objects was
    four cache misses per request, this is one), and negative distances sit in reverse at
    the end, so Python's negative indexing serves ``c - head`` without an ``abs``.
    """
    key = (cylinders, steps, float(seek_min_ms), t_rev, tuple(grid))
    hit = _SEEK_TABLES.get(key)
    if hit is not None:
        return hit
    g = np.asarray(grid, dtype=np.float64)
    pairs = np.empty((2 * cylinders - 1, 2))  # (seek s, seek turns) by distance, then mirrored
    pos = np.arange(cylinders, dtype=np.float64)
    pos *= 1.0 / cylinders
    np.sqrt(pos, out=pos)
    pos *= steps
    k = pos.astype(np.int64)
    inside = k < steps
    np.minimum(k, steps - 1, out=k)
    lo = g[k]
    slope = g[k + 1]
    slope -= lo
    pos -= k
    pos *= slope
    pos += lo
    ms = np.where(inside, pos, g[steps])
    np.maximum(ms, seek_min_ms, out=ms)
    seconds = pairs[:cylinders, 0]
    np.divide(ms, 1000.0, out=seconds)
    seconds[0] = 0.0
    np.divide(seconds, t_rev, out=pairs[:cylinders, 1])
    pairs[cylinders:] = pairs[cylinders - 1 : 0 : -1]
    table = array("d")
    table.frombytes(pairs.data.cast("B"))
    while len(_SEEK_TABLES) >= SEEK_TABLES_KEPT:
        del _SEEK_TABLES[next(iter(_SEEK_TABLES))]
    _SEEK_TABLES[key] = table
    return table
