"""Real scratch disks for tests, benchmarks and the demo: a loop device with GPT partitions.

``scratch_disk`` builds a sparse image (or takes a given backing file or device), attaches
it with ``losetup --find --show --partscan`` (never a fixed loop number, so concurrent test
runs do not collide), writes a GPT with sfdisk, waits for the partition nodes (this machine
has no udev: it polls, then falls back to ``partx -a`` and finally ``mknod`` from sysfs),
makes a file system on each partition and mounts it under the image directory. On exit it
unmounts, detaches and deletes everything it created, even when the body raised.

``no_leaks`` is the check tests assert after cleanup: no loop device still points at an
image under the directory and nothing is mounted below it.

``write_file`` and ``read_raw`` are the ground truth of placement tests: bytes a test can
recognise, fsynced so they have a physical address, read back from the device past the file
system. ``is_root`` says whether this machine can make scratch disks at all.

Stable API (used by the storage, bench, emulator and demo tests)::

    with scratch_disk(256 << 20, [("outer", 0.3), ("middle", 0.3), ("inner", 0.3)],
                      image_dir=tmp_path) as disk:
        disk.device                      # "/dev/loop3"
        disk.partitions[0].mountpoint    # tmp_path / "mnt-outer"
    assert no_leaks(tmp_path)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from advisor.storage.nodes import remove_made_nodes, wait_partition_nodes

SECTOR = 512
ALIGN_BYTES = 1 << 20  # partitions start and end on 1 MiB boundaries, like sfdisk's default
GPT_TAIL_BYTES = 34 * SECTOR  # backup GPT header + entries at the end of the disk


@dataclass(frozen=True)
class ScratchPartition:
    """One partition of a scratch disk (``number`` 0 = file system on the whole device)."""

    label: str
    number: int
    device: str  # "/dev/loop3p1"
    start_bytes: int  # offset from the start of the whole loop device
    size_bytes: int
    mountpoint: Path | None


@dataclass(frozen=True)
class ScratchDisk:
    """An attached loop device and what was built on it."""

    device: str  # "/dev/loop3"
    name: str  # "loop3"
    backing: Path  # image file (ours) or the backing file/device given by the caller
    size_bytes: int
    partitions: tuple[ScratchPartition, ...]
    image_dir: Path

    def partition(self, label: str) -> ScratchPartition:
        """The partition with this label (KeyError when there is none)."""
        for part in self.partitions:
            if part.label == label:
                return part
        raise KeyError(label)


def _run(args: Sequence[str], stdin: str | None = None) -> str:
    """Run a tool, raising with its stderr so a failing fixture says why."""
    proc = subprocess.run(list(args), input=stdin, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


def _plan_partitions(size_bytes: int, partitions: Sequence[tuple[str, float]]) -> list[tuple[str, int, int]]:
    """(label, start, size) in bytes for each (label, fraction of disk), packed from 1 MiB.

    Sizes are rounded down to 1 MiB; the last partition is clamped so the backup GPT fits.
    """
    total_fraction = sum(fraction for _, fraction in partitions)
    if total_fraction > 1.0 + 1e-9:
        raise ValueError(f"partition fractions add up to {total_fraction:.3f} > 1")
    usable_end = (size_bytes - GPT_TAIL_BYTES) // ALIGN_BYTES * ALIGN_BYTES
    planned: list[tuple[str, int, int]] = []
    start = ALIGN_BYTES
    for label, fraction in partitions:
        size = int(size_bytes * fraction) // ALIGN_BYTES * ALIGN_BYTES
        size = min(size, usable_end - start)
        if size < ALIGN_BYTES:
            raise ValueError(f"partition {label!r} would be smaller than 1 MiB on a {size_bytes}-byte disk")
        planned.append((label, start, size))
        start += size
    return planned


def _sfdisk_script(planned: list[tuple[str, int, int]]) -> str:
    lines = ["label: gpt"]
    for label, start, size in planned:
        lines.append(f"start={start // SECTOR}, size={size // SECTOR}, name={label}")
    return "\n".join(lines) + "\n"


def _mkfs(fs: str, node: str, label: str, extra: Sequence[str]) -> None:
    if fs.startswith("ext"):
        # Inode tables and journal initialised now, not by a background thread whose
        # writes would show up in the diskstats and timings of the test that follows.
        args = [f"mkfs.{fs}", "-q", "-F", "-m", "0", "-E", "lazy_itable_init=0,lazy_journal_init=0", "-L", label[:16]]
    else:
        args = [f"mkfs.{fs}", "-f" if fs in ("xfs", "btrfs") else "-q"]
    _run([*args, *extra, node])


def _detach(device: str) -> None:
    for attempt in range(50):
        proc = subprocess.run(["losetup", "-d", device], capture_output=True, text=True, check=False)
        if proc.returncode == 0 or "No such device" in proc.stderr:
            return
        time.sleep(0.1 * (attempt + 1) / 5)
    raise RuntimeError(f"could not detach {device}")


def _unmount(mountpoint: Path) -> None:
    for attempt in range(30):
        proc = subprocess.run(["umount", str(mountpoint)], capture_output=True, text=True, check=False)
        if proc.returncode == 0 or "not mounted" in proc.stderr:
            return
        time.sleep(0.1 * (attempt + 1) / 5)
    subprocess.run(["umount", "-l", str(mountpoint)], capture_output=True, check=False)


@contextmanager
def scratch_disk(
    size_bytes: int,
    partitions: list[tuple[str, float]] | None,
    *,
    fs: str | None = "ext4",
    image_dir: Path,
    backing: Path | None = None,
    direct_io: bool = False,
    mkfs_args: Sequence[str] = (),
    mount_options: str | None = None,
) -> Iterator[ScratchDisk]:
    """Attach a scratch loop disk with GPT partitions (labels, fractions of the disk).

    ``partitions=None`` puts the file system on the whole device (partition number 0).
    ``fs=None`` leaves the partitions raw and unmounted (for the bench). ``backing`` uses
    an existing file or device instead of a new sparse image (it is never deleted);
    ``size_bytes`` is then ignored in favour of the backing's size. Everything created
    here is removed on exit, also when the body raised.
    """
    image_dir = Path(image_dir).resolve()
    image_dir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as cleanup:
        if backing is None:
            image = image_dir / f"scratch-{os.getpid()}-{time.monotonic_ns()}.img"
            with open(image, "wb") as handle:
                handle.truncate(size_bytes)
            cleanup.callback(image.unlink, missing_ok=True)
        else:
            image = Path(backing).resolve()
        args = ["losetup", "--find", "--show", "--partscan"]
        if direct_io:
            args.append("--direct-io=on")
        device = _run([*args, str(image)]).strip()
        cleanup.callback(_detach, device)
        name = os.path.basename(device)
        size_bytes = int(Path(f"/sys/block/{name}/size").read_text()) * SECTOR

        built: list[ScratchPartition] = []
        if partitions is None:
            layout = [("whole", 0, size_bytes, device, 0)]
        else:
            planned = _plan_partitions(size_bytes, partitions)
            _run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", device], stdin=_sfdisk_script(planned))
            # sfdisk's own re-read can race with the new table; ask again, then wait.
            subprocess.run(["blockdev", "--rereadpt", device], capture_output=True, check=False)
            nodes = wait_partition_nodes(device, len(planned), timeout_s=5.0)
            cleanup.callback(remove_made_nodes, nodes)
            layout = [(label, start, size, node, k + 1) for k, ((label, start, size), node) in
                      enumerate(zip(planned, nodes, strict=True))]
        for label, start, size, node, number in layout:
            mountpoint: Path | None = None
            if fs is not None:
                _mkfs(fs, node, label, mkfs_args)
                mountpoint = image_dir / f"mnt-{label}"
                mountpoint.mkdir(exist_ok=True)
                cleanup.callback(_rmdir_quiet, mountpoint)
                mount_args = ["mount", "-t", fs]
                if mount_options:
                    mount_args += ["-o", mount_options]
                _run([*mount_args, node, str(mountpoint)])
                cleanup.callback(_unmount, mountpoint)
            built.append(ScratchPartition(label, number, node, start, size, mountpoint))
        yield ScratchDisk(device, name, image, size_bytes, tuple(built), image_dir)


def _rmdir_quiet(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def find_leaks(image_dir: Path) -> list[str]:
    """Loop devices backed by files under *image_dir* and mounts below it."""
    root = str(Path(image_dir).resolve())
    problems: list[str] = []
    for loop in sorted(Path("/sys/block").glob("loop*")):
        backing_file = loop / "loop" / "backing_file"
        try:
            target = backing_file.read_text().strip().removesuffix(" (deleted)")
        except OSError:
            continue
        if target == root or target.startswith(root + "/"):
            problems.append(f"/dev/{loop.name} still attached to {target}")
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        mountpoint = line.split()[4].replace("\\040", " ")
        if mountpoint == root or mountpoint.startswith(root + "/"):
            problems.append(f"still mounted: {mountpoint}")
    return problems


def no_leaks(image_dir: Path) -> bool:
    """True when nothing is left behind; raises AssertionError naming what leaked."""
    problems = find_leaks(image_dir)
    if problems:
        raise AssertionError("; ".join(problems))
    return True


def is_root() -> bool:
    """Root, with losetup and sfdisk: what a scratch disk needs."""
    return os.geteuid() == 0 and shutil.which("losetup") is not None and shutil.which("sfdisk") is not None


def write_file(path: Path, size: int, seed: int = 0) -> bytes:
    """Write *size* recognisable bytes and fsync them (so they have a physical address)."""
    block = (f"advisor-{seed}-{path.name}-".encode() * 200)[:4096]
    data = (block * (size // len(block) + 1))[:size]
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return data


def read_raw(device: str, offset: int, length: int) -> bytes:
    """Read bytes from the block device, bypassing the file system (the ground truth)."""
    subprocess.run(["blockdev", "--flushbufs", device], check=False, capture_output=True)
    fd = os.open(device, os.O_RDONLY)
    try:
        return os.pread(fd, length, offset)
    finally:
        os.close(fd)
