"""Calibrate the database's read rates against the kernel's per-device counters.

PostgreSQL's ``blks_read`` counts shared-buffer misses and Oracle's physical reads on a
buffered file system count reads of its files: both include reads the OS page cache served
without touching the disk, so a hot table can show thousands of "reads" per second at
disk-like latencies that no single actuator could deliver. The kernel's /proc/diskstats
rows (one per partition, one per disk) count what reached the device. For every device the
workload has a diskstats rate for, the reads of the database files located on it are
compared with the kernel's; when the database reports more, those files' read rates are
scaled down to the kernel's figures, each file by the same factor, so a device shared by
several areas is apportioned by each area's share of the database's reads there.

Two factors, because the database counts blocks (8 KiB for PostgreSQL) while the kernel
counts requests after readahead and merging: read IOPS are scaled by kernel reads / database
reads, read MB/s by kernel bytes / database bytes. A sequential scan whose 8 KiB reads the
kernel merged into 128 KiB requests keeps its bytes and loses IOPS (the disk really sees
fewer, larger requests); reads the page cache served lose both. The byte ratio is the share
of the database's reads that reached the disk (``disk_read_share``); the count ratio alone
would take merging for caching. Rates are never scaled up: other processes read the same
device, so the kernel's figure is an upper bound of the database's own. Writes are kept as
reported (WAL/redo writes are real device writes; PostgreSQL has no per-relation writes).
Without diskstats a workload imported from an AWR or Statspack report is judged by its read
times instead (:mod:`advisor.engine.cached_reads`: reads faster than any rotating disk came
from a cache), through the same factors; any other workload is not scaled and the report says
the rates are the database's own. With ``cache_kept=False`` (``--cache lost``: the new server
will not have today's cache) the evidence is still shown but no rate is scaled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import msgspec

from advisor.engine import cached_reads
from advisor.engine.areas import Area, AreaKind, LocationIndex, area_key, area_labels
from advisor.engine.kernel_areas import pattern_factors, temp_from_kernel, unwritten_area, with_writes, writes_by_size
from advisor.model import DiskStatRate, FileRate, Finding, HostLayout, Location, Workload
from advisor.units import mean_kib_of_rates


@dataclass(frozen=True, slots=True)
class DeviceReads:
    """The database's reads on one device next to the kernel's, and the factors applied.

    ``device`` is the diskstats row compared: a partition, or a whole disk (a whole-disk file
    system, or a disk whose partitions have no rows of their own; then the disk's reads less
    those of its partitions that do have rows are compared with the files on the rest).
    """

    device: str
    level: str  # "partition" | "disk"
    disk: str | None
    kernel_read_iops: float
    kernel_read_mb_s: float
    db_read_iops: float
    db_read_mb_s: float
    files: int
    areas: tuple[str, ...] = ()
    random_iops_factor: float | None = None  # set when some files read sequentially: see _pattern_factors
    sequential_iops_factor: float | None = None
    sequential_request_kib: float | None = None  # the sequential reads' mean request size on the disk

    @property
    def by_pattern(self) -> bool:
        """True when random and sequential reads were scaled each by their own factor."""
        return self.random_iops_factor is not None and self.sequential_iops_factor is not None

    @property
    def iops_factor(self) -> float:
        """Kernel reads / database reads, at most 1 (1 when the database read nothing)."""
        return _factor(self.kernel_read_iops, self.db_read_iops)

    @property
    def mb_factor(self) -> float:
        """Kernel bytes / database bytes, at most 1; the IOPS factor when bytes are unknown."""
        return _factor(self.kernel_read_mb_s, self.db_read_mb_s) if self.db_read_mb_s > 0 else self.iops_factor

    @property
    def scaled(self) -> bool:
        """True when the database reported more reads or bytes than reached the device."""
        return self.iops_factor < 1.0 or self.mb_factor < 1.0


@dataclass(frozen=True, slots=True)
class AreaReads:
    """One area's reads as the database reported them, and the share that reached the disk."""

    db_read_iops: float
    db_read_mb_s: float
    disk_read_share: float | None  # calibrated bytes / reported bytes over its compared files


