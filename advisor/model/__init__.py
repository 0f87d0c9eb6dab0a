"""The vocabulary of advisor: frozen, typed documents that every stage reads and writes.

A snapshot (one point in time) and a workload (rates between two snapshots) live in
:mod:`advisor.model.snapshot`; the host layout (where each file's bytes sit on which disk) in
:mod:`advisor.model.layout`; what the bench measured in :mod:`advisor.model.disk`; findings,
plans and the report in :mod:`advisor.model.report`. Every class is re-exported here, so
``from advisor.model import X`` is the one import the rest of the code uses.
"""

from __future__ import annotations

from advisor.model.audit import AUDIT_FORMAT_VERSION, AuditMaps, AuditReport, DiskMap, MapRow
from advisor.model.report import AreaRow, DiskSummary, LayoutDisk, LayoutPartition, LayoutSummary, ServerSummary
from advisor.model.snapshot import (
    DISK_PROFILE_FORMAT_VERSION,
    FORMAT_VERSION,
    REPORT_FORMAT_VERSION,
    AreaPlacement,
    CollectorRun,
    Dbms,
    Device,
    DiskProfile,
    DiskStat,
    DiskStatRate,
    Extent,
    FileIO,
    FileKind,
    FileRate,
    Finding,
    HostLayout,
    Latency,
    Location,
    Partition,
    Plan,
    PlannedPartition,
    Report,
    RunStatus,
    Script,
    SegmentIO,
    SegmentRate,
    ServerInfo,
    ServiceTime,
    Snapshot,
    WaitProfile,
    Workload,
    ZonePoint,
    load_snapshot,
    load_workload,
    new_file_io,
    save,
)

__all__ = [
    "DISK_PROFILE_FORMAT_VERSION",
    "FORMAT_VERSION",
    "REPORT_FORMAT_VERSION",
    "AreaPlacement",
    "CollectorRun",
    "Dbms",
    "Device",
    "DiskProfile",
    "DiskStat",
    "DiskStatRate",
    "Extent",
    "FileIO",
    "FileKind",
    "FileRate",
    "Finding",
    "HostLayout",
    "Latency",
    "Location",
    "Partition",
    "Plan",
    "PlannedPartition",
    "Report",
    "RunStatus",
    "Script",
    "SegmentIO",
    "SegmentRate",
    "ServerInfo",
    "ServiceTime",
    "Snapshot",
    "WaitProfile",
    "Workload",
    "ZonePoint",
    "load_snapshot",
    "load_workload",
    "new_file_io",
    "save",
]
__all__ += ["AUDIT_FORMAT_VERSION", "AreaRow", "AuditMaps", "AuditReport", "DiskMap", "DiskSummary", "LayoutDisk",
            "LayoutPartition", "LayoutSummary", "MapRow", "ServerSummary"]
