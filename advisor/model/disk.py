"""A measured disk: what the zone benchmark found, in the form the model fitter reads.

Each figure comes with its latency where the test has one, the per-run values it was
averaged from, and stability warnings when runs disagree by 10 % or more (pyperf's rule),
so a reader can tell a measurement from noise. ``None`` means "not measured" (a test not
selected, stopped by Ctrl-C, or impossible on the target), never zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from advisor.model.record import Record, field

DISK_PROFILE_FORMAT_VERSION = 1

#: ``smr-dm``: a rotational disk whose random writes fall off a cliff once its media cache is
#: full (drive-managed SMR, invisible to sysfs); see ``DiskProfile.write_cliff``.
Classification = Literal["rotational", "solid-state", "smr-dm", "unknown"]


class Latency(Record):
    """Per-IO latency summary of one test, in milliseconds."""

    mean_ms: float
    p50_ms: float
    p99_ms: float
    max_ms: float | None = None


class ZonePoint(Record):
    """Sequential read rate at one point of the LBA range (0 = outer edge)."""

    fraction: float
    mb_s: float


class WriteCliff(Record):
    """What the opt-in SMR test (``--tests smr``) saw: sustained random O_DSYNC writes.

    ``after_p50_ms`` and ``cliff_after_bytes`` are None when no cliff came within the
    budget (a CMR disk, or a media cache larger than what was written). ``series_ms`` is
    the write latency along the run, thinned to at most about 200 points.
    """

    writes: int
    written_bytes: int
    block_size_bytes: int
    before_p50_ms: float
    after_p50_ms: float | None = None
    cliff_after_bytes: int | None = None  # ≈ the media cache that was free when the test began
    series_ms: tuple[float, ...] = ()


class DiskProfile(Record):
    """Result of ``advisor bench``: the disk figures placement depends on.

    ``band_iops`` holds QD1 random reads confined to a 1 % band at the ``outer``, ``middle``
    and ``inner`` edge; ``full_stroke_iops`` QD1 random reads over the whole target;
    ``cross_surface_iops`` the total of two QD1 workers at opposite edges at once;
    ``qd_iops`` full-stroke random reads by queue depth; ``commit_per_s`` same-offset
    rewrite + fdatasync on a scratch file.
    """

    target: str
    device: str | None
    size_bytes: int
    measured_at: str
    engine: str  # "builtin" | "fio"
    block_size_bytes: int
    zones: tuple[ZonePoint, ...] = ()
    band_iops: dict[str, float] = field(default_factory=dict)
    band_latency: dict[str, Latency] = field(default_factory=dict)
    full_stroke_iops: float | None = None
    full_stroke_latency: Latency | None = None
    cross_surface_iops: float | None = None
    cross_surface_latency: Latency | None = None
    qd_iops: dict[int, float] = field(default_factory=dict)
    qd_latency: dict[int, Latency] = field(default_factory=dict)
    commit_per_s: float | None = None
    commit_latency: Latency | None = None
    write_cliff: WriteCliff | None = None  # the SMR test, when it ran
    #: measurement key → how the engine issued its IOs: builtin "threads" (one thread per
    #: outstanding IO) or "linux-aio" (native AIO, queue depths above 1); fio "fio-psync"/"fio-libaio"
    io_paths: dict[str, str] = field(default_factory=dict)
    rpm: int | None = None  # from the measurements or the user; for the RPM/60 check
    classification: Classification = "unknown"
    classification_reason: str = ""
    runs: dict[str, list[float]] = field(default_factory=dict)  # test → per-run values
    machine: dict[str, str] = field(default_factory=dict)  # kernel, cpu, device model ...
    warnings: tuple[str, ...] = ()
    complete: bool = True  # False when stopped early (Ctrl-C, time budget)
    tool_version: str = ""
    document: Literal["disk-profile"] = "disk-profile"
    format_version: int = DISK_PROFILE_FORMAT_VERSION


def load_disk_profile(path: Path | str) -> DiskProfile:
    """Read a profile written by ``advisor bench``; foreign, newer or impossible files are refused."""
    from advisor.model.jsonio import read_document
    from advisor.model.validate import check

    return check(read_document(path, "disk-profile", DiskProfile, DISK_PROFILE_FORMAT_VERSION), Path(path).name)
