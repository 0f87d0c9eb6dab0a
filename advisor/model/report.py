"""What the advisor concludes: findings, a placement plan with predicted gains, scripts.

A finding is pgwatch's recommendation row made physical: a stable code, the evidence as
numbers, the gain the disk model predicts, and the action to take. A plan lists target
partitions from the outer edge, which area goes where, the service times the model
predicts before and after, and the scripts that carry it out.
"""

from __future__ import annotations

from typing import Any, Literal

from advisor.model.record import Record, field

REPORT_FORMAT_VERSION = 1

Severity = Literal["info", "low", "medium", "high", "critical"]


class Finding(Record):
    """One thing advisor found, with the numbers that prove it and what to do."""

    code: str  # stable: HOT_ON_INNER, CROSS_SURFACE, ...
    severity: Severity
    subject: str  # tablespace, file, disk or area the finding is about
    title: str
    evidence: dict[str, float | int | str | None]
    predicted_gain: float | None  # fraction of service time saved (0.25 = 25 % faster)
    action: str


class ServiceTime(Record):
    """Predicted mean service time of one area before and after the plan."""

    area: str
    iops: float
    before_ms: float
    after_ms: float


class PlannedPartition(Record):
    """A target partition, in order from the outer edge."""

    disk: str
    number: int
    start_fraction: float
    end_fraction: float
    size_bytes: int
    areas: tuple[str, ...]
    label: str = ""
    start_bytes: int = 0  # 1 MiB aligned


class AreaPlacement(Record):
    """Where one area (tablespace, WAL, temp, archive) is and where it should go."""

    area: str
    kind: str
    size_bytes: int
    current: str | None  # partition or zone description now
    target: str  # planned partition label
    zone_start: float
    zone_end: float


class Script(Record):
    """A script that carries out part of the plan, with the caveat to read first."""

    name: str  # "sfdisk", "postgres.sql", "oracle.sql", "move_wal.sh"
    language: Literal["sql", "shell", "sfdisk"]
    text: str
    caveat: str = ""


class Plan(Record):
    """Partitions from the outer edge, the assignment, predicted times and scripts."""

    partitions: tuple[PlannedPartition, ...]
    placements: tuple[AreaPlacement, ...]
    service_times: tuple[ServiceTime, ...]
    predicted_before_ms: float
    predicted_after_ms: float
    predicted_gain: float
    scripts: tuple[Script, ...] = ()
    method: str = ""  # "exhaustive" | "greedy+local" ...
    notes: tuple[str, ...] = ()


class Report(Record):
    """The advisor's whole answer; renderers only read this."""

    generated_at: str
    server: dict[str, Any]
    interval_s: float | None
    disks: dict[str, dict[str, Any]]  # disk name → model or profile summary used
    findings: tuple[Finding, ...]
    plan: Plan | None
    io_wait_share: float | None = None
    layout: dict[str, Any] = field(default_factory=dict)
    areas: tuple[dict[str, Any], ...] = ()
    warnings: tuple[str, ...] = ()
    tool_version: str = ""
    document: Literal["report"] = "report"
    format_version: int = REPORT_FORMAT_VERSION
