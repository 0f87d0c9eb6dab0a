"""Where bytes physically are: disks, partitions, file extents as fractions of a disk.

A position is a fraction of the whole disk's LBA range: 0 is the outer edge (LBA 0, the
fastest zone on a hard disk), 1 the inner edge. When the block layer hides the physical
position (LVM with non-linear maps, md RAID, network and virtual disks, ASM), the location
carries ``placement_known = False`` and the reason, never a guess.
"""

from __future__ import annotations

from advisor.model.kinds import Share
from advisor.model.record import Record, field


class Device(Record):
    """A whole disk as the kernel sees it (``/sys/block/<name>``)."""

    name: str  # "sda", "loop3", "nvme0n1"
    path: str  # "/dev/sda"
    size_bytes: int
    model: str | None = None
    rotational: bool | None = None  # sysfs flag; not trusted on its own (loop, virtio say 1)
    logical_block_bytes: int = 512
    physical_block_bytes: int = 512
    write_cache: str | None = None  # "write back" | "write through"
    scheduler: str | None = None
    transport: str | None = None  # "loop", "virtio", "sata", "nvme", "md", "dm", ...
    backing_file: str | None = None  # loop devices
    placement_known: bool = True
    reason: str | None = None  # why placement_known is False


class Partition(Record):
    """A partition (or the whole disk used directly) holding a file system."""

    name: str  # "sda2"; equals the disk name when the disk has no partition table
    disk: str
    number: int  # 0 for a whole-disk file system
    start_bytes: int
    size_bytes: int
    mountpoints: tuple[str, ...] = ()
    fstype: str | None = None
    aligned: bool | None = None  # start on a physical-block (and 1 MiB) boundary

    def fraction_range(self, disk_size_bytes: int) -> tuple[float, float]:
        """The partition's span as fractions of its disk (0 = outer edge)."""
        return (self.start_bytes / disk_size_bytes, (self.start_bytes + self.size_bytes) / disk_size_bytes)


class Extent(Record):
    """A run of a file's bytes at an absolute byte offset of the whole disk."""

    file_offset_bytes: int
    disk_offset_bytes: int
    length_bytes: int


class Location(Record):
    """Where one path lies: disk, partition and the zone range its extents span."""

    path: str
    disk: str | None
    partition: str | None
    zone_start: Share | None  # lowest fraction touched (0 = outer edge)
    zone_end: Share | None  # highest fraction touched
    extents: int  # number of extents (fragmentation)
    size_bytes: int = 0
    zone_mean: Share | None = None  # byte-weighted mean fraction
    placement_known: bool = True
    reason: str | None = None
    extent_list: tuple[Extent, ...] = ()  # kept only when asked (``where --extents``)


class DiskStat(Record):
    """One line of /proc/diskstats: cumulative counters of a disk or partition."""

    name: str
    reads: int
    read_sectors: int
    read_time_ms: int
    writes: int
    write_sectors: int
    write_time_ms: int
    io_time_ms: int
    flushes: int | None = None
    flush_time_ms: int | None = None
    is_partition: bool = False  # a partition row (sda2), not a whole disk (sda)


class DiskStatRate(Record):
    """What ``iostat -x`` shows for one disk or partition over an interval."""

    name: str
    r_s: float
    w_s: float
    read_mb_s: float
    write_mb_s: float
    r_await_ms: float | None
    w_await_ms: float | None
    util: float  # fraction of the interval the device was busy (0..1)
    is_partition: bool = False


class HostLayout(Record):
    """The host side of a snapshot: disks, partitions, file locations, diskstats."""

    hostname: str
    devices: tuple[Device, ...] = ()
    partitions: tuple[Partition, ...] = ()
    locations: tuple[Location, ...] = ()
    diskstats: tuple[DiskStat, ...] = ()
    diskstats_at_monotonic_s: float | None = None
    warnings: tuple[str, ...] = ()
    mapped_paths: dict[str, str] = field(default_factory=dict)  # symlink → resolved target
