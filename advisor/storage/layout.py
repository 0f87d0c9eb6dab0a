"""Assemble a :class:`HostLayout`: locations of the given paths, their disks, every partition
of those disks (so a map shows the whole disk, not only the partitions we touched) and a
diskstats sample restricted to those disks and partitions.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable

from advisor.model import HostLayout, Location, Partition
from advisor.storage import diskstats
from advisor.storage.locate import Locator


def _all_partitions(locator: Locator) -> dict[str, Partition]:
    partitions = dict(locator.partitions)
    for disk, device in locator.devices.items():
        if device.transport == "dm":
            continue
        for node in locator.sysfs.partitions_of(disk):
            if node.name in partitions:
                continue
            dev = os.makedev(node.major, node.minor)
            mounts = [m for m in locator.mounts if m.dev == dev]
            fstype = mounts[0].base_fstype if mounts else None
            partitions[node.name] = locator.sysfs.partition(node, tuple(sorted(m.mountpoint for m in mounts)), fstype)
    return partitions


def resolved_paths(paths: list[str]) -> dict[str, str]:
    """Each path that is not its own real path (a symlink on the way) → the real path.

    os.path.realpath lstats every component of every path: eight system calls per relation
    file, seconds for a 100,000-relation cluster. Files of one directory share its real path,
    so each directory is resolved once and listed once to learn which entries are symlinks.
    """
    directories: dict[str, tuple[str, set[str]]] = {}
    mapped = {}
    for path in paths:
        directory, _, name = path.rpartition("/")
        if not directory or not name:
            resolved = os.path.realpath(path)
        else:
            known = directories.get(directory)
            if known is None:
                known = (os.path.realpath(directory), _symlinks_in(directory))
                directories[directory] = known
            real_directory, links = known
            resolved = os.path.realpath(path) if name in links else f"{real_directory}/{name}"
        if resolved != path:
            mapped[path] = resolved
    return mapped


def _symlinks_in(directory: str) -> set[str]:
    try:
        with os.scandir(directory) as entries:
            return {entry.name for entry in entries if entry.is_symlink()}
    except OSError:
        return set()


def build_layout(paths: Iterable[str], *, locator: Locator | None = None, keep_extents: bool = False,
                 locations: list[Location] | None = None) -> HostLayout:
    """Locate *paths* (or take ready *locations*) and describe the disks they live on."""
    locator = locator or Locator(keep_extents=keep_extents)
    path_list = list(paths)
    found = locations if locations is not None else locator.locate_many(path_list)
    mapped = resolved_paths(path_list)
    partitions = _all_partitions(locator)
    names = set(locator.devices) | set(partitions)
    rows, at = diskstats.sample(names)
    warnings = []
    for device in locator.devices.values():
        if device.backing_file:
            warnings.append(f"{device.name} is a loop device backed by {device.backing_file}: positions are "
                            "fractions of the loop device, not of the disk holding that file")
        if not device.placement_known and device.reason:
            warnings.append(f"{device.name}: {device.reason}")
    return HostLayout(
        hostname=socket.gethostname(),
        devices=tuple(sorted(locator.devices.values(), key=lambda d: d.name)),
        partitions=tuple(sorted(partitions.values(), key=lambda p: (p.disk, p.start_bytes))),
        locations=tuple(found),
        diskstats=tuple(rows),
        diskstats_at_monotonic_s=at,
        warnings=tuple(warnings),
        mapped_paths=mapped,
    )
