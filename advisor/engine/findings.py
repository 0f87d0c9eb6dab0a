"""Placement findings: hot data on the inner edge, streams far apart, WAL among random reads.

Each finding compares the disk model's prediction for the layout as it is with a concrete
alternative (the hot area moved to the outer edge, the hot streams packed together, the WAL
on its own actuator) so the evidence and the predicted gain are numbers from the same model
the plan uses. Thresholds are module constants, documented in docs/findings.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor.disk.physics import Band, DiskPhysics, Stream, weighted_mean_ms
from advisor.engine.classify import Classified
from advisor.model import Finding
from advisor.model.report import Severity

HOT_SHARE_MIN = 0.10
"""An area with at least 10 % of its disk's IOs is hot."""

INNER_HALF = 0.5
"""Zone mean beyond which an area sits in the inner (slower, farther) half."""

STREAM_SHARE_MIN = 0.05
"""Streams with at least 5 % of a disk's IOs count for the cross-surface check."""

CROSS_SPREAD_MIN = 0.4
"""Distance (fraction of the disk) between hot streams that makes seeks long."""

PENALTY_MIN = 0.10
"""Report CROSS_SURFACE when the predicted mean is 10 % above the packed layout's."""

GAIN_MIN = 0.03
"""Placement findings with a predicted gain below 3 % are not worth a move."""

OUTER_THIRD = 1 / 3
"""Archive or cold data starting in the outer third takes the fastest zones."""

COLD_SIZE_MIN = 0.02
"""Cold data smaller than 2 % of the disk is not worth moving."""

PLAN_HINT = "the plan of advisor report or advisor plan says where"

ACTIVE = frozenset({"random-read", "scan", "write-heavy", "temp", "wal"})


def severity_for(gain: float | None) -> Severity:
    """Severity from the predicted gain: >=30 % high, >=10 % medium, else low."""
    if gain is None:
        return "low"
    if gain >= 0.30:
        return "high"
    if gain >= 0.10:
        return "medium"
    return "low"


@dataclass(frozen=True, slots=True)
class DiskView:
    """The located areas of one disk, their current bands and predicted service times."""

    disk: str
    size_bytes: int
    physics: DiskPhysics
    areas: tuple[Classified, ...]
    bands: tuple[Band, ...]
    times_ms: tuple[float, ...]
    mean_ms: float

    def streams(self, bands: Sequence[Band] | None = None) -> list[Stream]:
        """The disk's streams in the current bands or in *bands*."""
        placed = bands if bands is not None else self.bands
        total = sum(c.area.iops for c in self.areas)
        return [
            (band, c.area.iops / total if total > 0 else 0.0, c.area.mean_io_bytes, c.sequential)
            for c, band in zip(self.areas, placed, strict=True)
        ]

    def share(self, index: int) -> float:
        """Share of the disk's IOs that go to area *index*."""
        total = sum(c.area.iops for c in self.areas)
        return self.areas[index].area.iops / total if total > 0 else 0.0

    def predict(self, bands: Sequence[Band]) -> tuple[list[float], float]:
        """Per-area times and IO-weighted mean with the areas in *bands*."""
        streams = self.streams(bands)
        if sum(s[1] for s in streams) <= 0:
            return [0.0] * len(streams), 0.0
        visits = [c.area.visits_per_io for c in self.areas]
        times = self.physics.mixed_service_ms(streams, visits if any(v is not None for v in visits) else None)
        return list(times), weighted_mean_ms(streams, times)


def disk_view(disk: str, size_bytes: int, physics: DiskPhysics, areas: Sequence[Classified]) -> DiskView:
    """Predict the current layout of *disk* from its areas' zone ranges."""
    located = tuple(
        c for c in areas
        if c.area.disk == disk and c.area.placement_known and c.area.zone_start is not None
    )
    bands = tuple((c.area.zone_start or 0.0, max(c.area.zone_end or 0.0, c.area.zone_start or 0.0)) for c in located)
    view = DiskView(disk, size_bytes, physics, located, bands, (), 0.0)
    if not located:
        return view
    times, mean = view.predict(bands)
    return DiskView(disk, size_bytes, physics, located, bands, tuple(times), mean)


