"""Where a new ext4 file system puts the files a plan copies into it, for the planned replay.

The plan's scripts make each planned partition a new file system (``mkfs.ext4`` with its
defaults: 4 KiB blocks, block groups of 32,768 blocks, that is 128 MiB, and ``flex_bg`` of
16 groups) and copy the areas in. ext4 does not start a regular file's data at the start of
such a file system: where a flex group holds at least four block groups, it keeps the first
for directories and metadata and starts regular files at the second
(``ext4_inode_to_goal_block`` in the kernel's ``fs/ext4/ialloc.c``; with delayed allocation no
per-process colour is added). Past the end of the file system the allocator wraps to the
first group's free blocks. A partition of one block group (128 MiB or less) has no second
group, and its data starts after its metadata (measured 2.3, 4.5 and 4.7 MiB in for 32, 67 and
70 MiB; the planned replay lays it from the zone's start, see below). A partition of two or
three groups does not get that rule either: measured, its files start in the first group past
its metadata (9-10 MiB in) and go on into the second past its backup superblock and descriptors
(from 136 MiB in). On runs 29-36 of the accuracy suite every planned partition of 163-214 MiB
(two groups: the tables and indexes of tpcb, the mixed workload and the three databases'
catalogue) began there, and the one of four groups (483 MiB) at the second group (128.3 MiB in).

Measured on every layout the accuracy suite applied in runs 29 and 30 (new partitions of
32 MiB to 1.3 GiB, docs/accuracy.md, "Where ext4 puts a moved area"): in each WAL partition
(1.3 GiB, eleven groups) the data of the first file began 136.0 MiB past the partition's start
(the second group, past its backup superblock and reserved descriptor blocks), and the data
that did not fit after it lay from 8.9-10.0 MiB past the start (the first group, past its
metadata and the journal). Laid end to end from the partition's start,
as the plan draws its zones, a WAL partition sized for ``max_wal_size`` put the WAL 136 MiB
nearer the data than the disk had it, and every workload's replayed gain was too high
(tpcb-qd1 on run 30: +39.4 % replayed, +37.1 % with the data where ext4 puts it, +32.3 %
measured; over runs 29-31 the mean overall error fell from +3.7 to +1.9 points).

So the planned replay lays the moved areas as the plan orders them and then turns each
partition of :data:`FLEX_GROUPS` groups or more as ext4 does: the laid-out content starts
:data:`SECOND_GROUP` past the partition's start and what runs past its end continues
:data:`FIRST_GROUP_DATA` past the start. In a partition of two or three groups it starts
:data:`FIRST_GROUP_DATA` in and steps over the second group's metadata. (Until run 36 every
partition of more than one group was turned: the catalogue's hot table, which lay from 9 MiB
in, was replayed from 136 MiB in and wrapped.) A one-group partition's data and the first zone of
a disk, drawn from its first byte where the partition starts 1 MiB in, are laid from the zone's
start: placing them where ext4 does (past the inode table, and inside the partition) was tried
and moved the replay further from the replay of the same trace where the files really went, as
small shifts of a sequential area do (docs/accuracy.md, after run 36). Another file system, or
an ext4 made otherwise, places data otherwise; the plan's scripts make this one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from advisor.model import PlannedPartition
from advisor.units import MIB

BLOCK_GROUP = 128 * MIB
"""An ext4 block group with 4 KiB blocks (32,768 blocks: one block bitmap of one block)."""

SECOND_GROUP = 136 * MIB
"""Where regular files' data starts in a new ext4 of :data:`FLEX_GROUPS` block groups or more: the second group,
past its backup superblock and reserved descriptor blocks (136.0 MiB in every WAL partition measured, of eleven
groups; 128.3-128.5 MiB in those of four to six)."""

FIRST_GROUP_DATA = 9 * MIB
"""Where data that runs past the file system's end continues, and where a partition of two or three groups
starts its data: the first group, past its metadata (8.9-10.0 MiB measured in partitions of two groups)."""

FLEX_GROUPS = 4
"""From this many block groups on, a new ext4 starts regular files at the second group (the kernel's rule for a
flex group of four groups or more); below it, in the first (measured: module docstring)."""


def from_second_group(size_bytes: int) -> bool:
    """Whether a new ext4 of *size_bytes* has :data:`FLEX_GROUPS` block groups or more, and so starts regular
    files at the second group.

    >>> from_second_group(3 * BLOCK_GROUP), from_second_group(3 * BLOCK_GROUP + 1)
    (False, True)
    """
    return size_bytes > (FLEX_GROUPS - 1) * BLOCK_GROUP


def as_ext4_places(planned: np.ndarray, moved: np.ndarray, partitions: Sequence[PlannedPartition],
                   disk_bytes: int) -> np.ndarray:
    """*planned* bytes (each moved request laid out from its zone's start) where ext4 puts them: in each
    planned partition of more than one block group, turned to start :data:`SECOND_GROUP` past its start
    and wrapped past its end (module docstring); requests not *moved*, or outside every planned partition,
    stay.

    >>> part = PlannedPartition("sda", 1, 0.0, 0.5, 400 * MIB, ("wal",), "wal1", 0)
    >>> at = np.array([0, 100 * MIB, 300 * MIB, 5 * MIB])
    >>> (as_ext4_places(at, np.array([True, True, True, False]), [part], 800 * MIB) // MIB).tolist()
    [136, 236, 45, 5]
    """
    placed = planned.copy()
    for part in partitions:
        start = int(part.start_bytes) or int(part.start_fraction * disk_bytes)
        size = int(part.size_bytes) or int((part.end_fraction - part.start_fraction) * disk_bytes)
        if size <= BLOCK_GROUP:
            continue
        inside = moved & (planned >= start) & (planned < start + size)
        if from_second_group(size):
            turned = planned - start + SECOND_GROUP
        else:  # two or three groups: from the first group's data, over the second group's metadata
            turned = planned - start + FIRST_GROUP_DATA
            turned = np.where(turned >= BLOCK_GROUP, turned + SECOND_GROUP - BLOCK_GROUP, turned)
        wrapped = np.where(turned >= size, turned - size + FIRST_GROUP_DATA, turned)
        placed = np.where(inside, start + wrapped, placed)
    return placed


def placement_note(disk: str, partitions: Sequence[PlannedPartition]) -> tuple[str, ...]:
    """The note that says where the planned replay put the moved areas of *disk*'s new partitions of
    :data:`FLEX_GROUPS` block groups or more (none when there are none): a DBA reading the planned zones would
    take them for where the data goes.

    >>> placement_note("sda", [PlannedPartition("sda", 1, 0.0, 0.5, 400 * MIB, ("wal",), "wal1", 0)])[0][:61]
    'trace of sda: in the new partition wal1 (400 MiB) ext4 starts'
    """
    large = [p for p in partitions if p.disk == disk and from_second_group(p.size_bytes)]
    if not large:
        return ()
    named = ", ".join(f"{p.label or p.number} ({p.size_bytes / MIB:,.0f} MiB)" for p in large)
    plural = "s" if len(large) > 1 else ""
    return (f"trace of {disk}: in the new partition{plural} {named} ext4 starts the files "
            f"{SECOND_GROUP // MIB} MiB in, past its first block group, and wraps past the end; the planned replay "
            "places the moved areas there, not at the start of the zones the plan draws",)