@dataclass(frozen=True)
class Calibration:
    """Read rates as calibrated, per-device evidence and the notes for the report."""

    rates: tuple[FileRate, ...]
    devices: tuple[DeviceReads, ...] = ()
    measured: bool = False  # the workload had diskstats rates to compare with
    unmatched_read_iops: float = 0.0  # database reads of files no device row could be matched to
    unmatched_files: int = 0
    file_factors: dict[str, tuple[float, float]] = field(default_factory=dict)  # file_id -> (iops, MB/s)
    areas: dict[str, AreaReads] = field(default_factory=dict)  # area name -> the database's own reads
    estimates: tuple[cached_reads.CachedEstimate, ...] = ()  # a report import: per file, from its read times
    cache_kept: bool = True  # False: --cache lost, the evidence is shown and nothing scaled
    workload: Workload | None = None  # what the estimates came from (their notes name its histograms)
    temp_devices: tuple[str, ...] = ()  # partitions holding only temp files: their reads and requests are the kernel's
    written: tuple[tuple[str, str, float, float], ...] = ()  # (partition, area, writes/s, MiB/s) from the kernel

    def with_database_pattern(self, area: Area) -> Area:
        """*area* with the mean read size the database requested, for classification.

        Readahead and merging change the size of the disk's requests, not the access pattern:
        random 8 KiB lookups the kernel rounded up to 16-32 KiB are still random. The disk
        model's transfer size comes from the calibrated IOPS and MB/s (``mean_io_bytes``).
        """
        reads = self.areas.get(area.name)
        if reads is None or reads.db_read_iops <= 0 or area.read_iops <= 0:
            return area
        return replace(area, mean_read_kb=mean_kib_of_rates(reads.db_read_mb_s, reads.db_read_iops))

    def area_row(self, name: str) -> dict[str, float | None]:
        """``db_read_iops``, ``db_read_mb_s`` and ``disk_read_share`` of one area for the report.

        The share is None when nothing was compared (no diskstats, or none of the area's
        reading files sits on a device with counters).
        """
        reads = self.areas.get(name)
        if reads is None:
            return {"db_read_iops": None, "db_read_mb_s": None, "disk_read_share": None}
        return {"db_read_iops": round(reads.db_read_iops, 3), "db_read_mb_s": round(reads.db_read_mb_s, 3),
                "disk_read_share": None if reads.disk_read_share is None else round(reads.disk_read_share, 4)}

    def notes(self) -> list[str]:
        """Report notes: what was compared, what was scaled, and what stays unverified."""
        if self.workload is not None and not self.measured:
            w = self.workload
            return cached_reads.notes(self.estimates, w.read_evidence, w.interval_s, self.cache_kept)
        if not self.measured:
            return ["Read rates are the database's own (buffer misses or physical reads, unverified: the workload "
                    "has no diskstats of the same interval); reads the OS page cache served count as disk reads."]
        out = []
        for d in self.devices:
            if d.db_read_iops <= 0:
                continue
            head = (f"{d.device}: the kernel counted {d.kernel_read_iops:.1f} reads/s ({d.kernel_read_mb_s:.2f} MiB/s) "
                    f"where the database reported {d.db_read_iops:.1f} reads/s ({d.db_read_mb_s:.2f} MiB/s) for its "
                    f"files there")
            if d.by_pattern and self.cache_kept:
                out.append(f"{head}: {d.mb_factor:.1%} of the bytes reached the disk; random reads scaled by "
                           f"{d.random_iops_factor:.3g} and sequential reads by {d.sequential_iops_factor:.3g} "
                           f"(requests of {d.sequential_request_kib or 0:.0f} KiB on the disk), each area by its own "
                           f"mix ({', '.join(d.areas) or 'its files'}). The kernel's figure counts every process's "
                           "reads, so it is an upper bound of the database's own.")
            elif d.scaled and not self.cache_kept:
                out.append(f"{head}: {d.mb_factor:.1%} of the bytes reached the disk; read rates of "
                           f"{', '.join(d.areas) or 'its files'} kept as reported (--cache lost).")
            elif d.scaled:
                out.append(f"{head}: {d.mb_factor:.1%} of the bytes reached the disk; read rates of "
                           f"{', '.join(d.areas) or 'its files'} scaled by {d.iops_factor:.3g} (IOPS) and "
                           f"{d.mb_factor:.3g} (MiB/s). The kernel's figure counts every process's reads, so it is an "
                           "upper bound of the database's own.")
            else:
                out.append(f"{head}: rates kept (the kernel saw at least as many).")
        if self.temp_devices:
            out.append(f"Temp on {', '.join(self.temp_devices)} (alone on the partition): its reads and write requests "
                       "are the kernel's there (PostgreSQL counts temp bytes written only); the bytes written stay "
                       "the database's.")
        for device, area, w_s, w_mb in self.written:
            out.append(f"{device}: the kernel's {w_s:.1f} writes/s ({w_mb:.2f} MiB/s) are {area}'s data-page writes "
                       "(the only area there; PostgreSQL counts no writes per relation, so they were unknown). The "
                       "kernel's figure counts every process's writes, so it is an upper bound.")
        if not self.cache_kept:
            out.append("--cache lost: the plan counts every read the database reported, as if the new server had "
                       "none of today's OS page cache.")
        if self.unmatched_files:
            out.append(f"{self.unmatched_files} files ({self.unmatched_read_iops:.1f} reads/s) have no device counters "
                       "to compare with (unknown placement or no diskstats row): their read rates are the database's "
                       "own, unverified.")
        return out


