"""File → disk position on a real loop disk with outer/middle/inner ext4 partitions.

The ground truth is the raw device: the bytes found at each reported disk offset must be
the file's own bytes, and each file must fall inside its partition's LBA range.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from advisor.storage.locate import Locator
from tests.helpers.loopdisk import ScratchDisk, read_raw, write_file

pytestmark = [pytest.mark.root]


def test_each_file_lies_inside_its_partition(three_zone_disk: ScratchDisk) -> None:
    disk = three_zone_disk
    paths = {}
    for part in disk.partitions:
        assert part.mountpoint is not None
        paths[part.label] = part.mountpoint / "table.dat"
        write_file(paths[part.label], 3 << 20, seed=part.number)
    locator = Locator(keep_extents=True)
    for part in disk.partitions:
        loc = locator.locate(str(paths[part.label]))
        assert loc.placement_known, loc.reason
        assert loc.disk == disk.name and loc.partition == f"{disk.name}p{part.number}"
        low, high = part.start_bytes / disk.size_bytes, (part.start_bytes + part.size_bytes) / disk.size_bytes
        assert loc.zone_start is not None and loc.zone_end is not None and loc.zone_mean is not None
        assert low <= loc.zone_start <= loc.zone_mean <= loc.zone_end <= high
        assert loc.size_bytes == 3 << 20
        assert sum(e.length_bytes for e in loc.extent_list) == 3 << 20
        assert loc.extents == len(loc.extent_list) >= 1
        # fraction = absolute disk offset / disk size, and the bytes are really there
        first = min(loc.extent_list, key=lambda e: e.disk_offset_bytes)
        assert loc.zone_start == pytest.approx(first.disk_offset_bytes / disk.size_bytes)
        expected = paths[part.label].read_bytes()
        for extent in loc.extent_list:
            raw = read_raw(disk.device, extent.disk_offset_bytes, extent.length_bytes)
            chunk = expected[extent.file_offset_bytes:extent.file_offset_bytes + extent.length_bytes]
            assert raw == chunk
    outer, middle, inner = (locator.locate(str(paths[label])) for label in ("outer", "middle", "inner"))
    assert outer.zone_end is not None and middle.zone_start is not None and middle.zone_end is not None
    assert inner.zone_start is not None
    assert outer.zone_end < middle.zone_start < middle.zone_end < inner.zone_start


def test_partitions_and_device_facts(three_zone_disk: ScratchDisk) -> None:
    disk = three_zone_disk
    locator = Locator()
    for part in disk.partitions:
        assert part.mountpoint is not None
        locator.locate(str(part.mountpoint))
    device = locator.devices[disk.name]
    assert device.transport == "loop" and device.size_bytes == disk.size_bytes
    assert device.backing_file == str(disk.backing) and device.placement_known
    for part in disk.partitions:
        record = locator.partitions[f"{disk.name}p{part.number}"]
        assert (record.start_bytes, record.size_bytes, record.number) == (part.start_bytes, part.size_bytes,
                                                                          part.number)
        assert record.aligned is True and record.fstype == "ext4"
        assert str(part.mountpoint) in record.mountpoints


def test_fragmented_file_has_many_extents_at_real_offsets(three_zone_disk: ScratchDisk) -> None:
    mount = three_zone_disk.partition("middle").mountpoint
    assert mount is not None
    target, filler = mount / "fragmented.dat", mount / "filler.dat"
    chunk = 64 << 10
    expected = bytearray()
    # Alternate appends to two files, syncing each time, so the allocator interleaves them.
    with open(target, "wb") as a, open(filler, "wb") as b:
        for i in range(24):
            piece = bytes([65 + i % 26]) * chunk
            for handle, data in ((a, piece), (b, b"z" * chunk)):
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            expected += piece
    loc = Locator(keep_extents=True).locate(str(target))
    assert loc.extents >= 4, f"expected fragmentation, got {loc.extents} extents"
    for extent in loc.extent_list:
        raw = read_raw(three_zone_disk.device, extent.disk_offset_bytes, extent.length_bytes)
        assert raw == bytes(expected[extent.file_offset_bytes:extent.file_offset_bytes + extent.length_bytes])
    target.unlink()
    filler.unlink()


def test_directory_is_the_union_of_its_files(three_zone_disk: ScratchDisk) -> None:
    mount = three_zone_disk.partition("inner").mountpoint
    assert mount is not None
    wal = mount / "pg_wal"
    wal.mkdir(exist_ok=True)
    for i in range(3):
        write_file(wal / f"00000001000000000000000{i}", 1 << 20, seed=i)
    locator = Locator()
    parts = [locator.locate(str(p)) for p in sorted(wal.iterdir())]
    whole = locator.locate(str(wal))
    assert whole.extents == sum(p.extents for p in parts)
    assert whole.size_bytes == 3 << 20
    assert whole.zone_start == min(p.zone_start for p in parts if p.zone_start is not None)
    assert whole.zone_end == max(p.zone_end for p in parts if p.zone_end is not None)
    # a symlink to the directory (pg_wal outside PGDATA) resolves to the same place
    link = three_zone_disk.partition("outer").mountpoint / "wal-link"  # type: ignore[operator]
    link.unlink(missing_ok=True)
    link.symlink_to(wal)
    via_link = locator.locate(str(link))
    assert (via_link.zone_start, via_link.zone_end, via_link.partition) == (whole.zone_start, whole.zone_end,
                                                                            whole.partition)


def test_empty_directory_gets_its_partition_range(three_zone_disk: ScratchDisk) -> None:
    part = three_zone_disk.partition("outer")
    assert part.mountpoint is not None
    empty = part.mountpoint / "empty-temp"
    empty.mkdir(exist_ok=True)
    loc = Locator().locate(str(empty))
    size = three_zone_disk.size_bytes
    assert loc.extents == 0 and loc.placement_known
    assert loc.zone_start == pytest.approx(part.start_bytes / size)
    assert loc.zone_end == pytest.approx((part.start_bytes + part.size_bytes) / size)


def test_unsynced_file_gets_a_position_only_with_sync(three_zone_disk: ScratchDisk) -> None:
    mount = three_zone_disk.partition("middle").mountpoint
    assert mount is not None
    fresh = mount / "delalloc.dat"
    fresh.write_bytes(b"d" * (256 << 10))  # no fsync: delayed allocation, no block yet
    without = Locator(sync=False).locate(str(fresh))
    with_sync = Locator(sync=True).locate(str(fresh))
    assert with_sync.zone_start is not None and with_sync.placement_known
    # Without the flush ext4 reports a delayed-allocation extent with no usable address.
    assert without.zone_start is None and without.reason is not None and "not allocated" in without.reason
    fresh.unlink()


def test_whole_disk_file_system(storage_root: Path) -> None:
    from tests.helpers.loopdisk import is_root, scratch_disk

    if not is_root():
        pytest.skip("needs root")
    with scratch_disk(64 << 20, None, image_dir=storage_root / "whole") as disk:
        assert disk.partitions[0].mountpoint is not None
        path = disk.partitions[0].mountpoint / "f"
        write_file(path, 1 << 20)
        locator = Locator()
        loc = locator.locate(str(path))
        assert loc.partition == disk.name and loc.disk == disk.name
        assert locator.partitions[disk.name].number == 0
        assert loc.zone_start is not None and 0 < loc.zone_start < 1


def test_tmpfs_and_overlay_are_unknown_with_reason(tmpfs_dir: Path) -> None:
    (tmpfs_dir / "f").write_text("in memory")
    loc = Locator().locate(str(tmpfs_dir / "f"))
    assert not loc.placement_known and loc.reason is not None and "tmpfs" in loc.reason
    assert loc.disk is None and loc.zone_start is None
    for name in ("lower", "upper", "work", "merged"):
        (tmpfs_dir / name).mkdir()
    (tmpfs_dir / "lower" / "base.dat").write_text("lower layer")
    merged = tmpfs_dir / "merged"
    options = f"lowerdir={tmpfs_dir / 'lower'},upperdir={tmpfs_dir / 'upper'},workdir={tmpfs_dir / 'work'}"
    subprocess.run(["mount", "-t", "overlay", "overlay", "-o", options, str(merged)], check=True)
    try:
        loc = Locator().locate(str(merged / "base.dat"))
        assert not loc.placement_known and loc.reason is not None and "overlay" in loc.reason
    finally:
        subprocess.run(["umount", str(merged)], check=False)


def test_xfs_is_located_and_btrfs_is_unknown_with_reason(storage_root: Path) -> None:
    import shutil

    from tests.helpers.loopdisk import is_root, scratch_disk

    if not is_root():
        pytest.skip("needs root")
    missing = [tool for tool in ("mkfs.xfs", "mkfs.btrfs") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (scripts/install-system-deps.sh installs them)")
    with scratch_disk(384 << 20, [("x", 0.95)], fs="xfs", image_dir=storage_root / "xfs") as xfs, \
            scratch_disk(160 << 20, [("b", 0.95)], fs="btrfs", image_dir=storage_root / "btrfs") as btrfs:
        part = xfs.partitions[0]
        assert part.mountpoint is not None and btrfs.partitions[0].mountpoint is not None
        data = write_file(part.mountpoint / "xfs.dat", 2 << 20)
        locator = Locator(keep_extents=True)
        loc = locator.locate(str(part.mountpoint / "xfs.dat"))
        assert loc.placement_known and loc.partition == f"{xfs.name}p1"
        assert locator.partitions[f"{xfs.name}p1"].fstype == "xfs"
        for extent in loc.extent_list:
            assert read_raw(xfs.device, extent.disk_offset_bytes, extent.length_bytes) == \
                data[extent.file_offset_bytes:extent.file_offset_bytes + extent.length_bytes]
        write_file(btrfs.partitions[0].mountpoint / "b.dat", 1 << 20)
        on_btrfs = locator.locate(str(btrfs.partitions[0].mountpoint / "b.dat"))
        assert not on_btrfs.placement_known and on_btrfs.reason is not None and "btrfs" in on_btrfs.reason
        assert on_btrfs.zone_start is None and on_btrfs.size_bytes == 1 << 20


def test_misaligned_partition_is_flagged(storage_root: Path) -> None:
    from advisor.storage.sysfs import Sysfs
    from tests.helpers.loopdisk import is_root, scratch_disk

    if not is_root():
        pytest.skip("needs root")
    with scratch_disk(16 << 20, None, fs=None, image_dir=storage_root / "misaligned") as disk:
        script = "label: gpt\nstart=2048, size=4096\nstart=6151, size=4096\n"  # the second starts off 1 MiB/4 KiB
        subprocess.run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", disk.device], input=script, text=True,
                       check=True, capture_output=True)
        subprocess.run(["partx", "-a", disk.device], check=False, capture_output=True)
        sysfs = Sysfs()
        nodes = sysfs.partitions_of(disk.name)
        assert [n.start_bytes for n in nodes] == [2048 * 512, 6151 * 512]
        assert [sysfs.partition(n).aligned for n in nodes] == [True, False]


def _files_on_every_partition(disk: ScratchDisk, per_partition: int) -> list[str]:
    paths = []
    for part in disk.partitions:
        assert part.mountpoint is not None
        folder = part.mountpoint / "many"
        folder.mkdir(exist_ok=True)
        for n in range(per_partition):
            path = folder / f"f{n}"
            if not path.exists():
                write_file(path, 8192 * (1 + n % 3), seed=n)
            paths.append(str(path))
    paths.append(str(disk.partitions[0].mountpoint / "many" / "missing"))  # a failure travels back too
    return paths


def _state(locator: Locator) -> tuple[object, ...]:
    return (sorted(locator.devices.items()), sorted(locator.partitions.items()), sorted(locator.failed_paths))


@pytest.mark.parametrize("child_fails", [False, True])
def test_two_core_locating_equals_one_core(three_zone_disk: ScratchDisk, monkeypatch: pytest.MonkeyPatch,
                                           child_fails: bool) -> None:
    from advisor.storage import parallel

    paths = _files_on_every_partition(three_zone_disk, 40)
    one = Locator(keep_extents=True)
    expected = [one.locate(p) for p in paths]
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
    if child_fails:
        # The child's pickling fails: its half must then be located here, with the same result.
        monkeypatch.setattr(parallel.pickle, "dumps", lambda *a, **k: 1 / 0)
    two = Locator(keep_extents=True)
    calls_here: list[str] = []
    original = Locator.locate
    monkeypatch.setattr(Locator, "locate", lambda self, path: calls_here.append(path) or original(self, path))
    assert two.locate_many(paths) == expected
    assert _state(two) == _state(one)
    # This process located its half, and the other half too only when the child failed.
    assert len(calls_here) == (len(paths) if child_fails else len(paths) // 2)
    assert expected[-1].reason == "no such file or directory" and expected[0].placement_known
    assert {loc.partition for loc in expected[:-1]} == {f"{three_zone_disk.name}p{p.number}"
                                                          for p in three_zone_disk.partitions}


def test_interrupted_two_core_locating_leaves_no_child(three_zone_disk: ScratchDisk,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from advisor.storage import parallel

    paths = _files_on_every_partition(three_zone_disk, 40)
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
    forked: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(parallel.os, "fork", fork)
    original = Locator.locate
    calls = []

    def locate(self: Locator, path: str) -> object:
        calls.append(path)
        if len(calls) == 5 and forked:  # only in this process: the child never sees `forked` filled
            raise KeyboardInterrupt
        return original(self, path)

    monkeypatch.setattr(Locator, "locate", locate)
    with pytest.raises(KeyboardInterrupt):
        Locator().locate_many(paths)
    assert len(forked) == 1
    assert not Path(f"/proc/{forked[0]}").exists()  # killed and reaped, not a zombie
