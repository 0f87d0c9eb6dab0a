"""How sure a replayed gain is: its standard error over windows of the trace, the file system's part in
it, and whether a gain clears ``--min-gain`` by them.

A trace is one stretch of a workload. Its replayed gain (:mod:`advisor.engine.replay_check`) is
1 - planned / today of a cost the requests add up to: their times, or on a disk with a queue
their shares of the drive's busy time (:func:`advisor.trace.intervals.busy_shares`). Cut the
trace into :data:`GAIN_WINDOWS` windows of equal length by the traced issue time, and each
window is a smaller stretch of the same workload with its own gain; how much those differ
says how much the whole trace's gain would differ had another stretch been traced. The
standard error is the ratio estimator's over the windows, taken as clusters:
sqrt(K / (K - 1) * sum (p_k - R t_k)^2) / sum t_k, with R = sum p / sum t.

Why the verdict needs it (docs/accuracy.md, runs 14-16): on a layout a plan produced, the next
report found another plan the replay judged at +6.0 to +7.7 %, over the 5 % a move must bring.
Over the windows of those traces the temp sorts' gain had a standard error of 3.4 and 4.7 points
(two clients, a dozen statements a run), where the other workloads' first plans had 0.6 to 2.3
and the mixed workload's, whose scan comes every 10 s, 1.9 to 5.5. A move is advised when its gain less its
standard uncertainty reaches ``--min-gain``: a gain the trace cannot tell from the threshold is
noise, and re-advising a layout on noise moves data back and forth.

The other part is where the file system puts a moved area. The planned replay lays each moved
area's extents end to end (:mod:`advisor.engine.replay_layout`); a copy by the database writes
each file whole, but ext4 left the files a plan had moved in 6 to 10 extents with gaps of 2 to
8 MiB, and on such a layout the next plan's replay drew up to 4 points of its gain from closing
those gaps again. The planned layout is therefore replayed a second time with each moved area as
spread as it is today, and the gain is taken to lie anywhere between the two: a rectangular
distribution, whose standard uncertainty is the distance over sqrt(12) (a type B evaluation in
the terms of the GUM, JCGM 100:2008, 4.3.7). The gain stays the end-to-end one, which was the
closer to the measured gain after the moves of runs 14-16; the two parts add in quadrature.

The third part is the replay's own error, which no trace shows: its self-check compares today's
layout replayed with today's layout measured, and a bias that is the same under both layouts
cancels in the gain. What the replayed gain misses by is known only where a move was made and
measured, which the accuracy suite does (docs/accuracy.md, "The replay's own error in the
verdict"). Over its runs 29, 30 and 31, re-judged with the replay's present code (eighteen
moves measured before and after, one of them a move the report advised against), the replayed
gain missed the measured one by -4.1 to +10.7 points, root mean square 3.8: that is
:data:`MODEL_ERROR`, a type B standard uncertainty from earlier measurement data (JCGM 100:2008,
4.3.1), added in quadrature to the other two. Without it a re-advice on the three databases'
applied layout was replayed at +5.9 % ± 0.8 and cleared the 5 %, where the same re-advice applied
and measured once gave +2.8 % (+9.4 % replayed on that run's trace). The suite measured an
emulated 7200 rpm drive: on a disk it has not measured the error may be larger, not smaller. It
is one error for every disk of a plan (the same model on each), so :func:`combined_error` adds
it once, after the disks' own errors are combined.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from advisor.disk.replay import Replayed
from advisor.trace.intervals import busy_shares

GAIN_WINDOWS = 10
"""Windows of equal length a trace is cut into for the standard error of its replayed gain."""

MODEL_ERROR = 0.038
"""The replay's own standard uncertainty on a gain, in gain (0.038: 3.8 points): the root mean square of
what its overall gain missed the measured one by on the accuracy suite's runs 29-31 (module docstring)."""

FloatArray = npt.NDArray[np.float64]


def windows_of(issue_s: FloatArray, windows: int = GAIN_WINDOWS) -> npt.NDArray[np.int64]:
    """Each request's window (0 to *windows* - 1) by its traced issue time, the span cut in equal lengths.

    >>> windows_of(np.array([0.0, 0.4, 0.5, 1.0]), 2).tolist()
    [0, 0, 1, 1]
    """
    first, last = float(issue_s.min()), float(issue_s.max())
    if last <= first:
        return np.zeros(len(issue_s), dtype=np.int64)
    position = (issue_s - first) / (last - first) * windows
    return np.minimum(position.astype(np.int64), windows - 1)


