"""The reverse extent index: which file holds a disk byte, from the extents FIEMAP gave.

The collector reads every database file's extents (:mod:`advisor.storage.fiemap`, as
absolute bytes of the whole disk); sorted by disk byte, one ``searchsorted`` per batch of
requests (a vectorised bisect) finds the extent a request starts in, so mapping a million
requests costs tens of milliseconds, not a dictionary of every block.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from advisor.model import Location
from advisor.trace.codec import ExtentTable, IntArray

BLOCK_BYTES = 4096
"""The file system's block: a kept gap is rounded down to it (:func:`kept_apart`)."""


def extent_table(locations: Iterable[Location], disk: str) -> tuple[tuple[str, ...], ExtentTable]:
    """The files with extents on *disk* (by their location's path) and those extents."""
    files: list[str] = []
    rows: list[tuple[int, int, int, int]] = []
    for location in locations:
        if location.disk != disk or not location.extent_list:
            continue
        index = len(files)
        files.append(location.path)
        rows += [(index, e.file_offset_bytes, e.disk_offset_bytes, e.length_bytes) for e in location.extent_list]
    rows.sort(key=lambda row: row[2])
    columns = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return tuple(files), ExtentTable(columns[:, 0], columns[:, 1], columns[:, 2], columns[:, 3])


@dataclass(frozen=True)
class ExtentIndex:
    """Disk byte -> the row of :attr:`table` (an extent) holding it; -1 where no listed file does."""

    table: ExtentTable

    def lookup(self, disk_bytes: IntArray) -> IntArray:
        """The extent row of each of *disk_bytes*, -1 for a byte no listed file holds."""
        starts = self.table.disk_byte
        if not len(starts):
            return np.full(len(disk_bytes), -1, dtype=np.int64)
        at = np.searchsorted(starts, disk_bytes, side="right") - 1
        safe = np.maximum(at, 0)
        inside = (at >= 0) & (disk_bytes < starts[safe] + self.table.length[safe])
        return np.where(inside, at, -1).astype(np.int64)

    def files(self, disk_bytes: IntArray) -> IntArray:
        """The file index holding each of *disk_bytes*, -1 for none."""
        rows = self.lookup(disk_bytes)
        return np.where(rows >= 0, self.table.file[np.maximum(rows, 0)], -1).astype(np.int64)


def laid_end_to_end(table: ExtentTable, groups: Sequence[Sequence[int]]) -> tuple[IntArray, IntArray]:
    """Where each extent falls when each group of files (an area) is laid end to end: files
    in the order given, each file's extents in file order (a directory's files, whose
    offsets all start at 0, then by disk byte). Returns (group of each row or -1, the row's
    byte offset inside its group): moving a whole area keeps a file read in order in order.
    """
    group = np.full(len(table.file), -1, dtype=np.int64)
    placed = np.zeros(len(table.file), dtype=np.int64)
    for number, files in enumerate(groups):
        at = 0
        for file in files:
            mine = np.flatnonzero(table.file == file)
            order = mine[np.lexsort((table.disk_byte[mine], table.file_offset[mine]))]
            lengths = table.length[order]
            placed[order] = at + np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
            group[order] = number
            at += int(lengths.sum())
    return group, placed


def kept_apart(table: ExtentTable, groups: Sequence[Sequence[int]], rooms: Sequence[int]) -> tuple[IntArray, IntArray]:
    """Where each extent falls when each group of files (an area) keeps the arrangement the file system
    gave it today: its extents in disk order, the gaps between them kept, and scaled down alike where
    the group would span more than its room (bytes) from the start of its zone; the gaps are rounded
    down to 4 KiB blocks. Returns what :func:`laid_end_to_end` returns.

    The other bound of where a moved area's extents end up: a copy writes each file whole, but
    ext4 left the files a plan had moved in 6 to 10 extents with gaps of 2 to 8 MiB
    (docs/accuracy.md), where :func:`laid_end_to_end` closes every gap.
    """
    group = np.full(len(table.file), -1, dtype=np.int64)
    placed = np.zeros(len(table.file), dtype=np.int64)
    for number, (files, room) in enumerate(zip(groups, rooms, strict=True)):
        mine = np.flatnonzero(np.isin(table.file, np.asarray(files, dtype=np.int64)))  # the table is in disk order
        if not len(mine):
            continue
        lengths = table.length[mine]
        packed = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
        spread = (table.disk_byte[mine] - table.disk_byte[mine[0]]).astype(np.int64)
        size, span = int(lengths.sum()), int(spread[-1] + lengths[-1])
        if span > room:
            factor = max(room - size, 0) / (span - size)
            spread = packed + ((spread - packed) * factor).astype(np.int64) // BLOCK_BYTES * BLOCK_BYTES
        group[mine], placed[mine] = number, spread
    return group, placed


FILE_SPAN_BITS = 44
"""A file's bytes in :func:`file_positions` (16 TiB: more than any one database file)."""
UNFILED = 1 << 62
"""Added to the disk byte of a request in no listed file, so it follows no file's bytes."""


def file_positions(offsets: IntArray, table: ExtentTable) -> IntArray:
    """Each disk byte of *offsets* as its file's byte (file index << :data:`FILE_SPAN_BITS`, plus the byte in
    the file), or its disk byte plus :data:`UNFILED` where no listed file holds it: the position a reader
    that follows a file across its extents follows (a table ext4 laid out in pieces is read in file order,
    not disk order: the mixed workload's scanned table lay in 13 extents, over two regions of the disk).

    >>> table = ExtentTable(file=np.array([0, 0]), file_offset=np.array([4096, 0]),
    ...                     disk_byte=np.array([8192, 65536]), length=np.array([4096, 4096]))
    >>> file_positions(np.array([65536, 8192, 0]), table).tolist() == [0, 4096, UNFILED]
    True
    """
    rows = ExtentIndex(table).lookup(offsets)
    safe = np.maximum(rows, 0)
    filed = (table.file[safe].astype(np.int64) << FILE_SPAN_BITS) + offsets - table.disk_byte[safe] \
        + table.file_offset[safe]
    positions: IntArray = np.where(rows >= 0, filed, offsets + UNFILED).astype(np.int64)
    return positions
