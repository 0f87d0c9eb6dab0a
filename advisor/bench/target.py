"""Bench targets and the safety rules around them.

The bench reads devices and only ever writes to a scratch file the user named on the
command line, which it creates itself (and removes afterwards) unless ``--reuse-scratch``
says an existing one may be overwritten. Devices are opened read-only with O_DIRECT, the
only device access there is. Write tests (the commit rate) need a filesystem: they are
refused on devices, above all mounted ones, and on files that are not the scratch file.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from advisor.errors import BadInput, DeviceError, UnsafeTarget
from advisor.storage.fiemap import EXTENT_UNWRITTEN, FiemapReader
from advisor.storage.mountinfo import mount_for, read_mounts
from advisor.units import MIB

TargetKind = Literal["device", "file", "scratch"]
_FILL_CHUNK = 8 * MIB
_ALIGN = MIB


@dataclass(frozen=True, slots=True)
class Target:
    """A resolved target: the path engines open, its usable size, and what may be done."""

    path: str
    kind: TargetKind
    size_bytes: int
    created: bool = False  # a scratch file made by this run: removed afterwards

    @property
    def writable(self) -> bool:
        """Only a scratch file may be written (the commit test)."""
        return self.kind == "scratch"


def mount_of(path: str) -> tuple[str, str, str]:
    """(mount point, filesystem type, source) of the filesystem holding *path*.

    A path that does not exist yet (a scratch file to create) is looked up by its directory.
    """
    real = os.path.realpath(path)
    probe = real if os.path.exists(real) else os.path.dirname(real)
    try:
        entry = mount_for(probe, os.stat(probe).st_dev, read_mounts())
    except OSError:
        entry = None
    if entry is None:
        return ("/", "unknown", "unknown")
    return (entry.mountpoint, entry.fstype, entry.source)


def mounted_at(device: str) -> str | None:
    """Mount point of *device* or of any partition of it, or None when nothing is mounted."""
    rdev = os.stat(device).st_rdev
    numbers = {(os.major(rdev), os.minor(rdev))}
    sys_dir = Path(f"/sys/dev/block/{os.major(rdev)}:{os.minor(rdev)}")
    if sys_dir.exists():
        for child in sys_dir.resolve().iterdir():
            dev_file = child / "dev"
            if (child / "partition").exists() and dev_file.exists():
                major, minor = dev_file.read_text().strip().split(":")
                numbers.add((int(major), int(minor)))
    for entry in read_mounts():
        if (entry.major, entry.minor) in numbers:
            return entry.mountpoint
    return None


def _direct_io_error(path: str, exc: OSError) -> DeviceError:
    """Explain an O_DIRECT refusal in one line, with what to do instead."""
    point, fstype, _ = mount_of(path)
    if exc.errno == errno.EINVAL:
        return DeviceError(
            f"{path} cannot be opened with O_DIRECT ({fstype} at {point} does not support direct IO), "
            "so reads would come from memory, not the disk",
            hint="put the scratch file on a disk-backed filesystem such as ext4 or xfs, or bench the device",
        )
    if exc.errno in (errno.EPERM, errno.EACCES) and _is_block_device(path):
        why = ("the kernel refused the device itself even to root: a container's device rules, a virtual "
               "machine or cloud sandbox that does not pass the disk through, or a locked-down kernel"
               if exc.errno == errno.EPERM else "this user may not read the device; root or the disk group can")
        mounted = _mounted_or_none(path)
        scratch = posixpath.join(mounted or "/a/filesystem/on/that/disk", "advisor.scratch")
        return DeviceError(
            f"cannot open {path} with O_DIRECT: {exc.strerror} ({why})",
            hint=(f"bench a scratch file on that disk instead: advisor bench --scratch-file {scratch} --size 8G; "
                  "on a virtual disk that measures the host's storage, see 'Virtual and cloud disks' in docs/bench.md"),
        )
    return DeviceError(f"cannot open {path} with O_DIRECT: {exc.strerror}")


def _mounted_or_none(device: str) -> str | None:
    try:
        return mounted_at(device)
    except OSError:
        return None


def _is_block_device(path: str) -> bool:
    try:
        return stat.S_ISBLK(os.stat(path).st_mode)
    except OSError:
        return False


MEMORY_FILESYSTEMS = ("tmpfs", "ramfs", "devtmpfs", "hugetlbfs", "shm")


def _refuse_memory_filesystem(path: str) -> None:
    """A file in RAM has no disk under it: older kernels refuse O_DIRECT there (EINVAL), newer
    ones accept it and serve reads from memory; either way there is nothing to measure."""
    point, fstype, _ = mount_of(path)
    if fstype in MEMORY_FILESYSTEMS:
        raise DeviceError(
            f"{path} is on {fstype} ({point}), which keeps files in memory: O_DIRECT reads there "
            "(refused with EINVAL on older kernels) would measure RAM, not a disk",
            hint="put the scratch file on a disk-backed filesystem such as ext4 or xfs, or bench the device",
        )


def _probe_direct(path: str) -> int:
    """Open read-only with O_DIRECT and read one aligned block; return the size in bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    except OSError as exc:
        raise _direct_io_error(path, exc) from None
    try:
        size = os.lseek(fd, 0, os.SEEK_END)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return size


@dataclass(frozen=True, slots=True)
class Unwritten:
    """Bytes of a file the disk would not be asked for: unwritten extents and holes."""

    unwritten_bytes: int
    hole_bytes: int

    @property
    def total(self) -> int:
        """Both kinds together."""
        return self.unwritten_bytes + self.hole_bytes


