"""What ``advisor audit`` concludes: per disk, where each partition and database area sits.

A disk map runs from the outer edge (0) to the inner edge (1); each row is a partition or an
area (tablespace, WAL, temp, archive) with its IO, as rates over an interval or as shares of
all IO since the counters started. Built by :mod:`advisor.engine.audit_map`, drawn by
:mod:`advisor.render.diskmap`, written as the ``audit`` JSON document.
"""

from __future__ import annotations

from typing import Literal

from advisor.model.kinds import Timestamp
from advisor.model.layout import Device
from advisor.model.record import Record, field
from advisor.model.report import Finding
from advisor.model.snapshot import ServerInfo

AUDIT_FORMAT_VERSION = 1


class MapRow(Record):
    """One bar of a disk map: a partition or a database area, as fractions of the disk."""

    kind: str  # "partition" | "area"
    label: str
    start: float | None
    end: float | None
    mean: float | None = None
    io: float = 0.0  # ops/s (rates) or cumulative ops (shares)
    heat: float = 0.0  # io relative to the hottest row of the same kind on any disk (0..1)
    share: float | None = None  # area: of all the database's IO; partition: of its disk's (None: no diskstats)
    detail: str = ""
    placement_known: bool = True


class DiskMap(Record):
    """Rows of one disk, partitions first (by start), then areas (by mean position)."""

    disk: Device
    partitions: tuple[MapRow, ...]
    areas: tuple[MapRow, ...]


class AuditMaps(Record):
    """All disk maps plus the areas that could not be placed on any disk."""

    maps: tuple[DiskMap, ...]
    unplaced: tuple[MapRow, ...]
    heat_unit: str  # "IO/s" or "IO (cumulative)"
    interval_s: float | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)


class AuditReport(Record):
    """The ``advisor audit --format json`` document: the maps and findings of one server."""

    server: ServerInfo  # the (last) snapshot's server
    taken_at: Timestamp  # the (last) snapshot's time
    maps: AuditMaps  # per disk rows, and the areas with no known position
    findings: tuple[Finding, ...]  # the engine's findings for the layout as it is
    document: Literal["audit"] = "audit"  # always `audit`
    format_version: int = AUDIT_FORMAT_VERSION  # format version; newer versions are refused
