"""The reverse extent index and the end-to-end layout of an area's extents."""

from __future__ import annotations

import numpy as np

from advisor.model import Extent, Location
from advisor.trace.extents import ExtentIndex, extent_table, kept_apart, laid_end_to_end


def location(path: str, disk: str, extents: list[tuple[int, int, int]]) -> Location:
    return Location(path=path, disk=disk, partition=None, zone_start=0.0, zone_end=1.0, extents=len(extents),
                    extent_list=tuple(Extent(f, d, n) for f, d, n in extents))


LOCATIONS = [
    location("/db/a", "sda", [(0, 1000, 100), (100, 5000, 50)]),
    location("/db/b", "sda", [(0, 2000, 200)]),
    location("/db/c", "sdb", [(0, 1000, 10)]),  # another disk: not in sda's table
    location("/db/d", "sda", []),  # no extents kept: not in it either
]


def test_a_byte_maps_to_the_extent_holding_it() -> None:
    files, table = extent_table(LOCATIONS, "sda")
    assert files == ("/db/a", "/db/b")
    index = ExtentIndex(table)
    probes = np.array([0, 999, 1000, 1099, 1100, 2000, 2199, 2200, 5049, 5050], dtype=np.int64)
    assert index.files(probes).tolist() == [-1, -1, 0, 0, -1, 1, 1, -1, 0, -1]


def test_an_empty_index_maps_nothing() -> None:
    _, table = extent_table([], "sda")
    assert ExtentIndex(table).lookup(np.array([0, 10], dtype=np.int64)).tolist() == [-1, -1]


def test_an_area_is_laid_out_in_file_order() -> None:
    _, table = extent_table(LOCATIONS, "sda")  # rows by disk byte: a@1000, b@2000, a@5000
    group, placed = laid_end_to_end(table, [[1, 0]])  # one area: file b then file a
    assert group.tolist() == [0, 0, 0]
    assert placed.tolist() == [200, 0, 300]  # a's first extent after b's 200 bytes, its second after that


MIB = 1 << 20
KEPT = [location("/db/a", "sda", [(0, 1 * MIB, 64 << 10), (64 << 10, 9 * MIB, 64 << 10)]),
        location("/db/b", "sda", [(0, 5 * MIB, 128 << 10)])]  # on disk: a@1M, b@5M, a@9M; 256 KiB in all


def test_an_area_kept_apart_keeps_its_gaps_where_its_room_holds_them() -> None:
    _, table = extent_table(KEPT, "sda")
    group, placed = kept_apart(table, [[0, 1]], [16 * MIB])
    assert group.tolist() == [0, 0, 0]
    assert placed.tolist() == [0, 4 * MIB, 8 * MIB]  # disk order and distances as today


def test_an_area_kept_apart_shrinks_its_gaps_alike_to_fit_its_room() -> None:
    _, table = extent_table(KEPT, "sda")
    room = 2 * MIB
    _, placed = kept_apart(table, [[0, 1]], [room])
    ends = placed + table.length
    assert int(ends.max()) <= room and (np.diff(placed) >= table.length[:-1]).all()  # fits, nothing overlaps
    gaps = placed[1:] - (placed[:-1] + table.length[:-1])
    today = np.array([4 * MIB - (64 << 10), 4 * MIB - (128 << 10)])  # a's first extent to b, b to a's second
    factor = (room - (256 << 10)) / (8 * MIB + (64 << 10) - (256 << 10))  # the room left over the span's gaps
    assert (gaps % 4096 == 0).all() and (np.abs(gaps - today * factor) < 2 * 4096).all()  # each scaled alike
    _, packed = kept_apart(table, [[0, 1]], [64 << 10])  # less room than data: no gap left, as laid end to end
    assert packed.tolist() == [0, 64 << 10, 192 << 10]


def test_files_of_no_group_are_not_kept_apart() -> None:
    _, table = extent_table(KEPT, "sda")
    group, placed = kept_apart(table, [[1]], [16 * MIB])
    assert group.tolist() == [-1, 0, -1] and placed.tolist() == [0, 0, 0]
