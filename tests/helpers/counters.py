"""Snapshots of cumulative counters, for the tests of diff and since-start rates.

:func:`server` is a PostgreSQL 18 server, :func:`fio` one data file's counters, :func:`snap`
a snapshot of them: a test changes only the fields it is about.
"""

from __future__ import annotations

import dataclasses

from advisor.model import FileIO, ServerInfo, Snapshot


def server(dbms: str = "postgres", **changes: object) -> ServerInfo:
    """PostgreSQL 18 on db1 with its resets and timing settings known; *changes* replace fields."""
    base = ServerInfo(
        dbms=dbms,  # type: ignore[arg-type]
        version="18.1",
        version_num=180001,
        host="db1",
        name="db1:5432",
        identity="7300000000000000001",
        started_at="2026-01-01T00:00:00+00:00",
        stats_reset={"wal": "2026-01-01T00:00:00+00:00", "bgwriter": "2026-01-01T00:00:00+00:00",
                     "database:app": None},
        settings={"track_io_timing": "on", "track_wal_io_timing": "on", "timed_statistics": "TRUE"},
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def fio(file_id: str, reads: int, writes: int | None = None, **more: object) -> FileIO:
    """Data file *file_id* (1 MiB) with *reads*/*writes* cumulative 8 KiB blocks; ``None`` writes unknown."""
    return FileIO(file_id=file_id, path=f"/d/{file_id}", kind="data", tablespace="ts", container="app",
                  size_bytes=1 << 20, reads=reads, writes=writes, read_bytes=reads * 8192,
                  write_bytes=None if writes is None else writes * 8192, **more)  # type: ignore[arg-type]


def snap(at: str, files: tuple[FileIO, ...], srv: ServerInfo | None = None, **more: object) -> Snapshot:
    """A snapshot of *files* taken *at*, on :func:`server` unless *srv* is given."""
    return Snapshot(server=srv or server(), taken_at=at, files=files, **more)  # type: ignore[arg-type]
