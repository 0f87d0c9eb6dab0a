"""The order of moves through the disk's own free space (advisor.engine.stage_order), on synthetic tables."""

from __future__ import annotations

import pytest

from advisor.engine.stage_order import order_moves
from advisor.errors import BadInput
from advisor.model import Partition, PlannedPartition

MIB = 1 << 20
DISK = 1000 * MIB


def _old(number: int, start_mib: int, size_mib: int) -> Partition:
    return Partition(f"sdb{number}", "sdb", number, start_mib * MIB, size_mib * MIB, (f"/old{number}",), "ext4")


def _new(number: int, label: str, start_mib: int, size_mib: int, areas: tuple[str, ...]) -> PlannedPartition:
    return PlannedPartition("sdb", number, start_mib / 1000, (start_mib + size_mib) / 1000, size_mib * MIB, areas,
                            label, start_mib * MIB)


def _order(old: list[Partition], planned: list[PlannedPartition], sizes: dict[str, int],
           where: dict[str, int], target_of: dict[str, str]) -> list[tuple[str, tuple[str, ...]]]:
    steps = order_moves(DISK, old, planned, sizes, where, {p.label: f"/new/{p.label}" for p in planned}, target_of)
    return [(s.kind, tuple(p.label for p in s.created) + tuple(f"{m.area}>{m.target}" for m in s.moves)
             + tuple(p.name for p in s.dropped)) for s in steps]


def test_a_planned_partition_in_a_gap_is_made_first_and_the_emptied_partition_dropped() -> None:
    old = [_old(1, 1, 300)]
    planned = [_new(1, "hot", 1, 100, ("a",)), _new(2, "cold", 400, 200, ("b",))]
    steps = _order(old, planned, {"a": 50 * MIB, "b": 50 * MIB}, {"a": 1, "b": 1}, {"a": "hot", "b": "cold"})
    # cold lies in the gap: made and filled; hot overlaps the old partition, which must first hold nothing
    assert steps[0] == ("create", ("cold",))
    assert steps[1] == ("move", ("b>/new/cold",))
    assert ("drop", ("sdb1",)) in steps and steps[-1][0] == "move" and steps[-1][1] == ("a>/new/hot",)
    assert steps.index(("drop", ("sdb1",))) < steps.index(("create", ("hot",)))
    # sdb1 is the only old partition: a waits in the headroom of the cold partition made in the gap
    assert ("hold", ("a>/new/cold",)) in steps


def test_one_planned_partition_over_two_full_ones_is_refused() -> None:
    old = [_old(1, 1, 200), _old(2, 201, 700)]
    planned = [_new(1, "hot", 1, 300, ("a", "b"))]  # overlaps both
    with pytest.raises(BadInput, match=r"needs 0\.1\d GiB free elsewhere on it, the most any other partition has"):
        _order(old, planned, {"a": 50 * MIB, "b": 100 * MIB}, {"a": 1, "b": 2}, {"a": "hot", "b": "hot"})


def test_a_partition_in_the_way_is_held_in_another_ones_free_space() -> None:
    old = [_old(1, 1, 200), _old(2, 201, 700)]
    planned = [_new(1, "hot", 1, 200, ("a",)), _new(2, "cold", 600, 200, ("b",))]
    steps = _order(old, planned, {"a": 50 * MIB, "b": 100 * MIB}, {"a": 1, "b": 2}, {"a": "hot", "b": "cold"})
    assert steps[0] == ("hold", ("a>/old2",))
    assert steps[1] == ("drop", ("sdb1",))
    assert steps[2] == ("create", ("hot",)) and steps[3] == ("move", ("a>/new/hot",))
    # cold overlaps sdb2: b waits in hot's headroom, sdb2 goes, cold is made in its span
    assert steps[4:] == [("hold", ("b>/new/hot",)), ("drop", ("sdb2",)), ("create", ("cold",)),
                         ("move", ("b>/new/cold",))]
    # hot still overlaps sdb2, and no other place has room for a and b: no order fits


def test_no_room_anywhere_is_refused_with_the_space_a_hold_needs() -> None:
    old = [_old(1, 1, 500), _old(2, 501, 490)]
    planned = [_new(1, "hot", 1, 900, ("a", "b"))]
    with pytest.raises(BadInput, match=r"needs 0\.4\d GiB free elsewhere on it, the most any other partition has is"):
        _order(old, planned, {"a": 420 * MIB, "b": 420 * MIB}, {"a": 1, "b": 2}, {"a": "hot", "b": "hot"})
