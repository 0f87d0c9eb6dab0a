"""Where the planned replay puts each traced request, and whose area each request is.

Under the plan each area's extents are laid end to end from the start of its planned zone
(files in the order given, each file in file order, so a file read in order stays in
order), then each new partition's content is placed where ext4 puts it
(:mod:`advisor.engine.replay_fs`: from its second block group, wrapping to the first);
requests to sectors no database file holds stay where they are, and so does an area whose
files already lie inside its planned zone (:func:`planned_offsets`). How a copied area's
extents spread is not the plan's to choose: the other bound keeps each moved area as spread
as it is today (``spread``), and the replay counts the distance between the two gains in the
gain's uncertainty (:mod:`advisor.engine.replay_noise`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from advisor.engine.areas import area_of_path
from advisor.engine.hot_objects import relation_objects
from advisor.engine.replay_fs import as_ext4_places
from advisor.model import AreaPlacement, BlockTrace, FileRate, Plan
from advisor.trace.codec import SECTOR_BYTES, ExtentTable, decode_extents
from advisor.trace.extents import ExtentIndex, kept_apart, laid_end_to_end


def planned_offsets(trace: BlockTrace, plan: Plan, area_files: dict[str, list[int]],
                    offsets: np.ndarray, spread: bool = False) -> np.ndarray | None:
    """Each request's byte under the plan, or None when the plan does not lay out this disk; *spread*:
    each moved area as spread as the file system has it today (:func:`advisor.trace.extents.kept_apart`,
    within the room up to the next area of its partition or the partition's end) rather than laid end to end.

    An area whose files already lie inside its planned zone does not move: the plan puts it in
    that partition, and where the file system put it inside is not the plan's to choose (on
    the layout a plan produced, ext4 had put the WAL's segments 1.7 % of the disk past the
    partition's start; laying them end to end from the start would have predicted a gain from
    a move the plan does not make, and advised it again)."""
    if plan.tiers is not None or not any(p.disk == trace.disk for p in plan.partitions):
        return None
    on_disk = {a for p in plan.partitions if p.disk == trace.disk for a in p.areas}
    table = decode_extents(trace.extents, len(trace.files))
    placed = [pl for pl in plan.placements if pl.area in on_disk and pl.area in area_files
              and not _inside(table, area_files[pl.area], pl.zone_start, pl.zone_end, trace.disk_size_bytes)]
    rooms = [_room(plan, pl, trace.disk_size_bytes) for pl in placed] if spread else None
    laid = laid_out(table, [area_files[pl.area] for pl in placed],
                    [int(pl.zone_start * trace.disk_size_bytes) for pl in placed], offsets, rooms)
    partitions = [p for p in plan.partitions if p.disk == trace.disk]
    return as_ext4_places(np.where(laid >= 0, laid, offsets), laid >= 0, partitions, trace.disk_size_bytes)


def _room(plan: Plan, placement: AreaPlacement, disk_bytes: int) -> int:
    """Bytes from *placement*'s zone start to the next zone of its partition, or the partition's end."""
    partition = next((p for p in plan.partitions if p.label == placement.target and placement.area in p.areas), None)
    if partition is None:
        return int((placement.zone_end - placement.zone_start) * disk_bytes)
    after = [q.zone_start for q in plan.placements
             if q.target == placement.target and q.zone_start > placement.zone_start]
    return int((min(after, default=partition.end_fraction) - placement.zone_start) * disk_bytes)


def laid_out(table: ExtentTable, groups: Sequence[Sequence[int]], starts: Sequence[int],
             offsets: np.ndarray, rooms: Sequence[int] | None = None) -> np.ndarray:
    """Each request's byte when each group of files (an area) is laid end to end from its start
    byte (rounded down to a sector), or with *rooms* kept as spread as today within them
    (:func:`advisor.trace.extents.kept_apart`); -1 for a request to no file of the groups."""
    group, within = laid_end_to_end(table, groups) if rooms is None else kept_apart(table, groups, rooms)
    first = np.array([start // SECTOR_BYTES * SECTOR_BYTES for start in starts] + [0], dtype=np.int64)
    rows = ExtentIndex(table).lookup(offsets)
    safe = np.maximum(rows, 0)
    moves = (rows >= 0) & (group[safe] >= 0)
    target = first[group[safe]] + within[safe] + offsets - table.disk_byte[safe]
    return np.where(moves, target, -1)


def _inside(table: ExtentTable, files: Sequence[int], zone_start: float, zone_end: float, disk_bytes: int) -> bool:
    """Whether every extent of *files* lies between the two fractions of the disk (and there is one)."""
    mine = np.isin(table.file, np.asarray(files, dtype=np.int64))
    if not mine.any():
        return False
    first, end = table.disk_byte[mine], table.disk_byte[mine] + table.length[mine]
    return bool(first.min() >= zone_start * disk_bytes and end.max() <= zone_end * disk_bytes)


def _file_areas(trace: BlockTrace, rates: Sequence[FileRate]) -> list[str | None]:
    by_path = area_of_path(rates, relation_objects(rates))
    return [by_path.get(path) for path in trace.files]


COPIED_LATER: frozenset[str] = frozenset({"index"})
"""File kinds the plan's scripts copy after the rest of their area: ``ALTER TABLE ALL IN TABLESPACE`` moves each
table with its TOAST, then ``ALTER INDEX ALL IN TABLESPACE`` the indexes (:mod:`advisor.engine.scripts.postgres`)."""


def area_files_of(trace: BlockTrace, rates: Sequence[FileRate]) -> dict[str, list[int]]:
    """Per area, the indices of its files in *trace* (the areas as the engine makes them of *rates*), in the order
    the plan's scripts copy them: its tables before its indexes (:data:`COPIED_LATER`), each in the trace's order.
    A new file system allocates in the order it is written, so the planned replay lays them out in that order: on
    the accuracy suite's three databases ext4 put the catalogue's table from 10 MiB into its partition and its
    index after the table (runs 33-36), where laid in the trace's order the index came first."""
    kinds = {rate.path: rate.kind for rate in rates}
    area_files: dict[str, list[int]] = {}
    for index, area in enumerate(_file_areas(trace, rates)):
        if area is not None:
            area_files.setdefault(area, []).append(index)
    return {area: sorted(files, key=lambda f: kinds.get(trace.files[f]) in COPIED_LATER)
            for area, files in area_files.items()}


def area_of_requests(trace: BlockTrace, rates: Sequence[FileRate],
                      offsets: np.ndarray) -> tuple[list[str | None], dict[str, list[int]]]:
    file_area = _file_areas(trace, rates)
    table = decode_extents(trace.extents, len(trace.files))
    files = ExtentIndex(table).files(offsets)
    return [file_area[f] if f >= 0 else None for f in files.tolist()], area_files_of(trace, rates)
