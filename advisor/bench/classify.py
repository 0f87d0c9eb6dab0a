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


def estimate_rpm(p20_ms: float, p80_ms: float) -> tuple[int | None, str]:
    """Rotation speed from the band-latency spread, snapped to a standard class within 10 %."""
    width = p80_ms - p20_ms
    if width < MIN_ROTATION_WIDTH_MS:
        return None, f"band latency p80-p20 {width:.3f} ms is too narrow for a rotational wait"
    rev_ms = width / 0.6
    raw = 60000.0 / rev_ms
    nearest = min(STANDARD_RPM, key=lambda rpm: abs(rpm - raw))
    how = f"band latency p80-p20 {width:.2f} ms = 0.6 revolution → {rev_ms:.2f} ms/rev = {raw:.0f} rpm"
    if abs(nearest - raw) <= 0.1 * nearest:
        return nearest, how + f", nearest class {nearest}"
    slowest, fastest = DRIVE_RPM_RANGE
    if not slowest <= raw <= fastest:
        return None, how + (f": outside any drive's {slowest}..{fastest} rpm, so not a rotational wait "
                            "(host scheduling or a time-scaled emulation); give --rpm if the drive's is known")
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
