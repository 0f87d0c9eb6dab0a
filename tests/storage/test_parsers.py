"""mountinfo and diskstats parsing, iostat-style rates, and dm table translation."""

from __future__ import annotations

import mmap
import os
from pathlib import Path

import pytest

from advisor.model import DiskStat
from advisor.storage import devicemap, diskstats, mountinfo

MOUNTINFO = "\n".join([
    r"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
    r"30 22 8:2 / /srv/pg\040data rw,noatime shared:2 master:7 - ext4 /dev/sda2 rw,data=ordered",
    r"31 22 8:3 / /srv/pg rw - xfs /dev/sda3 rw",
    r"32 22 8:2 /tblspc /mnt/bind\011tab rw - ext4 /dev/sda2 rw",
    r"33 22 0:45 / /srv/pg\040data/tmp rw - tmpfs tmp\134fs rw,size=1024k",
    r"34 22 0:50 / /home/u/sshfs rw - fuse.sshfs u@h:/ rw",
])


def test_mountinfo_escapes_optional_fields_and_sources() -> None:
    entries = mountinfo.parse(MOUNTINFO)
    assert [e.mountpoint for e in entries] == ["/", "/srv/pg data", "/srv/pg", "/mnt/bind\ttab", "/srv/pg data/tmp",
                                               "/home/u/sshfs"]
    assert entries[1].options == "rw,noatime" and entries[1].super_options == "rw,data=ordered"
    assert entries[3].root == "/tblspc" and (entries[3].major, entries[3].minor) == (8, 2)
    assert entries[4].source == "tmp\\fs" and entries[4].fstype == "tmpfs"
    assert entries[5].base_fstype == "fuse"


def test_mount_is_matched_by_device_then_whole_components() -> None:
    entries = mountinfo.parse(MOUNTINFO)
    sda2, sda3 = os.makedev(8, 2), os.makedev(8, 3)
    # /srv/pg is a string prefix of "/srv/pg data/..." but a different device: never chosen
    assert mountinfo.mount_for("/srv/pg data/base/1", sda2, entries).mountpoint == "/srv/pg data"  # type: ignore[union-attr]
    assert mountinfo.mount_for("/srv/pg/x", sda3, entries).mountpoint == "/srv/pg"  # type: ignore[union-attr]
    # the same device mounted twice (bind): the mount that contains the path wins
    assert mountinfo.mount_for("/mnt/bind\ttab/16385", sda2, entries).mountpoint == "/mnt/bind\ttab"  # type: ignore[union-attr]
    assert mountinfo.mount_for("/x", os.makedev(9, 9), entries) is None
    # an anonymous device no line carries (a btrfs subvolume): the enclosing anonymous mount
    btrfs = mountinfo.parse("1 0 8:1 / / rw - ext4 /dev/sda1 rw\n2 1 0:42 / /pool rw - btrfs /dev/sdb rw")
    assert mountinfo.mount_for("/pool/sub/f", os.makedev(0, 43), btrfs).fstype == "btrfs"  # type: ignore[union-attr]
    assert mountinfo.mount_for("/other/f", os.makedev(0, 43), btrfs) is None


def test_mountinfo_rejects_garbage_and_reads_this_machine() -> None:
    with pytest.raises(ValueError):
        mountinfo.parse_line("not a mountinfo line")
    live = mountinfo.read_mounts()
    root = [m for m in live if m.mountpoint == "/"]
    assert root and root[-1].dev == os.stat("/").st_dev


def test_diskstats_with_and_without_flush_fields() -> None:
    text = "\n".join([
        "   8       0 sda 100 5 800 50 10 2 80 30 0 40 80",  # pre-4.18: 11 counters
        "   8       1 sda1 60 1 480 20 4 0 32 10 0 20 30 0 0 0 0",  # 4.18+: discards
        "   8       2 sda2 40 4 320 30 6 2 48 20 0 25 50 0 0 0 0 3 7",  # 5.5+: flushes
    ])
    rows = diskstats.parse(text, partitions={"sda1", "sda2"})
    assert [r.name for r in rows] == ["sda", "sda1", "sda2"]
    assert rows[0].flushes is None and rows[1].flushes is None and (rows[2].flushes, rows[2].flush_time_ms) == (3, 7)
    assert (rows[0].is_partition, rows[1].is_partition) == (False, True)
    assert (rows[2].reads, rows[2].read_sectors, rows[2].read_time_ms) == (40, 320, 30)
    assert (rows[2].writes, rows[2].write_sectors, rows[2].write_time_ms, rows[2].io_time_ms) == (6, 48, 20, 25)


def test_rates_skip_vanished_and_reset_devices() -> None:
    a = [DiskStat("sda", 100, 800, 50, 10, 80, 30, 40), DiskStat("loop9", 500, 10, 10, 10, 10, 10, 10),
         DiskStat("gone", 1, 1, 1, 1, 1, 1, 1)]
    b = [DiskStat("sda", 100, 800, 50, 30, 2128, 230, 1040, is_partition=True),
         DiskStat("loop9", 3, 1, 1, 1, 1, 1, 1), DiskStat("new", 1, 1, 1, 1, 1, 1, 1)]
    rates = diskstats.diskstats_rates(a, b, 4.0)
    assert [r.name for r in rates] == ["sda"]
    sda = rates[0]
    assert (sda.r_s, sda.w_s, sda.r_await_ms, sda.w_await_ms) == (0.0, 5.0, None, 10.0)
    assert sda.write_mb_s == pytest.approx(2048 * 512 / (1 << 20) / 4)  # MB = MiB, as iostat
    assert sda.util == 0.25 and sda.is_partition
    with pytest.raises(ValueError):
        diskstats.diskstats_rates(a, b, 0)