def _width(view: DiskView, index: int) -> float:
    area = view.areas[index].area
    lo, hi = view.bands[index]
    own = area.size_bytes / view.size_bytes if view.size_bytes > 0 else hi - lo
    return max(1e-6, min(hi - lo if hi > lo else own, own if own > 0 else hi - lo))


def _moved(view: DiskView, index: int, start: float) -> list[Band]:
    bands = list(view.bands)
    width = _width(view, index)
    bands[index] = (start, min(1.0, start + width))
    return bands


def _area_gain(view: DiskView, index: int, bands: Sequence[Band]) -> tuple[float, float, float]:
    after_times, _ = view.predict(bands)
    before = view.times_ms[index]
    after = after_times[index]
    return before, after, (before - after) / before if before > 0 else 0.0


def hot_on_inner(view: DiskView) -> list[Finding]:
    """HOT_ON_INNER: a hot data area whose bytes sit in the inner half of its disk."""
    found = []
    for i, c in enumerate(view.areas):
        if c.cls not in ("random-read", "scan", "write-heavy") or view.share(i) < HOT_SHARE_MIN:
            continue
        zone = c.area.zone_mean if c.area.zone_mean is not None else sum(view.bands[i]) / 2
        if zone < INNER_HALF:
            continue
        before, after, gain = _area_gain(view, i, _moved(view, i, 0.0))
        if gain < GAIN_MIN:
            continue
        found.append(Finding(
            code="HOT_ON_INNER", severity=severity_for(gain), subject=c.area.name,
            title=f"Hot {c.cls} area {c.area.name!r} sits at {zone:.0%} of {view.disk} (inner half)",
            evidence={
                "disk": view.disk, "zone_mean": round(zone, 4), "iops": round(c.area.iops, 2),
                "disk_io_share": round(view.share(i), 4), "service_ms_now": round(before, 3),
                "service_ms_outer": round(after, 3),
            },
            predicted_gain=round(gain, 4),
            action=f"Move {c.area.name!r} to a partition at the outer edge ({PLAN_HINT}).",
        ))
    return found


def cross_surface(view: DiskView) -> list[Finding]:
    """CROSS_SURFACE: hot streams far apart on one actuator pay full-stroke seeks."""
    hot = [i for i in range(len(view.areas)) if view.share(i) >= STREAM_SHARE_MIN]
    if len(hot) < 2:
        return []
    centres = {i: sum(view.bands[i]) / 2 for i in hot}
    outer = min(hot, key=centres.__getitem__)
    inner = max(hot, key=centres.__getitem__)
    spread = centres[inner] - centres[outer]
    if spread < CROSS_SPREAD_MIN:
        return []
    order = sorted(range(len(view.areas)), key=lambda i: (i not in hot, centres.get(i, 1.0), i))
    packed = list(view.bands)
    cursor = 0.0
    for i in order:
        width = _width(view, i)
        packed[i] = (cursor, min(1.0, cursor + width))
        cursor += width
    _, packed_mean = view.predict(packed)
    if packed_mean <= 0:
        return []
    penalty = (view.mean_ms - packed_mean) / packed_mean
    if penalty < PENALTY_MIN:
        return []
    gain = (view.mean_ms - packed_mean) / view.mean_ms
    a, b = view.areas[outer].area.name, view.areas[inner].area.name
    return [Finding(
        code="CROSS_SURFACE", severity=severity_for(gain), subject=view.disk,
        title=f"Hot streams {a!r} and {b!r} are {spread:.0%} of {view.disk} apart: long seeks between them",
        evidence={
            "disk": view.disk, "outer_area": a, "inner_area": b, "spread": round(spread, 4),
            "mean_ms_now": round(view.mean_ms, 3), "mean_ms_packed": round(packed_mean, 3),
            "penalty_ms": round(view.mean_ms - packed_mean, 3), "penalty_ratio": round(penalty, 4),
        },
        predicted_gain=round(gain, 4),
        action=f"Pack the hot areas next to each other at the outer edge ({PLAN_HINT}), or split them "
               "onto separate disks.",
    )]


