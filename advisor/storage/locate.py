"""Where a file's bytes lie on its disk: path → mount → block device → whole disk → zones.

For each path: open it (following symlinks such as ``pg_wal``), match its ``st_dev`` to a
mount and to ``/sys/dev/block``, read its extents with FIEMAP, add the partition's start
(following linear device-mapper segments down to a partition) and divide by the whole
disk's size. 0 is the outer edge. Everything that depends only on the device is resolved
once per ``st_dev`` and cached, so a plain file costs open + fstat + one ioctl + close.

A directory is located as the union of the regular files below it (zone range = lowest
start to highest end, mean weighted by bytes, extents summed). An empty directory gets its
partition's range with zero extents: that is where its next files will go.

Failures are per path: a missing file, a denied open, a file system without block
positions (tmpfs, overlay, NFS, ZFS, btrfs) or without FIEMAP give a Location with
``placement_known=False`` and the reason; the other paths are still located.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from advisor.model import Device, Extent, Location, Partition
from advisor.storage import devicemap
from advisor.storage.fiemap import EXTENT_ENCODED, FiemapReader, FiemapUnsupported, RawExtent
from advisor.storage.mountinfo import NON_BLOCK_FSTYPES, MountEntry, mount_for, read_mounts
from advisor.storage.sysfs import BlockNode, Sysfs

Translator = Callable[[int, int], list[tuple[str, int, int]]]  # fs offset, length → (disk, offset, length)
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)


class Unplaceable(Exception):
    """The bytes of this device have no known position on a disk (message says why)."""


@dataclass(slots=True)
class _Target:
    """What every file with one ``st_dev`` shares."""

    fstype: str | None
    disk: str | None = None
    partition: str | None = None
    translate: Translator | None = None
    reason: str | None = None  # set → no disk position at all
    weak_reason: str | None = None  # set → fractions computed but not physical (virtual disk)


@dataclass(slots=True)
class _Span:
    """Running union of extents on one disk."""

    low: int | None = None
    high: int = 0
    weighted: float = 0.0
    mapped_bytes: int = 0
    extents: int = 0
    size_bytes: int = 0
    unmapped: int = 0
    encoded: int = 0

    def add(self, disk_offset: int, length: int) -> None:
        if self.low is None or disk_offset < self.low:
            self.low = disk_offset
        self.high = max(self.high, disk_offset + length)
        self.weighted += (disk_offset + length / 2) * length
        self.mapped_bytes += length


class Locator:
    """Locates paths; keeps the devices and partitions it met for the host layout."""

    def __init__(self, *, keep_extents: bool = False, sync: bool = True, mounts: list[MountEntry] | None = None,
                 sysfs: Sysfs | None = None) -> None:
        self.keep_extents = keep_extents
        self.mounts = mounts if mounts is not None else read_mounts()
        self.sysfs = sysfs or Sysfs()
        self.fiemap = FiemapReader(sync=sync)
        self.devices: dict[str, Device] = {}
        self.partitions: dict[str, Partition] = {}
        self._targets: dict[int, _Target] = {}
        self.failed_paths: list[str] = []  # paths that could not be read at all (missing, denied, no FIEMAP)

    # -- per device ---------------------------------------------------------------------
    def _target(self, st_dev: int, path: str) -> _Target:
        target = self._targets.get(st_dev)
        if target is None:
            target = self._resolve(st_dev, path)
            self._targets[st_dev] = target
        return target

    def _resolve(self, st_dev: int, path: str) -> _Target:
        mount = mount_for(os.path.realpath(path), st_dev, self.mounts)
        fstype = mount.base_fstype if mount else None
        if fstype in NON_BLOCK_FSTYPES:
            return _Target(fstype, reason=NON_BLOCK_FSTYPES[fstype or ""])
        if fstype == "btrfs":
            return _Target(fstype, reason="btrfs reports logical addresses, not device offsets (RAID/multi-device)")
        node = self.sysfs.node(st_dev)
        if node is None:
            kind = fstype or "unknown file system"
            number = f"{os.major(st_dev)}:{os.minor(st_dev)}"
            return _Target(fstype, reason=f"{kind} on device {number} is not a block device")
        try:
            translate, bottom = self._translator(node, depth=0)
        except Unplaceable as exc:
            self._remember(node, mount, fstype)
            return _Target(fstype, disk=node.disk, partition=node.name, reason=str(exc))
        self._remember(bottom, None, None)
        self._remember(node, mount, fstype)
        device = self.devices[bottom.disk]
        weak = None if device.placement_known else device.reason
        return _Target(fstype, disk=bottom.disk, partition=node.name, translate=translate, weak_reason=weak)

    def _remember(self, node: BlockNode, mount: MountEntry | None, fstype: str | None) -> None:
        self.devices.setdefault(node.disk, self.sysfs.device(node.disk))
        mountpoints = tuple(sorted({m.mountpoint for m in self.mounts if m.dev == os.makedev(node.major, node.minor)}))
        if node.name not in self.partitions or mount is not None:
            self.partitions[node.name] = self.sysfs.partition(node, mountpoints, fstype)

    def _translator(self, node: BlockNode, depth: int) -> tuple[Translator, BlockNode]:
        """Offsets on *node* → whole-disk offsets; follows linear dm down to a partition."""
        device = self.sysfs.device(node.disk)
        if device.transport != "dm":
            start, disk = node.start_bytes, node.disk
            return (lambda offset, length: [(disk, start + offset, length)]), node
        if depth > 4:
            raise Unplaceable("device-mapper stack deeper than 4 levels")
        dm_name = device.model or node.disk
        try:
            segments = devicemap.parse_table(devicemap.read_table(dm_name))
        except OSError as exc:
            raise Unplaceable(f"device-mapper table of {dm_name} not readable ({exc.strerror})") from exc
        bad = devicemap.unsupported_target(segments)
        if bad is not None:
            raise Unplaceable(f"device-mapper target '{bad}' of {dm_name} scatters blocks across devices")
        below: dict[str, tuple[Translator, BlockNode]] = {}
        for segment in segments:
            ref = segment.below()
            assert ref is not None
            dev_ref = ref[0]
            dev = os.stat(dev_ref).st_rdev if dev_ref.startswith("/") else os.makedev(*map(int, dev_ref.split(":")))
            lower = self.sysfs.node(dev)
            if lower is None:
                raise Unplaceable(f"device-mapper {dm_name} maps to unknown device {dev_ref}")
            below[dev_ref] = self._translator(lower, depth + 1)
        disks = {bottom.disk for _, bottom in below.values()}
        if len(disks) != 1:
            raise Unplaceable(f"device-mapper {dm_name} spans disks {', '.join(sorted(disks))}")

        def translate(offset: int, length: int) -> list[tuple[str, int, int]]:
            pieces = []
            for dev_ref, lower_offset, lower_length in devicemap.translate(segments, offset, length):
                pieces.extend(below[dev_ref][0](lower_offset, lower_length))
            return pieces

        return translate, next(iter(below.values()))[1]

    # -- per path -----------------------------------------------------------------------
    def locate(self, path: str) -> Location:
        """Locate one file or directory; never raises for per-path problems."""
        try:
            fd = os.open(path, _OPEN_FLAGS)
        except OSError as exc:
            return self._failed(path, _describe(exc))
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                os.close(fd)
                fd = -1
                return self._locate_directory(path, st.st_dev)
            if not stat.S_ISREG(st.st_mode):
                return self._failed(path, "not a regular file or directory")
            target = self._target(st.st_dev, path)
            span = _Span(size_bytes=st.st_size)
            kept: list[Extent] = []
            if target.reason is None:
                self._add_file(fd, target, span, kept)
            return self._location(path, target, span, kept)
        except FiemapUnsupported:
            return self._failed(path, "the file system does not support FIEMAP")
        except OSError as exc:
            return self._failed(path, _describe(exc))
        finally:
            if fd >= 0:
                os.close(fd)

    def locate_pending(self, path: str) -> Location:
        """A directory that does not exist yet (PostgreSQL creates ``pgsql_tmp`` on first use).

        Its files will be created on the file system of its nearest existing ancestor, so
        that partition's range is reported, with a note saying so.
        """
        ancestor = os.path.dirname(os.path.abspath(path))
        while ancestor != "/" and not os.path.exists(ancestor):
            ancestor = os.path.dirname(ancestor)
        try:
            st = os.stat(ancestor)
        except OSError as exc:
            return self._failed(path, _describe(exc))
        target = self._target(st.st_dev, ancestor)
        location = self._location(path, target, _Span(), [], empty_directory=True)
        if target.reason is not None:
            return location
        note = f"does not exist yet: the partition of {ancestor} is shown"
        return _with_reason(location, f"{target.weak_reason}; {note}" if target.weak_reason else note)

    def _failed(self, path: str, reason: str) -> Location:
        self.failed_paths.append(path)
        return _failed(path, reason)

    def locate_many(self, paths: Iterable[str]) -> list[Location]:
        """Locate each path in order (on two cores when there are many: see storage.parallel)."""
        from advisor.storage.parallel import locate_split

        return locate_split(self, list(paths))

    def _add_file(self, fd: int, target: _Target, span: _Span, kept: list[Extent]) -> None:
        assert target.translate is not None and target.disk is not None
        raw: list[RawExtent] = self.fiemap.extents(fd)
        span.extents += len(raw)
        for extent in raw:
            if not extent.has_physical:
                span.unmapped += 1
                continue
            if extent.flags & EXTENT_ENCODED:
                span.encoded += 1
            for _disk, disk_offset, length in target.translate(extent.physical, extent.length):
                span.add(disk_offset, length)
                if self.keep_extents:
                    kept.append(Extent(extent.logical, disk_offset, length))

    def _locate_directory(self, path: str, st_dev: int) -> Location:
        target = self._target(st_dev, path)
        span = _Span()
        kept: list[Extent] = []
        problems = 0
        stack = [path]
        while stack:
            try:
                entries = list(os.scandir(stack.pop()))
            except OSError:
                problems += 1
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    fd = os.open(entry.path, _OPEN_FLAGS)
                except OSError:
                    problems += 1
                    continue
                try:
                    span.size_bytes += os.fstat(fd).st_size
                    if target.reason is None:
                        self._add_file(fd, target, span, kept)
                except OSError:
                    problems += 1
                finally:
                    os.close(fd)
        location = self._location(path, target, span, kept, empty_directory=span.extents == 0)
        if problems:
            note = f"{problems} entries could not be read"
            location = _with_reason(location, f"{location.reason}; {note}" if location.reason else note)
        return location

    def _location(self, path: str, target: _Target, span: _Span, kept: list[Extent],
                  empty_directory: bool = False) -> Location:
        if target.reason is not None:
            return Location(path, target.disk, target.partition, None, None, span.extents, span.size_bytes,
                            placement_known=False, reason=target.reason)
        assert target.disk is not None
        disk_size = self.devices[target.disk].size_bytes or 1
        notes = []
        if empty_directory and target.partition in self.partitions:
            part = self.partitions[target.partition]
            low, high = part.start_bytes, part.start_bytes + part.size_bytes
            return Location(path, target.disk, target.partition, low / disk_size, high / disk_size, 0,
                            span.size_bytes, (low + high) / 2 / disk_size, target.weak_reason is None,
                            target.weak_reason or "empty directory: the partition's range is shown")
        if span.unmapped:
            notes.append(f"{span.unmapped} extents not allocated yet")
        if span.encoded:
            notes.append(f"{span.encoded} extents compressed/encoded")
        if target.weak_reason:
            notes.insert(0, target.weak_reason)
        if span.low is None:
            reason = "; ".join(notes) or "no data blocks (empty or sparse file)"
            return Location(path, target.disk, target.partition, None, None, span.extents, span.size_bytes,
                            placement_known=target.weak_reason is None, reason=reason)
        return Location(  # once per file of the cluster
            path, target.disk, target.partition, span.low / disk_size, span.high / disk_size, span.extents,
            span.size_bytes, span.weighted / span.mapped_bytes / disk_size,
            placement_known=target.weak_reason is None, reason="; ".join(notes) or None, extent_list=tuple(kept),
        )


def _failed(path: str, reason: str) -> Location:
    return Location(path, None, None, None, None, 0, placement_known=False, reason=reason)


def _with_reason(location: Location, reason: str) -> Location:
    from dataclasses import replace

    return replace(location, reason=reason)


def _describe(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "no such file or directory"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or type(exc).__name__


def locate(paths: Iterable[str], *, keep_extents: bool = False) -> list[Location]:
    """Convenience: locate *paths* with a fresh locator."""
    return Locator(keep_extents=keep_extents).locate_many(paths)


def merge(path: str, parts: list[Location]) -> Location:
    """One Location for several files of one object (a relation's 1 GB segments).

    Zones are the union, the mean is weighted by size, extents add up. If any part is not
    placed the whole is not either (with that part's reason); parts on different disks
    make the placement unknown too.
    """
    if len(parts) == 1:
        if parts[0].path == path:
            return parts[0]
        from dataclasses import replace

        return replace(parts[0], path=path)
    size = sum(p.size_bytes for p in parts)
    extents = sum(p.extents for p in parts)
    unknown = [p for p in parts if not p.placement_known]
    disks = {p.disk for p in parts}
    first = parts[0]
    if unknown or len(disks) != 1:
        reason = unknown[0].reason if unknown else f"segments on several disks: {', '.join(sorted(map(str, disks)))}"
        return Location(path, first.disk, first.partition, None, None, extents, size, placement_known=False,
                        reason=f"{unknown[0].path}: {reason}" if unknown else reason)
    placed = [p for p in parts if p.zone_start is not None and p.zone_end is not None and p.zone_mean is not None]
    partitions = {p.partition for p in parts}
    if not placed:
        return Location(path, first.disk, first.partition if len(partitions) == 1 else None, None, None, extents,
                        size, reason="no data blocks")
    weights = [max(p.size_bytes, 1) for p in placed]
    mean = sum((p.zone_mean or 0.0) * w for p, w in zip(placed, weights, strict=True)) / sum(weights)
    return Location(
        path, first.disk, first.partition if len(partitions) == 1 else None,
        min(p.zone_start for p in placed if p.zone_start is not None),
        max(p.zone_end for p in placed if p.zone_end is not None),
        extents, size, mean, extent_list=tuple(e for p in parts for e in p.extent_list),
    )
