"""What the advisor concludes: findings, a placement plan with predicted gains, scripts.

A finding is pgwatch's recommendation row made physical: a stable code, the evidence as
numbers, the gain the disk model predicts, and the action to take. A plan lists target
partitions from the outer edge, which area goes where, the service times the model
predicts before and after, and the scripts that carry it out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

REPORT_FORMAT_VERSION = 1

Severity = Literal["info", "low", "medium", "high", "critical"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing advisor found, with the numbers that prove it and what to do."""

    code: str  # stable: HOT_ON_INNER, CROSS_SURFACE, ...
    severity: Severity
    subject: str  # tablespace, file, disk or area the finding is about
    title: str
    evidence: dict[str, float | int | str | None]
    predicted_gain: float | None  # fraction of service time saved (0.25 = 25 % faster)
    action: str


@dataclass(frozen=True, slots=True)
class ServiceTime:
    """Predicted mean service time of one area before and after the plan."""

    area: str
    iops: float
    before_ms: float
    after_ms: float


@dataclass(frozen=True, slots=True)
class PlannedPartition:
    """A target partition, in order from the outer edge."""

    disk: str
    number: int
    start_fraction: float
    end_fraction: float
    size_bytes: int
    areas: tuple[str, ...]
    label: str = ""
    start_bytes: int = 0  # 1 MiB aligned


@dataclass(frozen=True, slots=True)
class AreaPlacement:
    """Where one area (tablespace, WAL, temp, archive) is and where it should go."""

    area: str
    kind: str
    size_bytes: int
    current: str | None  # partition or zone description now
    target: str  # planned partition label
    zone_start: float
    zone_end: float


@dataclass(frozen=True, slots=True)
class Script:
    """A script that carries out part of the plan, with the caveat to read first."""

    name: str  # "sfdisk", "postgres.sql", "oracle.sql", "move_wal.sh"
    language: Literal["sql", "shell", "sfdisk"]
    text: str
    caveat: str = ""


@dataclass(frozen=True, slots=True)
class TierDevice:
    """One target device of a tiered plan: its medium, model, what it holds and its predicted time."""

    name: str
    medium: str
    model: str
    source: str  # where the model's numbers come from
    capacity_bytes: int
    used_bytes: int  # with growth headroom
    iops: float
    mean_ms: float
    areas: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TierAssignment:
    """Where one area goes in a tiered plan, where the knapsack baseline put it, and why."""

    area: str
    kind: str  # the area's class (random-read, wal, archive ...)
    device: str
    medium: str
    size_bytes: int
    slot_bytes: int  # with growth headroom, as placed
    iops: float
    after_ms: float
    baseline_device: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class TierCurvePoint:
    """Predicted mean service time with the fast tier cut to ``fast_bytes`` (None: nothing fits)."""

    fast_bytes: int
    mean_ms: float | None


@dataclass(frozen=True, slots=True)
class TierPlan:
    """The tier side of a plan: devices, assignment, rules, baseline and marginal curve."""

    devices: tuple[TierDevice, ...]
    assignments: tuple[TierAssignment, ...]
    mean_ms: float
    baseline_mean_ms: float  # the IO-density knapsack under the same model
    curve: tuple[TierCurvePoint, ...] = ()
    rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Plan:
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
    tiers: TierPlan | None = None  # set by a plan onto an inventory (--target)


@dataclass(frozen=True, slots=True)
class Report:
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