def _factor(kernel: float, database: float) -> float:
    if database <= 0:
        return 1.0
    return max(0.0, min(1.0, kernel / database))


@dataclass
class _Group:
    device: str
    level: str
    disk: str | None
    kernel_iops: float
    kernel_mb: float
    files: list[FileRate] = field(default_factory=list)
    kernel_w_s: float = 0.0
    kernel_write_mb: float = 0.0


def _device_of(loc: Location | None, rows: dict[str, DiskStatRate],
               part_disk: dict[str, str]) -> tuple[str, str, str | None] | None:
    """(diskstats row, level, disk) that counts *loc*'s reads: its partition's, else its disk's remainder.

    A file with no single partition (segments on several, or not located) is not matched: no
    one row counts its reads alone.
    """
    if loc is None or loc.partition is None:
        return None
    disk = loc.disk or part_disk.get(loc.partition)
    if loc.partition in rows:
        whole = loc.partition == disk or (disk is None and not rows[loc.partition].is_partition)
        return loc.partition, "disk" if whole else "partition", disk or loc.partition
    if disk is not None and disk in rows:
        return disk, "disk", disk
    return None


def _partition_disks(layout: HostLayout) -> dict[str, str]:
    return {p.name: p.disk for p in layout.partitions if p.name != p.disk}


def calibrate_reads(workload: Workload, cache_kept: bool = True) -> Calibration:
    """Scale the workload's per-file read rates down to what reached a disk (the kernel's, else the read times').

    *cache_kept* False keeps every rate as the database reported it (the new server is not
    expected to have today's cache) while the evidence still shows.
    """
    rates = workload.rates
    if not workload.diskstats or workload.layout is None:
        return _from_read_times(workload, cache_kept)
    rows = {r.name: r for r in workload.diskstats}
    part_disk = _partition_disks(workload.layout)
    index = LocationIndex(workload.layout)
    groups: dict[str, _Group] = {}
    unmatched, unmatched_iops = 0, 0.0
    for rate in rates:
        target = _device_of(index.find(rate.path), rows, part_disk)
        if target is None:
            if rate.read_iops > 0:
                unmatched += 1
                unmatched_iops += rate.read_iops
            continue
        name, level, disk = target
        group = groups.get(name)
        if group is None:
            row = rows[name]
            group = groups[name] = _Group(name, level, disk, row.r_s, row.read_mb_s, [], row.w_s, row.write_mb_s)
        group.files.append(rate)
    _subtract_partitions(groups, rows, part_disk)
    found = _apply(rates, groups, area_labels(rates), unmatched, unmatched_iops, workload.relation_write_mb_s)
    return found if cache_kept else replace(found, rates=tuple(rates), cache_kept=False)


def _from_read_times(workload: Workload, cache_kept: bool) -> Calibration:
    """A report import's rates scaled by the share of each file's reads its read time says a cache served."""
    rates = workload.rates
    estimates = cached_reads.estimate(workload)
    if not estimates:
        return Calibration(rates=tuple(rates), cache_kept=cache_kept)
    factors = cached_reads.factors(estimates)
    known = {e.file_id for e in estimates if e.share is not None}
    scaled = tuple(_scaled(r, *factors[r.file_id]) if r.file_id in factors and cache_kept else r for r in rates)
    return Calibration(scaled, file_factors=factors if cache_kept else {},
                       areas=_area_reads(rates, area_labels(rates), known, factors), estimates=estimates,
                       cache_kept=cache_kept, workload=workload)