def busy_costs(replays: Sequence[Replayed]) -> FloatArray:
    """Each request's share of the replayed drive's busy time, the mean over the replays (phases)."""
    return np.asarray(np.mean([busy_shares(r.issue_s, r.complete_s) for r in replays], axis=0), dtype=np.float64)


def time_costs(replays: Sequence[Replayed], timed: npt.NDArray[np.bool_]) -> FloatArray:
    """Each request's replayed time where *timed* (0 elsewhere), the mean over the replays (phases)."""
    return np.asarray(np.mean([r.service_s for r in replays], axis=0) * timed, dtype=np.float64)


def gain_error(today: FloatArray, planned: FloatArray, window: npt.NDArray[np.int64],
               windows: int = GAIN_WINDOWS) -> float | None:
    """The standard error of 1 - sum(*planned*) / sum(*today*) over the windows (module docstring);
    None where fewer than two windows hold a cost.

    >>> w = np.array([0, 0, 1, 1])
    >>> gain_error(np.array([1.0, 1.0, 1.0, 1.0]), np.array([0.5, 0.5, 0.5, 0.5]), w, 2)
    0.0
    >>> round(gain_error(np.array([1.0, 1.0, 1.0, 1.0]), np.array([0.4, 0.4, 0.6, 0.6]), w, 2), 3)
    0.1
    """
    t = np.bincount(window, weights=today, minlength=windows)
    p = np.bincount(window, weights=planned, minlength=windows)
    held = int((t > 0).sum())
    if held < 2 or t.sum() <= 0:
        return None
    ratio = p.sum() / t.sum()
    residual = p - ratio * t
    return float(np.sqrt(held / (held - 1) * np.sum(residual**2)) / t.sum())


def combined_error(errors: Sequence[float | None], weights: Sequence[float], common: float = 0.0) -> float | None:
    """The standard error of a weighted mean of gains (the disks a plan lays out); None when any is unknown.

    Each of *errors* holds a part of its own (the trace's windows, the file system) and *common*, the
    replay's own error (:data:`MODEL_ERROR`), which is the same on every disk: the own parts combine as
    independent ones, and *common* is added once, whole, since a weighted mean does not average it away.

    >>> round(combined_error([0.03, 0.04], [1.0, 1.0]), 4)
    0.025
    >>> round(combined_error([0.05, 0.05], [1.0, 1.0], common=0.04), 4)
    0.0453
    """
    if not errors or any(e is None for e in errors) or sum(weights) <= 0:
        return None
    own = [math.sqrt(max(e * e - common * common, 0.0)) for e in errors if e is not None]
    independent = float(np.sqrt(sum((w * e) ** 2 for w, e in zip(weights, own, strict=True))) / sum(weights))
    return math.hypot(independent, common)


def common_error(model_errors: Iterable[float | None]) -> float:
    """The replay's own error of a plan's disks (each check's ``model_error``; the same model on each), 0 where
    none is recorded: the *common* of :func:`combined_error`.

    >>> common_error([0.038, None, 0.038]), common_error([])
    (0.038, 0.0)
    """
    return max((e or 0.0 for e in model_errors), default=0.0)


def total_error(window: float | None, gain: float | None, spread_gain: float | None,
                model: float = MODEL_ERROR) -> float | None:
    """The standard uncertainty of a replayed *gain*: *window* (:func:`gain_error`), the layout's, a gain known
    only to lie between *gain* (laid end to end) and *spread_gain* (as spread as today): |difference| / sqrt(12),
    a rectangular distribution's, and *model*, the replay's own error; in quadrature (module docstring).
    None without a gain.

    >>> round(total_error(0.008, 0.06, 0.027, model=0.0), 4)
    0.0124
    >>> round(total_error(0.008, 0.06, 0.027), 3)
    0.04
    >>> total_error(None, None, None) is None
    True
    """
    if gain is None:
        return None
    layout = 0.0 if spread_gain is None else abs(gain - spread_gain) / math.sqrt(12.0)
    return math.hypot(window or 0.0, layout, model)


def clears(gain: float, error: float | None, min_gain: float) -> bool:
    """Whether *gain* less its standard error reaches *min_gain* (no error known: the gain alone)."""
    return gain - (error or 0.0) >= min_gain
