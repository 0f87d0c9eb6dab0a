"""File sizes read by a helper process while the collector turns rows into files.

A cluster of 100,000 relations means 100,000 stat() calls: about 0.3 s of system time on a
small virtual machine, a third of what one snapshot may cost. Threads cannot overlap them
with the collector's own Python work (every stat gives up and takes back the interpreter
lock, and the stat thread then waits for the busy thread's switch interval), so a small
helper process does them on the other core: the collector sends one database's paths,
builds the FileIO rows of the previous database meanwhile, then takes the sizes.

The helper is :mod:`~advisor.collectors.postgres.size_helper`, run by path as ``python -I
-S`` with nothing but the standard library; it reads only paths it is sent, writes only
sizes, and ends when its input closes. If it cannot start or dies, sizes are read in the
collector's own process instead, so a snapshot never depends on it.

Measured by ``benchmarks/collect_bench.py`` (the "sizes: stat here vs helper" row; the
helper only runs for more than one database): on 10 databases x 10,000 relations (102,097
files) the collect phase took 0.599 s instead of 0.667 s (1.11x, 2-core machine at load 1.4);
on 10 databases x 1,000 relations (12,097 files) it took 0.586 s instead of 0.471 s (0.80x,
load 7: with no idle core the helper only competes). At 12,000 files it costs more than it
saves; it stays for the largest clusters, whose snapshot must keep within one second, and a
threshold on the number of files is the next step once measured on an idle machine.
"""

from __future__ import annotations

import queue
import struct
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType

from advisor.collectors.postgres import size_helper
from advisor.collectors.postgres.size_helper import HEADER, sizes_of
from advisor.collectors.postgres.size_helper import MISSING as MISSING  # the codes callers compare with
from advisor.collectors.postgres.size_helper import UNREADABLE as UNREADABLE

HELPER = Path(size_helper.__file__)
"""The helper's source file, run by path (``-m`` would import the advisor package, which ``-I`` hides)."""


def stat_sizes(paths: list[str]) -> list[int]:
    """Sizes of *paths* read here, with the helper's codes for missing and unreadable files."""
    return sizes_of(paths)


class SizeReader:
    """Batches of paths in, their sizes out, in order; falls back to stat() here on failure."""

    def __init__(self) -> None:
        self._pending: list[list[str]] = []
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._process: subprocess.Popen[bytes] | None = None
        self._writer: threading.Thread | None = None
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(HELPER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={},  # it needs nothing from the environment (PGPASSWORD stays with us)
            )
        except OSError:
            return  # no helper: sizes are read in this process
        # Writing happens in a thread: a batch larger than the pipe would otherwise block
        # this thread while the helper waits for us to read the previous batch's sizes.
        self._writer = threading.Thread(target=self._write_batches, name="advisor-sizes", daemon=True)
        self._writer.start()

    @property
    def helper_running(self) -> bool:
        """Whether sizes come from the helper process (False: read in this process)."""
        return self._process is not None

    def submit(self, paths: list[str]) -> None:
        """Queue one batch; its sizes come back from :meth:`result` in submission order."""
        self._pending.append(paths)
        if self._process is not None:
            # One encode for the batch, as os.fsencode would do each path.
            payload = "\0".join(paths).encode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
            self._outbox.put(HEADER.pack(len(paths), len(payload)) + payload)

    def result(self) -> list[int]:
        """Sizes of the oldest batch not yet returned."""
        paths = self._pending.pop(0)
        if self._process is not None and self._process.stdout is not None:
            wanted = 8 * len(paths)
            data = self._process.stdout.read(wanted) if wanted else b""
            if len(data) == wanted:
                return list(struct.unpack(f"<{len(paths)}q", data))
            self._give_up()
        return stat_sizes(paths)

    def _write_batches(self) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            while (batch := self._outbox.get()) is not None:
                process.stdin.write(batch)
                process.stdin.flush()
        except OSError:
            pass  # the helper died: result() notices the short read and falls back
        finally:
            try:
                process.stdin.close()
            except OSError:
                pass

    def _give_up(self) -> None:
        """The helper failed mid-way: stop it; the remaining batches are read here."""
        if self._process is not None:
            self._process.kill()
        self.close()

    def close(self) -> None:
        """End the helper (closing its input ends its loop); idempotent."""
        process, self._process = self._process, None
        if process is None:
            return
        if self._pending:
            process.kill()  # sizes nobody will read: the helper may be blocked writing them
        self._outbox.put(None)
        if self._writer is not None:
            self._writer.join(timeout=5)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> SizeReader:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
