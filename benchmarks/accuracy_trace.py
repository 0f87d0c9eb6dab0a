"""What the emulated disk measured, per area: its requests attributed through the files' extents.

The emulated HDD records every request it serves (offset, size, arrival, reply and the
modelled service time, :mod:`advisor.disk.emulator.iotrace`). The files of each area are
located with FIEMAP (``advisor.storage.locate`` with their extents) right before a run, so a
request is attributed by the extent that holds its offset: an interval index, searched with
``bisect``. Temp files come and go within a query and cannot be located beforehand: a
request in no known extent but inside the partition that holds a temp area's directory is
that temp area's (the file system's own journal and metadata writes there are counted with
it; they are few). What is left is ``unattributed``.

Per area the figure is the modelled disk's mean service time per request, the cache flushes
its writes own included (the quantity the report's service times predict: a commit is a
write and its flush). A flush belongs to the last write the disk completed before the flush
arrived, the rule of the trace replay (:mod:`advisor.trace.links`); a flush before any
write is ``flush``'s own. Per disk, how busy the modelled disk was and how many
requests were in flight on average (Little's law over arrival-to-reply times).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from advisor.disk.emulator.iotrace import IoTrace
from advisor.storage.locate import locate
from advisor.trace.intervals import union_seconds

UNATTRIBUTED = "unattributed"


@dataclass
class ExtentIndex:
    """Sorted, non-overlapping byte ranges of one disk, each with the area that owns it."""

    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    areas: list[str] = field(default_factory=list)
    residual: list[tuple[int, int, str]] = field(default_factory=list)  # partition ranges of temp areas

    def area_of(self, offset: int) -> str:
        """The area whose extent holds *offset*, else a temp area's partition, else unattributed."""
        i = bisect.bisect_right(self.starts, offset) - 1
        if i >= 0 and offset < self.ends[i]:
            return self.areas[i]
        for start, end, area in self.residual:
            if start <= offset < end:
                return area
        return UNATTRIBUTED


def build_index(files_by_area: Mapping[str, Sequence[Path]], temp_ranges: Sequence[tuple[int, int, str]],
                disk: str) -> ExtentIndex:
    """Locate every file (FIEMAP) and keep the extents that lie on *disk* (``loop3``).

    *temp_ranges* are (start, end, area) byte ranges of the partitions temp areas write to.
    """
    ranges: list[tuple[int, int, str]] = []
    for area, files in files_by_area.items():
        for location in locate([str(p) for p in files], keep_extents=True):
            if location.disk != disk:
                continue
            for extent in location.extent_list:
                ranges.append((extent.disk_offset_bytes, extent.disk_offset_bytes + extent.length_bytes, area))
    ranges.sort()
    index = ExtentIndex()
    for start, end, area in ranges:
        if index.ends and start < index.ends[-1]:
            start = index.ends[-1]  # a block two files claim (it cannot be): keep the first owner
            if start >= end:
                continue
        index.starts.append(start)
        index.ends.append(end)
        index.areas.append(area)
    index.residual.extend(temp_ranges)
    return index


@dataclass
class AreaFigures:
    """Requests of one area in one run and their modelled service time."""

    requests: int = 0
    bytes: int = 0
    model_s: float = 0.0
    flushes: int = 0  # the cache flushes its writes own; their time is in model_s

    def as_dict(self, seconds: float) -> dict[str, Any]:
        """JSON-ready, with rates over the run's *seconds*."""
        return {"requests": self.requests, "per_s": round(self.requests / seconds, 2) if seconds > 0 else None,
                "mean_kib": round(self.bytes / self.requests / 1024, 1) if self.requests else None,
                "mean_service_ms": round(self.model_s * 1000 / self.requests, 3) if self.requests else None,
                "flushes": self.flushes}


def attribute(trace: IoTrace, index: ExtentIndex, seconds: float, time_scale: float) -> dict[str, Any]:
    """Per-area figures of one traced run on one disk, and the disk's busy share and queue depth.

    Service times are the drive's (the emulator's real seconds times *time_scale*), so they
    compare with the report's milliseconds; rates and the busy share are per real second.
    """
    per_area: dict[str, AreaFigures] = {}
    writes = sorted((r.replied_s, index.area_of(r.offset_bytes)) for r in trace.records if r.op == "write")
    replied = [at for at, _ in writes]
    for record in trace.records:
        if record.op == "flush":
            last = bisect.bisect_right(replied, record.arrived_s) - 1
            if last >= 0:  # owned by the write it follows: its time is that area's
                owner = per_area.setdefault(writes[last][1], AreaFigures())
                owner.flushes += 1
                owner.model_s += record.model_s * time_scale
                continue
            area = "flush"
        else:
            area = index.area_of(record.offset_bytes)
        figures = per_area.setdefault(area, AreaFigures())
        figures.requests += 1
        figures.bytes += record.length_bytes
        figures.model_s += record.model_s * time_scale
    return {"areas": {name: f.as_dict(seconds) for name, f in sorted(per_area.items())},
            "busy_share": round(busy_seconds(trace) / seconds, 3) if seconds > 0 else None,
            "mean_in_flight": round(sum(r.replied_s - r.arrived_s for r in trace.records) / seconds, 2)
            if seconds > 0 else None,
            "dropped": trace.dropped}


def busy_seconds(trace: IoTrace) -> float:
    """Seconds when at least one request was in the modelled disk (union of service intervals)."""
    replied = np.array([record.replied_s for record in trace.records], dtype=np.float64)
    served = np.array([record.model_s for record in trace.records], dtype=np.float64)
    return union_seconds(replied - served, replied)


def mean_of_runs(runs: Iterable[dict[str, Any]], area: str) -> float | None:
    """Mean service time of *area* per request over runs, the flushes its writes own included
    (a commit's cost is the write and the cache flush that follows); None when it had none."""
    requests = 0
    total_ms = 0.0
    for run in runs:
        for disk in run.get("disks", {}).values():
            figures = disk["areas"].get(area)
            if figures and figures["requests"]:
                requests += figures["requests"]
                total_ms += figures["mean_service_ms"] * figures["requests"]
    return total_ms / requests if requests else None
