"""Push files out of the OS page cache so the next reads reach the disk."""

from __future__ import annotations

import os
from pathlib import Path


def evict(directory: Path) -> None:
    """Write back and evict the files under *directory* from the OS page cache."""
    for path in directory.rglob("*"):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)  # dirty pages are not evicted (the servers run with fsync off)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