def wal_shares_actuator(view: DiskView) -> list[Finding]:
    """WAL_SHARES_ACTUATOR: the WAL/redo stream interleaves with random reads on one disk."""
    wal = [i for i, c in enumerate(view.areas) if c.cls == "wal" and c.area.iops > 0]
    randoms = [i for i, c in enumerate(view.areas) if c.cls == "random-read"]
    if not wal or not randoms:
        return []
    random_share = sum(view.share(i) for i in randoms)
    if random_share < HOT_SHARE_MIN:
        return []
    w = wal[0]
    others = [i for i in range(len(view.areas)) if i != w]
    sub = DiskView(view.disk, view.size_bytes, view.physics, tuple(view.areas[i] for i in others),
                   tuple(view.bands[i] for i in others), (), 0.0)
    _, others_alone = sub.predict(sub.bands)
    wal_area = view.areas[w].area
    wal_alone = view.physics.mean_service_ms(view.bands[w], wal_area.mean_io_bytes, random=False)
    total = sum(c.area.iops for c in view.areas)
    after = (others_alone * (total - wal_area.iops) + wal_alone * wal_area.iops) / total
    gain = (view.mean_ms - after) / view.mean_ms if view.mean_ms > 0 else 0.0
    if gain < GAIN_MIN:
        return []
    return [Finding(
        code="WAL_SHARES_ACTUATOR", severity=severity_for(gain), subject=wal_area.name,
        title=f"{wal_area.name} shares {view.disk}'s actuator with random reads ({random_share:.0%} of its IOs)",
        evidence={
            "disk": view.disk, "wal_iops": round(wal_area.iops, 2), "wal_syncs_per_s": round(wal_area.syncs_per_s, 2),
            "random_read_share": round(random_share, 4), "wal_ms_now": round(view.times_ms[w], 3),
            "wal_ms_alone": round(wal_alone, 3), "mean_ms_now": round(view.mean_ms, 3),
            "mean_ms_separate": round(after, 3),
        },
        predicted_gain=round(gain, 4),
        action="Give the WAL/redo its own disk (plan --disks 2); on a single disk keep it in the band next to "
               "the hot data so the seek between them stays short.",
    )]


def _displaced(view: DiskView, index: int, code: str, what: str) -> list[Finding]:
    """A cold or archive area in the outer band while a hotter area sits farther in."""
    c = view.areas[index]
    zone = sum(view.bands[index]) / 2
    hotter = [
        i for i, o in enumerate(view.areas)
        if o.cls in ACTIVE and view.share(i) >= STREAM_SHARE_MIN and sum(view.bands[i]) / 2 > zone
    ]
    if view.bands[index][0] >= OUTER_THIRD or not hotter:
        return []
    victim = max(hotter, key=view.share)
    before, after, gain = _area_gain(view, victim, _moved(view, victim, view.bands[index][0]))
    if gain < GAIN_MIN:
        return []
    name = view.areas[victim].area.name
    return [Finding(
        code=code, severity=severity_for(gain), subject=c.area.name,
        title=f"{what} {c.area.name!r} holds the outer band of {view.disk} while {name!r} sits farther in",
        evidence={
            "disk": view.disk, "zone_start": round(view.bands[index][0], 4), "zone_mean": round(zone, 4),
            "size_bytes": c.area.size_bytes, "io_share": round(view.share(index), 4), "displaced_area": name,
            "displaced_ms_now": round(before, 3), "displaced_ms_outer": round(after, 3),
        },
        predicted_gain=round(gain, 4),
        action=f"Move {c.area.name!r} to the inner edge and give its band to {name!r} ({PLAN_HINT}).",
    )]


def archive_and_cold_on_outer(view: DiskView) -> list[Finding]:
    """ARCHIVE_ON_OUTER and COLD_ON_OUTER for every such area of the disk."""
    found: list[Finding] = []
    for i, c in enumerate(view.areas):
        if c.cls == "archive":
            found += _displaced(view, i, "ARCHIVE_ON_OUTER", "Archive/FRA area")
        elif c.cls == "cold" and c.area.size_bytes >= COLD_SIZE_MIN * view.size_bytes:
            found += _displaced(view, i, "COLD_ON_OUTER", "Cold area")
    return found


def placement_findings(views: Mapping[str, DiskView]) -> list[Finding]:
    """All placement findings of every rotating disk with located areas."""
    found: list[Finding] = []
    for view in views.values():
        if not view.areas:
            continue
        found += hot_on_inner(view)
        found += cross_surface(view)
        found += wal_shares_actuator(view)
        found += archive_and_cold_on_outer(view)
    return found