def unwritten_parts(path: str, size: int) -> Unwritten | None:
    """What of ``[0, size)`` of *path* is unwritten (fallocate) or a hole (sparse), by FIEMAP.

    Reads there are answered with zeros by the filesystem without touching the disk (a
    fallocated 1 GiB file "benches" at 30 GB/s). None when the filesystem has no FIEMAP,
    so nothing can be said either way.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        extents = FiemapReader(sync=True).extents(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    unwritten = covered = 0
    for extent in extents:
        inside = max(0, min(extent.logical + extent.length, size) - max(extent.logical, 0))
        covered += inside
        if extent.flags & EXTENT_UNWRITTEN:
            unwritten += inside
    return Unwritten(unwritten, max(0, size - covered))


def _refuse_unwritten(path: str, size: int, fix: str) -> None:
    """Refuse a file with unwritten extents or holes: it would measure the filesystem's zeros."""
    parts = unwritten_parts(path, size)
    if parts is None or parts.total == 0:
        return
    kinds = [f"{parts.unwritten_bytes / MIB:.0f} MiB unwritten (fallocate)" if parts.unwritten_bytes else "",
             f"{parts.hole_bytes / MIB:.0f} MiB of holes (sparse)" if parts.hole_bytes else ""]
    raise BadInput(
        f"{path} has {' and '.join(k for k in kinds if k)} of {size / MIB:.0f} MiB: the filesystem "
        "answers reads there with zeros without reading the disk, so the bench would measure memory",
        hint=fix,
    )


def open_target(path: str, want_write: bool, write_test: str = "commit") -> Target:
    """Resolve an existing device or file to bench read-only; refuse writes on it
    (*write_test* names the test that asked, for the message)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise BadInput(f"cannot bench {path}: {exc.strerror}") from None
    if stat.S_ISBLK(info.st_mode):
        if want_write:
            where = mounted_at(path)
            state = f"mounted at {where}" if where else "a device"
            scratch = posixpath.join(where or "/mnt/fs", "advisor-bench.tmp")
            raise UnsafeTarget(
                f"refusing the {write_test} test on {path} ({state}): it writes, and the bench never writes to devices",
                hint=f"run it on a scratch file: --scratch-file {scratch} --size 2G",
            )
        kind: TargetKind = "device"
    elif stat.S_ISREG(info.st_mode):
        if want_write:
            raise UnsafeTarget(
                f"refusing the {write_test} test on {path}: it writes, and {path} was not named as scratch",
                hint="use --scratch-file PATH --size SIZE for a file the bench creates and removes",
            )
        kind = "file"
        _refuse_memory_filesystem(path)
    else:
        raise BadInput(f"cannot bench {path}: not a block device or a regular file")
    size = _probe_direct(path) // _ALIGN * _ALIGN
    if size < 16 * _ALIGN:
        raise BadInput(f"{path} is too small to bench ({size} bytes usable; at least 16 MiB)")
    if kind == "file":
        _refuse_unwritten(path, size, f"bench a file that was written, or the device; or let the bench write "
                                      f"this one first: --scratch-file {path} --reuse-scratch --fill")
    return Target(path, kind, size)


def create_scratch(
    path: str, size_bytes: int, reuse: bool, progress: Callable[[int, int], None] | None = None,
    fill: bool = False,
) -> Target:
    """Create (or, with *reuse*, take over) a scratch file of real, allocated blocks.

    The file is written, not just fallocated, so that reads reach the disk rather than
    the filesystem's zero-fill shortcut; then it is synced and dropped from the page cache.
    A reused file is extended to *size_bytes*; with *fill* it is rewritten from the start
    (an existing file with unwritten extents or holes is refused without it).
    """
    size_bytes = size_bytes // _ALIGN * _ALIGN
    if size_bytes < 16 * _ALIGN:
        raise BadInput(f"--size must be at least 16M for a scratch file (got {size_bytes} bytes)")
    exists = os.path.lexists(path)
    if exists and not reuse:
        raise UnsafeTarget(
            f"scratch file {path} already exists; refusing to overwrite it",
            hint="choose a new path, or pass --reuse-scratch if that file is yours to overwrite",
        )
    if exists and not stat.S_ISREG(os.lstat(path).st_mode):
        raise UnsafeTarget(f"{path} is not a regular file; a scratch file must be one")
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise BadInput(f"cannot create scratch file {path}: its directory does not exist")
    _refuse_memory_filesystem(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | (0 if exists else os.O_EXCL), 0o600)
    except OSError as exc:
        raise BadInput(f"cannot create scratch file {path}: {exc.strerror}") from None
    try:
        _probe_direct(path)
        if exists and not fill:
            _refuse_unwritten(path, min(os.fstat(fd).st_size, size_bytes),
                              f"add --fill to write all of {path} first, or name a new scratch file")
        _fill(fd, os.fstat(fd).st_size if exists and not fill else 0, size_bytes, progress)
    except BaseException:
        os.close(fd)
        if not exists:
            os.unlink(path)
        raise
    os.close(fd)
    _probe_direct(path)
    return Target(path, "scratch", size_bytes, created=not exists)


def _fill(fd: int, start: int, size: int, progress: Callable[[int, int], None] | None) -> None:
    """Write random data from *start* to *size* (random: no compression or dedupe shortcut)."""
    rng = np.random.default_rng()
    offset = start // _ALIGN * _ALIGN
    try:
        while offset < size:
            length = min(_FILL_CHUNK, size - offset)
            os.pwrite(fd, rng.bytes(length), offset)
            offset += length
            if progress:
                progress(offset, size)
        os.fsync(fd)
    except OSError as exc:
        raise DeviceError(f"cannot write the scratch file: {exc.strerror}") from None
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)


def release(target: Target) -> None:
    """Remove a scratch file this run created; leave everything else alone."""
    if target.created:
        try:
            os.unlink(target.path)
        except FileNotFoundError:
            pass
