"""A measured disk: what the zone benchmark found, in the form the model fitter reads.

Each figure comes with its latency where the test has one, the per-run values it was
averaged from, and stability warnings when runs disagree by 10 % or more (pyperf's rule),
so a reader can tell a measurement from noise. ``None`` means "not measured" (a test not
selected, stopped by Ctrl-C, or impossible on the target), never zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import msgspec

from advisor.model.kinds import Share, Timestamp
from advisor.model.record import Record, field
from advisor.units import DISK_MB, MIB

DISK_PROFILE_FORMAT_VERSION = 2
"""2: zone rates in bytes per second (``ZonePoint.bytes_per_s``, ``runs["zones"]``); version 1 held them
as MB/s of 10^6 bytes under ``mb_s``, a megabyte other documents do not use. Version 1 files are still read."""

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
    """Sequential read rate at one point of the LBA range (0 = outer edge).

    In bytes per second, so the figure has one reading: the disk side prints it in datasheet MB/s
    (:data:`advisor.units.DISK_MB`, 10^6 bytes), the workload side's MB is 2^20.
    """

    fraction: Share
    bytes_per_s: float  # sequential read rate, bytes per second


class WriteCliff(Record):
    """What the opt-in SMR test (``--tests smr``) saw: sustained random O_DSYNC writes.

    ``after_p50_ms`` and ``cliff_after_bytes`` are None when no cliff came within the
    budget (a CMR disk, or a media cache larger than what was written). ``after_p50_ms`` is
    the median of the slow writes from the first one on (five times the early median and
    10 ms or more: what a band clean costs), and ``slow_share`` their share of all writes
    from there on (past the cliff a drive left idle between writes cleans a band and takes
    a write or two fast again, so the median of all of them can fall back among the fast
    ones). ``series_ms`` is the write latency along the run, thinned to at most about 200
    points.
    """

    writes: int
    written_bytes: int
    block_size_bytes: int
    before_p50_ms: float
    after_p50_ms: float | None = None
    cliff_after_bytes: int | None = None  # ≈ the media cache that was free when the test began
    slow_share: float | None = None  # None: no cliff, or a profile written before it was kept
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
    measured_at: Timestamp
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
    runs: dict[str, list[float]] = field(default_factory=dict)  # test → per-run values (IOPS; zones: bytes/s)
    machine: dict[str, str] = field(default_factory=dict)  # kernel, cpu, device model ...
    warnings: tuple[str, ...] = ()
    complete: bool = True  # False when stopped early (Ctrl-C, time budget)
    tool_version: str = ""
    document: Literal["disk-profile"] = "disk-profile"
    format_version: int = DISK_PROFILE_FORMAT_VERSION


def load_disk_profile(path: Path | str) -> DiskProfile:
    """Read a profile written by ``advisor bench``; foreign, newer or impossible files are refused."""
    from advisor.model.jsonio import read_regular_file

    source = Path(path)
    return decode_disk_profile(read_regular_file(source, MAX_PROFILE_BYTES, "disk profile"), source)


MAX_PROFILE_BYTES = 64 * MIB
"""A bench profile with every zone and queue depth is well under a MiB; a larger file is not one."""


def decode_disk_profile(raw: bytes, source: Path | str) -> DiskProfile:
    """A profile already in memory (a file's bytes, a repository row), version 1 or 2; *source* names it in errors."""
    from advisor.model.jsonio import decode_document
    from advisor.model.validate import check

    if _format_version(raw) == 1:
        try:
            raw = msgspec.json.encode(upgrade_v1(msgspec.json.decode(raw)))
        except (msgspec.DecodeError, UnicodeDecodeError):
            pass  # damaged past its header: the typed decode below says where
    return check(decode_document(raw, source, "disk-profile", DiskProfile, DISK_PROFILE_FORMAT_VERSION),
                 Path(source).name)


class _Version(msgspec.Struct):
    document: object = None
    format_version: object = None


def _format_version(raw: bytes) -> object:
    """The document's ``format_version`` when it is a disk profile; None when unreadable (the full decode says why)."""
    try:
        header = msgspec.json.decode(raw, type=_Version)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    return header.format_version if header.document == "disk-profile" else None


def upgrade_v1(data: object) -> object:
    """A version 1 profile as version 2: zone rates from MB/s (10^6 bytes) to bytes per second.

    Only figures that are numbers are converted; anything else is left for the typed decode to
    refuse with the field's name, as for any damaged file.
    """
    if not isinstance(data, dict):
        return data
    zones = data.get("zones")
    if isinstance(zones, list):
        data["zones"] = [_zone_v1(z) for z in zones]
    runs = data.get("runs")
    if isinstance(runs, dict) and isinstance(runs.get("zones"), list):
        runs["zones"] = [v * DISK_MB if _number(v) else v for v in runs["zones"]]
    data["format_version"] = DISK_PROFILE_FORMAT_VERSION
    return data


def _zone_v1(zone: object) -> object:
    if isinstance(zone, dict) and "mb_s" in zone and "bytes_per_s" not in zone and _number(zone["mb_s"]):
        zone = dict(zone)
        zone["bytes_per_s"] = zone.pop("mb_s") * DISK_MB
    return zone


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
