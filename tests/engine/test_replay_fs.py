"""Where a new ext4 puts a moved area (advisor.engine.replay_fs): from the second block group of a
partition of four or more, wrapping to the first past the end; from the first group's data in a partition
of two or three, over the second group's metadata; a partition of one group as laid out."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.engine.replay_fs import (
    BLOCK_GROUP,
    FIRST_GROUP_DATA,
    FLEX_GROUPS,
    SECOND_GROUP,
    as_ext4_places,
    placement_note,
)
from advisor.engine.replay_layout import area_files_of, planned_offsets
from advisor.model import PlannedPartition
from advisor.trace.codec import SECTOR_BYTES, decode_requests
from advisor.units import MIB
from tests.helpers.model_trace import model_made_requests, quiet_disk, traced
from tests.helpers.model_trace import quiet_disk_report as report


def _partition(start_mib: int, size_mib: int, number: int = 1) -> PlannedPartition:
    return PlannedPartition("sda", number, start_mib / 4096, (start_mib + size_mib) / 4096, size_mib * MIB,
                            ("a",), f"p{number}", start_mib * MIB)


def test_a_partition_of_several_groups_starts_its_data_at_the_second_and_wraps_to_the_first() -> None:
    wal = _partition(1000, 1332)  # the accuracy suite's WAL partition: 11 groups
    laid = np.array([1000, 1001, 1000 + 1332 - 136, 1000 + 1332 - 1], dtype=np.int64) * MIB
    placed = as_ext4_places(laid, np.ones(4, dtype=bool), [wal], 4096 * MIB) // MIB - 1000
    assert placed.tolist() == [136, 137, 9, 144]  # the last 136 MiB laid out wrap past the first group's metadata
    assert SECOND_GROUP > BLOCK_GROUP > FIRST_GROUP_DATA


def test_a_partition_of_one_group_and_requests_that_do_not_move_stay_where_laid() -> None:
    small, big = _partition(0, 70, 1), _partition(70, 400, 2)
    laid = np.array([5, 60, 100, 200], dtype=np.int64) * MIB
    moved = np.array([True, True, False, True])
    placed = as_ext4_places(laid, moved, [small, big], 4096 * MIB) // MIB
    assert placed.tolist() == [5, 60, 100, 70 + 130 + 136]


def test_a_partition_of_two_groups_starts_its_data_in_the_first_and_steps_over_the_seconds_metadata() -> None:
    # the three databases' catalogue partition (189 MiB): measured, its table from 9-10 MiB in, on at 136 MiB
    catalogue = _partition(194, 189)
    laid = np.array([194, 194 + 100, 194 + 125, 194 + 150], dtype=np.int64) * MIB
    placed = as_ext4_places(laid, np.ones(4, dtype=bool), [catalogue], 4096 * MIB) // MIB - 194
    assert placed.tolist() == [9, 109, 142, 167]  # 134 and 159 are past 128: 8 MiB further, past the metadata
    assert placement_note("sda", [catalogue]) == ()  # its data starts near the zone's start: nothing to say
    three = _partition(0, (FLEX_GROUPS - 1) * 128)  # three groups: the same
    assert (as_ext4_places(np.array([0]), np.array([True]), [three], 4096 * MIB) // MIB).tolist() == [9]
    four = _partition(0, (FLEX_GROUPS - 1) * 128 + 1)  # four: the second group's
    assert (as_ext4_places(np.array([0]), np.array([True]), [four], 4096 * MIB) // MIB).tolist() == [136]


def test_the_planned_replay_puts_a_moved_area_where_ext4_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model-made trace's plan: every moved request in a planned partition of several groups lies 136 MiB
    further in than laid end to end from the start of its zone (or past the first group's metadata where that
    ran past the partition's end)."""
    import advisor.engine.replay_layout as layout

    work = quiet_disk()
    judged = report(model_made_requests())
    assert judged.plan is not None
    trace = traced(model_made_requests(), work)
    requests = decode_requests(trace.data, trace.requests, trace.started_s, trace.encoding)
    offsets = requests.sector.astype(np.int64) * SECTOR_BYTES
    files = area_files_of(trace, work.rates)
    placed = planned_offsets(trace, judged.plan, files, offsets)
    monkeypatch.setattr(layout, "as_ext4_places", lambda planned, *_: planned)
    laid = planned_offsets(trace, judged.plan, files, offsets)
    assert placed is not None and laid is not None
    moved = laid != offsets
    assert moved.any()
    checked = 0
    for part in (p for p in judged.plan.partitions if p.disk == trace.disk and p.size_bytes > BLOCK_GROUP):
        start = part.start_bytes or int(part.start_fraction * trace.disk_size_bytes)
        inside = moved & (laid >= start) & (laid < start + part.size_bytes)
        into, was = placed[inside] - start, laid[inside] - start
        if part.size_bytes > (FLEX_GROUPS - 1) * BLOCK_GROUP:
            turned = was + SECOND_GROUP
        else:
            turned = was + FIRST_GROUP_DATA
            turned = np.where(turned >= BLOCK_GROUP, turned + SECOND_GROUP - BLOCK_GROUP, turned)
        assert (into == np.where(turned >= part.size_bytes, turned - part.size_bytes + FIRST_GROUP_DATA,
                                 turned)).all()
        checked += int(inside.sum())
    assert checked > 0


def test_the_report_says_where_the_planned_replay_put_the_moved_areas() -> None:
    judged = report(model_made_requests())
    assert judged.plan is not None
    (check,) = judged.replay
    large = [p.label for p in judged.plan.partitions if p.size_bytes > (FLEX_GROUPS - 1) * BLOCK_GROUP]
    assert large
    (note,) = [n for n in check.notes if "ext4 starts the files 136 MiB in" in n]
    assert all(label in note for label in large)
