"""The emulated disk's plumbing with a model-free constant timing: FUSE, loop, flushes, cleanup."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from advisor.disk.emulator import system as sysx
from advisor.disk.emulator.device import OWNER_XATTR, emulated_disk, prepare_backing
from advisor.disk.emulator.timing import TimingSpec, constant
from advisor.errors import BadInput, DeviceError, UnsafeTarget
from tests.helpers.emulated import emulator_leaks, memory_dir, read_latencies, require_fuse_and_loop

pytestmark = [pytest.mark.root]

MIB = 1 << 20


@pytest.fixture(autouse=True)
def _prerequisites() -> None:
    require_fuse_and_loop()


@pytest.mark.alone
@pytest.mark.flaky(reruns=2, reruns_delay=2)  # real time: a burst of host IO slows one run, not three
@pytest.mark.parametrize(("latency_ms", "scale"), [(5.0, 1.0), (50.0, 10.0)])
def test_constant_latency_is_what_a_reader_sees(tmp_path: Path, latency_ms: float, scale: float) -> None:
    """5 ms per read (virtual) must come out as 5 ms real at scale 1; 50 ms as 5 ms real at scale 10.

    Five real milliseconds each: at 0.5 ms the host's own path (about 0.13 ms, calibrated
    at start but not steady on a shared machine) would be measured, not the scaling.
    """
    with memory_dir(tmp_path) as directory, emulated_disk(constant(latency_ms), 64 * MIB, directory / "disk.img",
                                                         scale=scale) as disk:
        offsets = [(i * 7919 % 4096) * 4096 for i in range(120)]
        latencies = read_latencies(disk.device, offsets)
        stats = disk.stats()
    median_virtual_ms = statistics.median(latencies[20:]) * 1000 * scale
    assert median_virtual_ms == pytest.approx(latency_ms, rel=0.10), (median_virtual_ms, disk.path_overhead_s)
    assert stats["served"]["read"] == len(offsets)
    assert stats["bytes"]["read"] == 4096 * len(offsets)
    assert emulator_leaks() == []


def test_fdatasync_on_ext4_reaches_the_disk_as_a_flush(tmp_path: Path) -> None:
    """An fdatasync on a file of an ext4 on the loop device arrives as FUSE fsync → model flush."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    with emulated_disk(constant(0.2, flush_ms=3.0), 64 * MIB, tmp_path / "disk.img", scale=10.0) as disk:
        subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", disk.device],
                       check=True, capture_output=True)
        subprocess.run(["mount", disk.device, str(mnt)], check=True, capture_output=True)
        try:
            fd = os.open(mnt / "wal", os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.write(fd, b"x" * 8192)
                os.fsync(fd)
                before = disk.stats()
                for _ in range(5):
                    os.pwrite(fd, b"y" * 4096, 0)
                    os.fdatasync(fd)
                after = disk.stats()
            finally:
                os.close(fd)
        finally:
            subprocess.run(["umount", str(mnt)], check=True)
    assert after["fsync"] - before["fsync"] >= 5
    assert after["served"]["flush"] - before["served"]["flush"] >= 5
    assert after["served"]["write"] - before["served"]["write"] >= 5
    assert emulator_leaks() == []


def test_partitions_appear_after_a_gpt_is_written(tmp_path: Path) -> None:
    with emulated_disk(constant(0.1), 64 * MIB, tmp_path / "disk.img", scale=10.0) as disk:
        script = "label: gpt\nstart=2048, size=40960, name=outer\nstart=43008, size=40960, name=inner\n"
        subprocess.run(["sfdisk", "-q", disk.device], input=script, text=True, check=True, capture_output=True)
        assert disk.rescan_partitions() == [disk.partition(1), disk.partition(2)]
        name = os.path.basename(disk.device)
        assert Path(f"/sys/block/{name}/queue/rotational").read_text().strip() == "1"
        sizes = [int(Path(f"/sys/block/{name}/{name}p{k}/size").read_text()) for k in (1, 2)]
        starts = [int(Path(f"/sys/block/{name}/{name}p{k}/start").read_text()) for k in (1, 2)]
        assert os.path.exists(disk.partition(1)) and os.path.exists(disk.partition(2))
    assert sizes == [40960, 40960] and starts == [2048, 43008]
    assert emulator_leaks() == []


def test_nothing_is_left_behind_when_the_body_raises(tmp_path: Path) -> None:
    """Mounted ext4, an open file and an exception: cleanup still removes every trace."""
    threads_before = threading.active_count()
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    seen: dict[str, str] = {}
    with pytest.raises(RuntimeError, match="boom"):
        with emulated_disk(constant(0.1), 64 * MIB, tmp_path / "disk.img", scale=10.0) as disk:
            seen["device"] = disk.device
            seen["mnt"] = str(disk.mountpoint)
            subprocess.run(["mkfs.ext4", "-q", "-F", disk.device], check=True, capture_output=True)
            subprocess.run(["mount", disk.device, str(mnt)], check=True, capture_output=True)
            (mnt / "f").write_text("data")
            assert sysx.is_mounted(disk.mountpoint)
            raise RuntimeError("boom")
    assert emulator_leaks() == []
    assert not sysx.is_mounted(mnt)
    assert not Path(seen["mnt"]).exists()
    assert seen["mnt"] not in subprocess.run(["losetup", "-a"], capture_output=True, text=True, check=True).stdout
    assert seen["mnt"] not in Path("/proc/mounts").read_text()
    name = os.path.basename(seen["device"])
    backing = Path(f"/sys/block/{name}/loop/backing_file")
    assert not backing.exists() or not backing.read_text().startswith(seen["mnt"])
    assert threading.active_count() == threads_before


def test_stale_cleanup_removes_what_a_killed_process_left(tmp_path: Path) -> None:
    """A supervising process killed with SIGKILL leaves loop + mount + server; cleanup_stale clears them."""
    code = (
        "import os, sys, signal\n"
        "from pathlib import Path\n"
        "from advisor.disk.emulator.device import emulated_disk\n"
        "from advisor.disk.emulator.timing import constant\n"
        "with emulated_disk(constant(0.1), 16 << 20, Path(sys.argv[1]), scale=10.0) as d:\n"
        "    print(d.mountpoint, flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "disk.img")], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    mountpoint = Path(proc.stdout.strip())
    assert sysx.is_mounted(mountpoint) and sysx.loops_backed_by(mountpoint / "disk.img")
    cleaned = sysx.cleanup_stale()
    assert mountpoint.parent in cleaned
    assert not sysx.is_mounted(mountpoint)
    assert sysx.loops_backed_by(mountpoint / "disk.img") == []
    assert not mountpoint.parent.exists()


def test_backing_must_be_new_or_ours_unless_reuse(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.img"
    foreign.write_bytes(b"precious")
    with pytest.raises(UnsafeTarget):
        prepare_backing(foreign, 16 * MIB, reuse=False)
    assert foreign.read_bytes() == b"precious"
    assert prepare_backing(foreign, 16 * MIB, reuse=True) is False
    assert foreign.stat().st_size == 16 * MIB

    fresh = tmp_path / "fresh.img"
    assert prepare_backing(fresh, 16 * MIB, reuse=False) is True
    assert fresh.stat().st_size == 16 * MIB and fresh.stat().st_blocks == 0  # sparse
    try:
        tagged = os.getxattr(fresh, OWNER_XATTR) == b"1"
    except OSError:
        tagged = False
    if tagged:  # a second run may use a file the emulator made itself
        assert prepare_backing(fresh, 16 * MIB, reuse=False) is False

    with pytest.raises(BadInput):
        prepare_backing(tmp_path / "missing-dir" / "x.img", 16 * MIB, reuse=False)


def test_a_block_device_is_refused_without_reuse(tmp_path: Path) -> None:
    image = tmp_path / "other.img"
    image.write_bytes(b"\0" * (4 * MIB))
    device = subprocess.run(["losetup", "--find", "--show", str(image)], check=True, capture_output=True,
                            text=True).stdout.strip()
    try:
        with pytest.raises(UnsafeTarget):
            prepare_backing(Path(device), 1 * MIB, reuse=False)
    finally:
        sysx.detach_loop(device)


def test_data_written_is_data_read_back_and_lands_in_the_backing_file(tmp_path: Path) -> None:
    """Writes of many sizes through the loop device reach the backing file byte for byte."""
    import mmap
    import random

    rng = random.Random(4)
    backing = tmp_path / "disk.img"
    writes: list[tuple[int, bytes]] = []
    with emulated_disk(constant(0.05), 64 * MIB, backing, scale=10.0, partscan=False) as disk:
        fd = os.open(disk.device, os.O_RDWR | os.O_DIRECT)
        try:
            for region, size in enumerate((512, 4096, 8192, 65536, 1 << 20, 3 << 20)):
                offset = region * 8 * MIB + rng.randrange(0, (4 * MIB) // 512) * 512  # regions never overlap
                buffer = mmap.mmap(-1, size)
                payload = rng.randbytes(size)
                buffer[:] = payload
                assert os.pwritev(fd, [buffer], offset) == size
                writes.append((offset, payload))
                buffer.close()
            os.fsync(fd)
            for offset, payload in writes:
                buffer = mmap.mmap(-1, len(payload))
                assert os.preadv(fd, [buffer], offset) == len(payload)
                assert buffer[:] == payload
                buffer.close()
        finally:
            os.close(fd)
        stats = disk.stats()
    assert stats["bytes"]["write"] >= sum(len(p) for _, p in writes)
    with open(backing, "rb") as handle:
        for offset, payload in writes:
            handle.seek(offset)
            assert handle.read(len(payload)) == payload
    assert emulator_leaks() == []


def test_one_backing_file_serves_one_emulated_disk_at_a_time(tmp_path: Path) -> None:
    backing = tmp_path / "disk.img"
    with emulated_disk(constant(0.1), 16 * MIB, backing, scale=10.0, partscan=False):
        with pytest.raises(UnsafeTarget, match="in use"):
            with emulated_disk(constant(0.1), 16 * MIB, backing, scale=10.0, partscan=False, reuse=True):
                pass
    with emulated_disk(constant(0.1), 16 * MIB, backing, scale=10.0, partscan=False) as disk:  # free again
        assert disk.backing == backing
    assert emulator_leaks() == []


def test_a_backing_file_made_for_a_disk_that_never_came_up_is_removed(tmp_path: Path) -> None:
    backing = tmp_path / "disk.img"
    with pytest.raises(DeviceError):
        # a timing factory that cannot be imported: the server exits before mounting
        spec = TimingSpec("advisor.disk.no_such_module:factory")
        with emulated_disk(spec, 16 * MIB, backing, scale=10.0, partscan=False):
            pass
    assert not backing.exists()
    assert emulator_leaks() == []


def test_a_block_device_serves_as_backing_with_reuse(tmp_path: Path) -> None:
    """--reuse lets a named block device (here a plain loop device) hold the emulated disk's data."""
    import mmap

    image = tmp_path / "store.img"
    with open(image, "wb") as handle:
        handle.truncate(32 * MIB)
    store = subprocess.run(["losetup", "--find", "--show", str(image)], check=True, capture_output=True,
                           text=True).stdout.strip()
    try:
        with emulated_disk(constant(0.1), 16 * MIB, Path(store), scale=10.0, partscan=False, reuse=True) as disk:
            buffer = mmap.mmap(-1, 4096)
            buffer[:5] = b"hello"
            fd = os.open(disk.device, os.O_RDWR | os.O_DIRECT)
            try:
                os.pwritev(fd, [buffer], 8192)
                os.fsync(fd)
            finally:
                os.close(fd)
    finally:
        sysx.detach_loop(store)
    with open(image, "rb") as handle:
        handle.seek(8192)
        assert handle.read(5) == b"hello"
    assert emulator_leaks() == []


def test_a_forced_unit_access_write_arrives_as_write_plus_flush(tmp_path: Path) -> None:
    """O_DSYNC on the raw device sets FUA; the loop device has none, so the block layer
    sends the write and then a flush, which the emulator must see as an fsync."""
    import mmap

    with emulated_disk(constant(0.1, flush_ms=2.0), 16 * MIB, tmp_path / "disk.img", scale=10.0,
                       partscan=False) as disk:
        buffer = mmap.mmap(-1, 4096)
        before = disk.stats()
        fd = os.open(disk.device, os.O_WRONLY | os.O_DIRECT | os.O_DSYNC)
        try:
            for i in range(4):
                os.pwritev(fd, [buffer], i * 4096)
        finally:
            os.close(fd)
        after = disk.stats()
    assert after["served"]["write"] - before["served"]["write"] == 4
    assert after["fsync"] - before["fsync"] >= 4
    assert after["served"]["flush"] - before["served"]["flush"] >= 4