def _subtract_partitions(groups: dict[str, _Group], rows: dict[str, DiskStatRate], part_disk: dict[str, str]) -> None:
    """A disk-level group gets the disk's reads less those of its partitions that have rows."""
    for group in groups.values():
        if group.level != "disk" or group.device in part_disk:
            continue
        parts = [rows[p] for p, disk in part_disk.items() if disk == group.device and p in rows]
        group.kernel_iops = max(0.0, group.kernel_iops - sum(r.r_s for r in parts))
        group.kernel_mb = max(0.0, group.kernel_mb - sum(r.read_mb_s for r in parts))


def _apply(rates: Sequence[FileRate], groups: dict[str, _Group], labels: dict[tuple[AreaKind, str], str],
           unmatched: int, unmatched_iops: float, relation_write_mb_s: float | None = None) -> Calibration:
    devices: list[DeviceReads] = []
    factors: dict[str, tuple[float, float]] = {}
    shares: dict[str, float | None] = {}
    temp: dict[str, FileRate] = {}
    writes: dict[str, tuple[float, float]] = {}
    written: list[tuple[str, str, float, float]] = []
    for name in sorted(groups):
        g = groups[name]
        kernel = DiskStatRate(g.device, g.kernel_iops, g.kernel_w_s, g.kernel_mb, g.kernel_write_mb, None, None, 0.0)
        if g.level == "partition" and g.files and all(f.kind == "temp" for f in g.files):
            temp.update(temp_from_kernel(g.files, kernel))
        one_area = (unwritten_area(g.files, kernel, labels)
                    if g.level == "partition" and relation_write_mb_s is not None else None)
        if one_area is not None:
            writes.update(writes_by_size(g.files, kernel))
            written.append((g.device, one_area, g.kernel_w_s, g.kernel_write_mb))
        reading = [f for f in g.files if f.read_iops > 0 or f.read_mb_s > 0]
        dev = DeviceReads(
            device=g.device, level=g.level, disk=g.disk, kernel_read_iops=g.kernel_iops,
            kernel_read_mb_s=g.kernel_mb, db_read_iops=sum(f.read_iops for f in g.files),
            db_read_mb_s=sum(f.read_mb_s for f in g.files), files=len(g.files),
            areas=tuple(dict.fromkeys(labels[area_key(f)] for f in reading)),
        )
        patterned = pattern_factors(dev.mb_factor, dev.kernel_read_iops, reading)
        if patterned is not None:
            dev = replace(dev, random_iops_factor=patterned.random_iops,
                          sequential_iops_factor=patterned.sequential_iops,
                          sequential_request_kib=patterned.sequential_request_kib)
            for file_id, (iops_f, mb_f, share) in patterned.files.items():
                factors[file_id] = (iops_f, mb_f)
                shares[file_id] = share
        elif dev.scaled:
            pair = (dev.iops_factor, dev.mb_factor)  # properties: worked out once per device, not per file
            factors.update(dict.fromkeys((f.file_id for f in g.files), pair))
        devices.append(dev)
    scaled = tuple(temp[r.file_id] if r.file_id in temp else
                   _scaled(r, *factors[r.file_id], shares.get(r.file_id, r.random_share)) if r.file_id in factors
                   else r for r in rates)
    cap = _write_cap(written, relation_write_mb_s)
    written = [(d, a, w * cap, mb * cap) for d, a, w, mb in written]
    writes = {f: (w * cap, mb * cap) for f, (w, mb) in writes.items()}
    if writes:
        scaled = tuple(with_writes(r, *writes[r.file_id]) if r.file_id in writes else r for r in scaled)
    compared = {f.file_id for g in groups.values() for f in g.files}
    return Calibration(scaled, tuple(devices), True, unmatched_iops, unmatched, factors,
                       _area_reads(rates, labels, compared, factors), temp_devices=tuple(sorted(
                           {g.device for g in groups.values() if any(f.file_id in temp for f in g.files)})),
                       written=tuple(written))




