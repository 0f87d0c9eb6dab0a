"""Fixtures for the storage tests: one real loop disk with three GPT partitions for the session.

The disk is 384 MiB: ``outer`` (first 30 %), ``middle`` (next 30 %) and ``inner`` (the
rest), each ext4 and mounted. Every mount and loop device is removed at the end even when
a test failed, and a session-level check fails the run if anything leaked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.loopdisk import ScratchDisk, no_leaks, scratch_disk

NEEDS_ROOT = "needs root: loop devices, partitions and mounts"
DISK_BYTES = 384 << 20
LAYOUT = [("outer", 0.3), ("middle", 0.3), ("inner", 0.39)]


def is_root() -> bool:
    return os.geteuid() == 0 and shutil.which("losetup") is not None and shutil.which("sfdisk") is not None


@pytest.fixture(scope="session")
def storage_root() -> Iterator[Path]:
    """A unique directory for images and mounts; checked for leaks after the session."""
    root = Path(tempfile.mkdtemp(prefix="advisor-storage-"))
    try:
        yield root
    finally:
        leaked = []
        try:
            no_leaks(root)
        except AssertionError as exc:
            leaked.append(str(exc))
        shutil.rmtree(root, ignore_errors=True)
        assert not leaked, f"storage tests leaked: {leaked}"


@pytest.fixture(scope="session")
def three_zone_disk(storage_root: Path) -> Iterator[ScratchDisk]:
    """The shared outer/middle/inner disk."""
    if not is_root():
        pytest.skip(NEEDS_ROOT)
    with scratch_disk(DISK_BYTES, LAYOUT, image_dir=storage_root / "three") as disk:
        yield disk


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


@pytest.fixture
def tmpfs_dir(storage_root: Path) -> Iterator[Path]:
    """A tmpfs mounted just for one test."""
    if not is_root():
        pytest.skip(NEEDS_ROOT)
    target = Path(tempfile.mkdtemp(dir=storage_root, prefix="tmpfs-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "advisor-test", str(target)], check=True)
    try:
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)
        target.rmdir()
