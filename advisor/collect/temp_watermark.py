"""The temp directories' high-water mark: the largest size seen while ``collect --interval`` waits.

``pg_stat_database.temp_bytes`` counts what was written to temp files, and gives the temp
area an upper bound (written plus present); but the bytes go to the tablespaces the
collector infers from ``temp_tablespaces`` (a per-role setting is followed nowhere), so a
temp directory can fill while the counters credit another. Sampling the directories
themselves gives what they really held: a lower bound of their peak, since a file may come
and go between two samples. The plan sizes temp from the larger of the two
(:mod:`advisor.engine.peak_size`).

A directory is measured only where this host can see it: the temp directory of a
tablespace whose parent directory (``PG_<version>_<catalog>`` or ``base``) exists here and
can be read. Elsewhere (a collector on another host, no read permission) the mark stays
unknown and is not recorded; a parent that exists without ``pgsql_tmp`` holds 0 bytes of
temp files at that instant.
"""

from __future__ import annotations

import os
import posixpath
import threading
from collections.abc import Iterable

SAMPLE_EVERY_S = 0.5
"""How often the directories are measured: temp files of a spilled sort or hash live for
the length of the query, usually seconds or more."""


def _tree_bytes(path: str) -> int:
    """Bytes of the files under *path* (0 when it does not exist); files that vanish while walked count 0."""
    total = 0
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return 0
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                total += _tree_bytes(entry.path)
            elif entry.is_file(follow_symlinks=False):
                total += entry.stat(follow_symlinks=False).st_blocks * 512
        except FileNotFoundError:
            continue
    return total


def _visible(path: str) -> bool:
    parent = posixpath.dirname(path.rstrip("/"))
    return os.path.isdir(parent) and os.access(parent, os.R_OK | os.X_OK)


class TempWatermark:
    """Samples *directories* every :data:`SAMPLE_EVERY_S` seconds in a thread between :meth:`start` and :meth:`stop`."""

    def __init__(self, directories: Iterable[str], every_s: float = SAMPLE_EVERY_S) -> None:
        self.directories = sorted({d for d in directories if d and _visible(d)})
        self.every_s = every_s
        self.samples = 0
        self._high: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="temp-watermark", daemon=True)

    def _sample(self) -> None:
        for directory in self.directories:
            try:
                size = _tree_bytes(directory)
            except PermissionError:
                continue  # unreadable: the mark of this directory stays what it was (unknown when never read)
            self._high[directory] = max(self._high.get(directory, 0), size)
        self.samples += 1

    def _run(self) -> None:
        while True:
            self._sample()
            if self._stop.wait(self.every_s):
                return

    def start(self) -> None:
        """Begin sampling (the first sample is taken at once)."""
        if self.directories:
            self._thread.start()

    def stop(self) -> dict[str, int]:
        """Stop, take a last sample, and return each measured directory's largest size in bytes."""
        if self._thread.is_alive():
            self._stop.set()
            self._thread.join()
            self._sample()
        return dict(self._high)
