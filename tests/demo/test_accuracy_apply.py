"""The accuracy suite's check after an apply (benchmarks/accuracy_apply.py): each area's files inside
the planned partition its placement names, located with FIEMAP on a real loop disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.accuracy_apply import ApplyFailed, check_placed
from tests.helpers.loopdisk import ScratchDisk, is_root, no_leaks, scratch_disk, write_file

pytestmark = [pytest.mark.root, pytest.mark.skipif(not is_root(), reason="loop devices need root")]


def _plan(disk: ScratchDisk, target: str) -> dict[str, Any]:
    """A plan in the report's JSON shape whose partitions are the scratch disk's own; "hot" placed on *target*."""
    parts = [{"disk": disk.name, "number": p.number, "label": f"{p.label}1", "start_bytes": p.start_bytes,
              "size_bytes": p.size_bytes} for p in disk.partitions]
    return {"partitions": parts, "placements": [{"area": "hot", "target": target}]}


def test_files_inside_their_planned_partition_pass_and_outside_fail(tmp_path: Path) -> None:
    with scratch_disk(64 << 20, [("outer", 0.4), ("inner", 0.5)], image_dir=tmp_path) as disk:
        outer, inner = disk.partition("outer"), disk.partition("inner")
        assert outer.mountpoint is not None and inner.mountpoint is not None
        table = outer.mountpoint / "16384"
        write_file(table, 3 << 20)
        empty = inner.mountpoint / "pgsql_tmp"
        empty.mkdir()
        assert check_placed(_plan(disk, "outer1"), {"hot": [table]}) == 1
        with pytest.raises(ApplyFailed, match=r"hot: .*16384 has bytes \d+\+\d+ outside inner1"):
            check_placed(_plan(disk, "inner1"), {"hot": [table]})
        # an empty directory (a temp area's) has no extents: it is judged by the partition it is on
        assert check_placed(_plan(disk, "inner1"), {"hot": [empty]}) == 1
        with pytest.raises(ApplyFailed, match=r"pgsql_tmp is on loop\d+p2, not on loop\d+p1 \(outer1\)"):
            check_placed(_plan(disk, "outer1"), {"hot": [empty]})
        with pytest.raises(ApplyFailed, match="hot's planned partition middle1 is not in the plan"):
            check_placed(_plan(disk, "middle1"), {"hot": [table]})
    assert no_leaks(tmp_path)


def test_a_file_off_the_planned_disk_fails(tmp_path: Path) -> None:
    with scratch_disk(32 << 20, [("outer", 0.9)], image_dir=tmp_path / "img") as disk:
        elsewhere = tmp_path / "elsewhere"
        write_file(elsewhere, 8192)
        with pytest.raises(ApplyFailed, match=r"hot: .*elsewhere is on .*, not on loop\d+"):
            check_placed(_plan(disk, "outer1"), {"hot": [elsewhere]})