def test_sample_rates_reads_waits_and_reads_again(tmp_path: Path) -> None:
    """The sampling loop `advisor where --interval` uses: what changed in the file while it
    waited becomes the rates of the named devices only (a device whose counters went back is dropped)."""
    proc = tmp_path / "diskstats"
    proc.write_text("   8 0 sdq 100 0 800 50 10 0 80 30 0 40 80\n   8 16 sdr 7 0 8 1 1 0 8 1 0 1 1\n"
                    "   8 32 sds 900 0 8 1 1 0 8 1 0 1 1\n")
    waited = []

    def io_while_waiting(seconds: float) -> None:
        waited.append(seconds)
        proc.write_text("   8 0 sdq 300 0 2400 250 50 0 400 70 0 140 180\n   8 16 sdr 9 0 9 2 2 0 9 2 0 2 2\n"
                        "   8 32 sds 3 0 8 1 1 0 8 1 0 1 1\n")

    rates = diskstats.sample_rates(["sdq", "sds"], 0.5, proc, io_while_waiting)
    assert waited == [0.5]
    assert [r.name for r in rates] == ["sdq"]  # sdr not asked for; sds went backwards
    sdq = rates[0]
    assert sdq.r_s / sdq.w_s == pytest.approx(200 / 40)
    assert sdq.read_mb_s * (1 << 20) / sdq.r_s == pytest.approx(1600 * 512 / 200)  # 4 KiB per read
    assert (sdq.r_await_ms, sdq.w_await_ms) == (1.0, 1.0)


def test_sample_rates_on_this_machine() -> None:
    names = {row.name for row in diskstats.sample()[0]}
    rates = diskstats.sample_rates(names, 0.05)
    assert {r.name for r in rates} <= names and rates
    assert all(0.0 <= r.util <= 1.0 and r.r_s >= 0 and r.w_s >= 0 for r in rates)


@pytest.mark.root
def test_diskstats_sees_direct_writes_on_one_partition(three_zone_disk) -> None:  # type: ignore[no-untyped-def]
    part = three_zone_disk.partition("middle")
    name = Path(part.device).name
    before, t0 = diskstats.sample([name, three_zone_disk.name])
    fd = os.open(part.mountpoint / "direct.dat", os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600)
    aligned = mmap.mmap(-1, 4096 * 16)  # page-aligned, as O_DIRECT requires
    aligned.write(b"d" * len(aligned))
    try:
        for _ in range(32):
            os.write(fd, aligned)
        os.fsync(fd)
    finally:
        os.close(fd)
    after, t1 = diskstats.sample([name, three_zone_disk.name])
    rates = {r.name: r for r in diskstats.diskstats_rates(before, after, t1 - t0)}
    assert rates[name].is_partition and not rates[three_zone_disk.name].is_partition
    written = (rates[name].write_mb_s * (1 << 20)) * (t1 - t0)
    assert written >= 32 * len(aligned)  # at least our bytes (plus journal)
    assert rates[three_zone_disk.name].w_s >= rates[name].w_s
    (part.mountpoint / "direct.dat").unlink()


def test_dm_linear_table_translation() -> None:
    segments = devicemap.parse_table("0 1000 linear 8:16 2048\n1000 1000 linear 8:17 0\n")
    assert devicemap.unsupported_target(segments) is None
    pieces = devicemap.translate(segments, 999 * 512, 2 * 512)
    assert pieces == [("8:16", (2048 + 999) * 512, 512), ("8:17", 0, 512)]
    striped = devicemap.parse_table("0 2000 striped 2 128 8:16 0 8:32 0")
    assert devicemap.unsupported_target(striped) == "striped"
    with pytest.raises(ValueError):
        devicemap.translate(striped, 0, 512)


def test_resolved_paths_agree_with_realpath(tmp_path: Path) -> None:
    from advisor.storage.layout import resolved_paths

    real = tmp_path / "real"
    real.mkdir()
    (real / "a").write_text("a")
    (real / "b").symlink_to(real / "a")  # a file that is itself a link
    (tmp_path / "linkdir").symlink_to(real)  # a directory reached through a link (pg_tblspc/<oid>)
    (real / "sub").mkdir()
    (real / "sub" / "c").write_text("c")
    paths = [str(p) for p in (real / "a", real / "b", tmp_path / "linkdir" / "a", tmp_path / "linkdir" / "b",
                              tmp_path / "linkdir" / "sub" / "c", real / "missing", tmp_path / "nodir" / "x")]
    expected = {p: os.path.realpath(p) for p in paths if os.path.realpath(p) != p}
    assert resolved_paths(paths) == expected
    assert set(expected) == {paths[1], paths[2], paths[3], paths[4]}