def _write_cap(written: Sequence[tuple[str, str, float, float]], relation_write_mb_s: float | None) -> float:
    """Factor keeping the kernel writes given to areas within the bytes the server says it wrote.

    The kernel's writes on a partition also count the file system's own (journal commits) and
    other processes': an area is given at most the data pages the server wrote in all.
    """
    kernel_mb = sum(mb for *_, mb in written)
    if relation_write_mb_s is None or kernel_mb <= 0:
        return 1.0
    return min(1.0, relation_write_mb_s / kernel_mb)


def _area_reads(rates: Sequence[FileRate], labels: dict[tuple[AreaKind, str], str], compared: set[str],
                factors: dict[str, tuple[float, float]]) -> dict[str, AreaReads]:
    """Per area: the database's reads, and the byte share of its compared files that reached the disk.

    Each file on a device carries that device's factor, so an area sharing a partition gets
    the partition's kernel reads in proportion to its share of the database's reads there.
    """
    sums: dict[str, list[float]] = {}  # name -> [iops, MB/s, compared MB/s, of which reached, compared IOPS, reached]
    for r in rates:
        acc = sums.setdefault(labels[area_key(r)], [0.0] * 6)
        acc[0] += r.read_iops
        acc[1] += r.read_mb_s
        if r.file_id in compared:
            f_iops, f_mb = factors.get(r.file_id, (1.0, 1.0))
            acc[2] += r.read_mb_s
            acc[3] += r.read_mb_s * f_mb
            acc[4] += r.read_iops
            acc[5] += r.read_iops * f_iops
    out = {}
    for name, (iops, mb, c_mb, r_mb, c_iops, r_iops) in sums.items():
        share = r_mb / c_mb if c_mb > 0 else r_iops / c_iops if c_iops > 0 else None
        out[name] = AreaReads(iops, mb, share)
    return out


def _scaled(rate: FileRate, iops_factor: float, mb_factor: float, random_share: float | None = None) -> FileRate:
    mean = rate.mean_read_kb
    if mean is not None and iops_factor > 0:
        mean *= mb_factor / iops_factor
    # msgspec's own replace: a tenth of the cost of dataclasses.replace, and a fleet
    # report scales every file of every window
    return msgspec.structs.replace(rate, read_iops=rate.read_iops * iops_factor,
                                   read_mb_s=rate.read_mb_s * mb_factor, mean_read_kb=mean,
                                   random_share=rate.random_share if random_share is None else random_share)


CACHED_SHARE_MAX = 0.5
"""READS_CACHED when under half of the database's read bytes on a device reached it."""

CACHED_READS_MIN = 10.0
"""...and the database reported at least 10 reads/s there (below, the ratio is noise)."""


def reads_cached(calibration: Calibration) -> list[Finding]:
    """READS_CACHED: most of a device's buffer misses were served by the OS page cache.

    The placement findings and the plan use the calibrated rates, so this one only says why
    the database's own figures are far above them and what that means for tuning. For a
    report import the evidence is each file's read time (:func:`cached_reads.findings`).
    """
    evidence = calibration.workload.read_evidence if calibration.workload is not None else None
    found = cached_reads.findings(calibration.estimates, calibration.cache_kept,
                                  evidence.rounding_ms if evidence is not None else 0.0)
    for d in calibration.devices:
        if d.db_read_iops < CACHED_READS_MIN or d.mb_factor >= CACHED_SHARE_MAX:
            continue
        found.append(Finding(
            code="READS_CACHED", severity="low", subject=d.device,
            title=f"At most {d.mb_factor:.0%} of the database's reads on {d.device} reached the disk: the OS page "
                  "cache served the rest",
            evidence={
                "device": d.device, "level": d.level, "disk": d.disk, "db_read_iops": round(d.db_read_iops, 2),
                "kernel_read_iops": round(d.kernel_read_iops, 2), "db_read_mb_s": round(d.db_read_mb_s, 3),
                "kernel_read_mb_s": round(d.kernel_read_mb_s, 3), "disk_read_share": round(d.mb_factor, 4),
                "areas": ", ".join(d.areas),
            },
            predicted_gain=None,
            action=("Placement matters only for the reads that reach the disk (the plan uses the calibrated rates). "
                    if calibration.cache_kept else "The plan counts every read the database reported (--cache lost). ")
                   + "The rest are copies from memory: a larger shared_buffers (PostgreSQL) or buffer cache (Oracle) "
                   "would turn them into buffer hits; an OS memory squeeze would turn them into disk reads.",
        ))
    return found
