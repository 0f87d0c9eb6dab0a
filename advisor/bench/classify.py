"""Rotational or solid-state, the rotation speed, and the commit-rate honesty check.

The classification comes from what was measured, not from sysfs (loop, virtio and many
USB bridges report ``rotational=1`` whatever is behind them). Three mechanical signs:

* seek cost: QD1 random reads in a 1 % band are faster than over the whole surface
  (a disk: 1.8–2.2×; flash: ≈ 1×);
* zoned recording: the outer edge streams faster than the inner edge (disk: 1.4–2×);
* rotational wait: inside a narrow band the seek is almost constant while the wait for
  the sector is uniform over one revolution, so the middle 60 % of band latencies spans
  about half their median or more (flash: tight, even when its tail is long).

All three are ratios, so they hold on a time-scaled emulated disk too. The rotation speed
is read from that same spread: for a uniform wait on ``[0, T_rev)``, ``p80 - p20 = 0.6·T_rev``
(the middle of the distribution, where the small seek variation inside the band and the
odd slow IO matter least).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor.model.disk import Classification
from advisor.units import DRIVE_RPM_RANGE, STANDARD_RPM

BAND_RATIO_DISK = 1.25
ZONE_RATIO_DISK = 1.2
SPREAD_DISK = 0.5
HONEST_LIMIT = 1.2
CERTAINLY_CACHED = 5.0


@dataclass(frozen=True, slots=True)
class Evidence:
    """The measured ratios the decision is made from (None when the test did not run)."""

    band_over_stroke: float | None
    outer_over_inner: float | None
    band_spread: float | None
    band_width_ms: float = 1.0  # p80 - p20 of the band latencies


#: The narrowest (p80 - p20) that can be a rotational wait: 0.6 of a revolution of a 15k
#: drive is 2.4 ms, of one emulated ten times faster 0.24 ms; a tighter spread is jitter.
MIN_ROTATION_WIDTH_MS = 0.2


def classify(evidence: Evidence) -> tuple[Classification, str]:
    """Decide from the mechanical signs; the reason lists the numbers behind it."""
    signs = [
        ("band/full-stroke IOPS", evidence.band_over_stroke, BAND_RATIO_DISK),
        ("outer/inner MB/s", evidence.outer_over_inner, ZONE_RATIO_DISK),
        ("band latency (p80-p20)/p50", evidence.band_spread, SPREAD_DISK),
    ]
    known = [(label, value, limit) for label, value, limit in signs if value is not None]
    if not known:
        return "unknown", "no random or zone test ran"
    mechanical = [label for label, value, limit in known if value >= limit]
    if evidence.band_width_ms < MIN_ROTATION_WIDTH_MS and "band latency (p80-p20)/p50" in mechanical:
        mechanical.remove("band latency (p80-p20)/p50")  # too narrow to be a revolution
    shown = "; ".join(f"{label} {value:.2f} (disk ≥ {limit})" for label, value, limit in known)
    if len(mechanical) >= 2 or (len(known) == 1 and mechanical):
        return "rotational", f"{len(mechanical)} of {len(known)} mechanical signs: {shown}"
    if not mechanical:
        return "solid-state", f"no mechanical sign: {shown}"
    return "unknown", f"only {mechanical[0]} looks mechanical: {shown}"


CLASS_TOLERANCE = 0.05
"""An estimate names a standard class only within 5 % of it."""

NON_STANDARD_MIN = 0.15
"""An in-range estimate at least 15 % from every class is given as measured (a time-scaled
emulation or an unusual drive); between 5 and 15 % from a class it is no answer: host noise
widens the spread by about that much, so the class it lies nearest may be the wrong one."""

SPREAD_MAX = 0.05
"""Band estimates whose relative standard error exceeds 5 % cannot tell a class."""

TAIL_MAX = 1.5
"""(p95-p80)/0.15 over (p80-p20)/0.6: 1 for a uniform wait, which ends sharply after a
revolution; host delays on a share of the IOs draw a tail beyond it."""

HALVES_RANGE = (0.7, 1.45)
"""(p50-p20)/(p80-p50) of a uniform wait is 1; outside this range the host's delays shaped the
distribution (they stretch its upper half), not the revolution."""


def estimate_rpm(p20_ms: float, p80_ms: float) -> tuple[int | None, str]:
    """Rotation speed from one band-latency spread (see :func:`estimate_rpm_bands`)."""
    return estimate_rpm_bands([{20.0: p20_ms, 80.0: p80_ms}])


def estimate_rpm_bands(tables: Sequence[Mapping[float, float]]) -> tuple[int | None, str]:
    """Rotation speed from the band runs' latency percentiles, a standard class or "cannot tell".

    Each table (one band, one run) gives a revolution from p80 - p20 = 0.6 of it. Their
    median is the estimate and their spread its standard error: runs the host disturbed
    disagree, and a wide spread is refused rather than snapped to the nearest class. The
    shape is checked too: for a uniform wait p50 lies midway between p20 and p80, while host
    delays stretch the upper half. A class is named only within :data:`CLASS_TOLERANCE`.
    """
    widths = [t[80.0] - t[20.0] for t in tables if 20.0 in t and 80.0 in t]
    if not widths:
        return None, "no band latency percentiles"
    width = statistics.median(widths)
    if width < MIN_ROTATION_WIDTH_MS:
        return None, f"band latency p80-p20 {width:.3f} ms is too narrow for a rotational wait"
    rev_ms = width / 0.6
    raw = 60000.0 / rev_ms
    nearest = min(STANDARD_RPM, key=lambda rpm: abs(rpm - raw))
    how = f"band latency p80-p20 {width:.2f} ms = 0.6 revolution → {rev_ms:.2f} ms/rev = {raw:.0f} rpm"
    if len(widths) > 1:
        error = statistics.stdev(widths) / math.sqrt(len(widths)) / width
        how += f" (median of {len(widths)} band runs, ±{error:.1%})"
        if error > SPREAD_MAX:
            return None, how + ": the band runs disagree, so the host's scheduling, not the platter, set the spread; " \
                "rerun on an idle host or give --rpm"
    halves = [(t[50.0] - t[20.0]) / (t[80.0] - t[50.0]) for t in tables
              if 50.0 in t and 20.0 in t and 80.0 in t and t[80.0] > t[50.0]]
    if halves:
        shape = statistics.median(halves)
        if not HALVES_RANGE[0] <= shape <= HALVES_RANGE[1]:
            return None, how + (f": (p50-p20)/(p80-p50) is {shape:.2f}, not the 1 of a uniform rotational wait, so "
                                "the host's delays shaped the spread; rerun on an idle host or give --rpm")
    tails = [(t[95.0] - t[80.0]) / 0.15 / ((t[80.0] - t[20.0]) / 0.6) for t in tables
             if 95.0 in t and 20.0 in t and 80.0 in t and t[80.0] > t[20.0]]
    if tails and statistics.median(tails) > TAIL_MAX:
        return None, how + (f": the latencies run on {statistics.median(tails):.1f}x beyond a revolution's end "
                            "(p95-p80), so the host's delays, not the platter, widened the spread; rerun on an idle "
                            "host or give --rpm")
    off = abs(nearest - raw) / nearest
    if off <= CLASS_TOLERANCE:
        return nearest, how + f", nearest class {nearest}"
    slowest, fastest = DRIVE_RPM_RANGE
    if not slowest <= raw <= fastest:
        return None, how + (f": outside any drive's {slowest}..{fastest} rpm, so not a rotational wait "
                            "(host scheduling or a time-scaled emulation); give --rpm if the drive's is known")
    if off < NON_STANDARD_MIN:
        return None, how + (f": {off:.0%} from the nearest class {nearest}, too far to name it and too near to "
                            "call it another speed (host delays widen the spread by about that much); give --rpm")
    return int(round(raw, -2)), how + " (not a standard class: time-scaled or unusual drive)"


def commit_check(commit_per_s: float, rpm: int) -> str | None:
    """Warn when commits outrun the rotation: at most one same-sector rewrite per revolution."""
    limit = rpm / 60.0
    ratio = commit_per_s / limit
    if ratio <= HONEST_LIMIT:
        return None
    verdict = "almost certainly a volatile write cache" if ratio > CERTAINLY_CACHED else "flush not reaching the media"
    return (
        f"commit rate {commit_per_s:.0f}/s is {ratio:.1f}× the {limit:.0f}/s a {rpm} rpm disk allows (RPM/60): "
        f"{verdict} (drive write cache without flush, nobarrier, write-through forced, bridge or virtual disk) "
        "unless a battery/flash-backed controller cache is present"
    )
