"""Classify areas by how they use the disk, which decides where they belong.

Random single-block reads pay seek plus rotation and gain most from a short band; scans
and sequential writes pay transfer and gain from the outer zones' higher rate; WAL/redo is
a sequential write stream with syncs that loses its sequentiality when interleaved with
random reads; archive/FRA/backup and cold data are read rarely and belong at the inner edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from advisor.engine.areas import Area

AreaClass = Literal["random-read", "scan", "write-heavy", "wal", "temp", "archive", "control", "cold"]

RANDOM_SHARE_MIN = 0.5
"""Share of single-block reads above which an area is random-read heavy."""

SMALL_READ_KB = 16.0
"""Mean read size at or below which reads count as random when no single-block share is known."""

COLD_SHARE_MAX = 0.01
"""An area with less than 1 % of the disk's IOs and of its MB/s is cold."""

WRITE_HEAVY_MIN = 0.6
"""Share of writes in an area's IOs above which it is write heavy."""

SEQUENTIAL_CLASSES: frozenset[str] = frozenset({"scan", "wal", "archive", "temp"})


@dataclass(frozen=True, slots=True)
class Classified:
    """An area with its class, its share of all IO and the rule that decided the class."""

    area: Area
    cls: AreaClass
    io_share: float
    reason: str

    @property
    def sequential(self) -> bool:
        """Whether the area's IO is mostly sequential (transfer-bound, not seek-bound)."""
        return self.cls in SEQUENTIAL_CLASSES


def _random(area: Area) -> bool:
    if area.random_share is not None:
        return area.random_share >= RANDOM_SHARE_MIN
    if area.mean_read_kb is not None:
        return area.mean_read_kb <= SMALL_READ_KB
    return True


def classify_area(area: Area, total_iops: float, total_mb_s: float) -> Classified:
    """Class of one area given the totals of the workload it belongs to."""
    share = area.iops / total_iops if total_iops > 0 else 0.0
    mb_share = area.mb_s / total_mb_s if total_mb_s > 0 else 0.0
    if area.kind == "wal":
        return Classified(area, "wal", share, "WAL/redo: sequential writes with syncs")
    if area.kind == "control":
        return Classified(area, "control", share, "control files: tiny, written at checkpoints")
    if area.kind == "archive":
        return Classified(area, "archive", share, "archive/FRA/backup: written once, read rarely, sequential")
    if area.kind == "temp":
        return Classified(area, "temp", share, "temp: sorts and hashes spill sequentially")
    if share < COLD_SHARE_MAX and mb_share < COLD_SHARE_MAX:
        return Classified(area, "cold", share, f"{share:.1%} of IOs and {mb_share:.1%} of the bytes")
    if area.iops > 0 and area.write_iops / area.iops >= WRITE_HEAVY_MIN:
        return Classified(area, "write-heavy", share, f"{area.write_iops / area.iops:.0%} of its IOs are writes")
    if _random(area):
        detail = (
            f"{area.random_share:.0%} single-block reads" if area.random_share is not None
            else f"mean read {area.mean_read_kb or 0:.0f} KB"
        )
        return Classified(area, "random-read", share, detail)
    return Classified(area, "scan", share, f"mean read {area.mean_read_kb or 0:.0f} KB, multi-block")


def classify(areas: Sequence[Area]) -> list[Classified]:
    """Classify every area against the totals of all of them."""
    total_iops = sum(a.iops for a in areas)
    total_mb = sum(a.mb_s for a in areas)
    return [classify_area(a, total_iops, total_mb) for a in areas]
