"""Fixtures for the storage tests: one real loop disk with three GPT partitions for the session.

The disk is 384 MiB: ``outer`` (first 30 %), ``middle`` (next 30 %) and ``inner`` (the
rest), each ext4 and mounted. Every mount and loop device is removed at the end even when
a test failed, and a session-level check fails the run if anything leaked.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.loopdisk import ScratchDisk, is_root, no_leaks, scratch_disk

NEEDS_ROOT = "needs root: loop devices, partitions and mounts"
DISK_BYTES = 384 << 20
LAYOUT = [("outer", 0.3), ("middle", 0.3), ("inner", 0.39)]


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
