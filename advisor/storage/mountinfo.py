"""Parse ``/proc/<pid>/mountinfo`` and find the mount that holds a file.

A file belongs to the mount whose ``major:minor`` equals the file's ``st_dev``; string
prefixes of mount points lie (``/data`` is not the mount of ``/data2/x``, and bind mounts
put the same device at several places). When several mounts share the device, the one
whose mount point is the longest whole-component prefix of the resolved path wins.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

_OCTAL_ESCAPE = re.compile(r"\\([0-7]{3})")

# File systems whose st_dev is not a block device we can follow, with the reason we give.
NON_BLOCK_FSTYPES: dict[str, str] = {
    "tmpfs": "tmpfs lives in memory, not on a disk",
    "ramfs": "ramfs lives in memory, not on a disk",
    "devtmpfs": "devtmpfs lives in memory, not on a disk",
    "overlay": "overlay file system: the file may come from any of its layers",
    "nfs": "network file system (NFS): the disk is on another host",
    "nfs4": "network file system (NFS): the disk is on another host",
    "cifs": "network file system (CIFS/SMB): the disk is on another host",
    "smb3": "network file system (SMB): the disk is on another host",
    "zfs": "ZFS pools stripe and copy-on-write across vdevs; FIEMAP does not give disk positions",
    "fuse": "FUSE file system: the kernel does not know where the bytes are",
    "proc": "proc is a virtual file system",
    "sysfs": "sysfs is a virtual file system",
    "squashfs": "compressed image file system",
    "9p": "9p host share: the disk is outside this machine",
    "virtiofs": "virtiofs host share: the disk is outside this machine",
}


def unescape(field: str) -> str:
    r"""Undo the kernel's octal escapes of space, tab, newline and backslash.

    >>> unescape(r"/mnt/my\040disk")
    '/mnt/my disk'
    >>> unescape(r"/a\134b\011c")
    '/a\\b\tc'
    """
    return _OCTAL_ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), field)


@dataclass(frozen=True, slots=True)
class MountEntry:
    """One line of mountinfo (proc_pid_mountinfo(5))."""

    mount_id: int
    parent_id: int
    major: int
    minor: int
    root: str  # path inside the file system that is mounted here (bind mounts)
    mountpoint: str
    options: str
    fstype: str
    source: str
    super_options: str

    @property
    def dev(self) -> int:
        """The ``st_dev`` of files on this mount."""
        return os.makedev(self.major, self.minor)

    @property
    def base_fstype(self) -> str:
        """``fuse.sshfs`` → ``fuse``; plain types unchanged."""
        return self.fstype.split(".", 1)[0]


def parse_line(line: str) -> MountEntry:
    r"""Parse one mountinfo line; optional fields end at the lone ``-`` separator.

    >>> e = parse_line(r"36 35 98:0 /mnt1 /mnt/my\040disk rw,noatime master:1 - ext3 /dev/root rw,errors=continue")
    >>> (e.major, e.minor, e.root, e.mountpoint, e.fstype, e.source)
    (98, 0, '/mnt1', '/mnt/my disk', 'ext3', '/dev/root')
    """
    fields = line.split(" ")
    try:
        separator = fields.index("-", 6)
        major, minor = fields[2].split(":")
        return MountEntry(
            mount_id=int(fields[0]),
            parent_id=int(fields[1]),
            major=int(major),
            minor=int(minor),
            root=unescape(fields[3]),
            mountpoint=unescape(fields[4]),
            options=fields[5],
            fstype=fields[separator + 1],
            source=unescape(fields[separator + 2]),
            super_options=fields[separator + 3] if len(fields) > separator + 3 else "",
        )
    except (ValueError, IndexError) as exc:
        raise ValueError(f"not a mountinfo line: {line!r}") from exc


def parse(text: str) -> list[MountEntry]:
    """Parse the whole file, skipping blank lines."""
    return [parse_line(line) for line in text.splitlines() if line.strip()]


def read_mounts(pid: int | str = "self") -> list[MountEntry]:
    """Mounts as seen by *pid* (the postmaster's, when the database runs in a container)."""
    return parse(Path(f"/proc/{pid}/mountinfo").read_text())


def _is_under(path: str, mountpoint: str) -> bool:
    """Whole-component prefix test: ``/data`` holds ``/data/x`` but not ``/data2/x``."""
    if mountpoint == "/":
        return True
    return path == mountpoint or path.startswith(mountpoint.rstrip("/") + "/")


def mount_for(path: str, st_dev: int, mounts: list[MountEntry]) -> MountEntry | None:
    """The mount that holds *path* (already resolved), matched by device first.

    Without a mount of that device (btrfs subvolumes) the deepest enclosing mount point wins.

    >>> ms = parse("1 0 8:1 / / rw - ext4 /dev/sda1 rw\\n2 1 8:2 / /data rw - ext4 /dev/sda2 rw\\n"
    ...            "3 1 8:3 / /data2 rw - ext4 /dev/sda3 rw\\n4 1 8:2 /sub /bind rw - ext4 /dev/sda2 rw")
    >>> mount_for("/data2/x", os.makedev(8, 3), ms).mountpoint
    '/data2'
    >>> mount_for("/bind/f", os.makedev(8, 2), ms).mountpoint
    '/bind'
    """
    same_device = [m for m in mounts if m.dev == st_dev]
    if not same_device:
        # btrfs subvolumes give files an anonymous st_dev that no mountinfo line carries:
        # fall back to the deepest mount point containing the path, component-wise.
        if os.major(st_dev) != 0:
            return None
        enclosing = [m for m in mounts if _is_under(path, m.mountpoint)]
        deepest = max(enclosing, key=lambda m: len(m.mountpoint)) if enclosing else None
        return deepest if deepest is not None and deepest.major == 0 else None
    containing = [m for m in same_device if _is_under(path, m.mountpoint)]
    if containing:
        return max(containing, key=lambda m: len(m.mountpoint))
    return same_device[-1]
