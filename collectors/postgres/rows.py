"""Row types of the PostgreSQL queries: field names equal the SQL column aliases.

Every ``sql/postgres/<query>.v<N>.sql`` returns exactly the fields of ``ROWS[<query>]`` in
every version; columns a version lacks come back as NULL (pg_activity's convention). A test
runs each file on each available server and compares the column list with the fields.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ServerRow:
    """Identity and reset clocks (server.v*.sql)."""

    server_version: str
    server_version_num: int
    system_identifier: str
    catalog_version: int
    postmaster_start: dt.datetime
    in_recovery: bool
    now: dt.datetime
    current_db: str
    current_role: str
    server_addr: str | None
    io_reset: dt.datetime | None
    wal_reset: dt.datetime | None
    archiver_reset: dt.datetime | None
    bgwriter_reset: dt.datetime | None
    checkpointer_reset: dt.datetime | None


@dataclass(frozen=True, slots=True)
class PrivilegesRow:
    """What the session may see (privileges.v*.sql)."""

    role_name: str
    is_superuser: bool
    has_monitor: bool
    read_all_settings: bool
    read_all_stats: bool
    can_ls_tmpdir: bool
    can_ls_waldir: bool


@dataclass(frozen=True, slots=True)
class SettingRow:
    """One pg_settings row (settings.v*.sql)."""

    name: str
    setting: str
    unit: str | None


@dataclass(frozen=True, slots=True)
class TablespaceRow:
    """One tablespace (tablespaces.v*.sql); location '' means inside data_directory."""

    spcoid: int
    spcname: str
    location: str


@dataclass(frozen=True, slots=True)
class DatabaseRow:
    """One database and its cumulative counters (databases.v*.sql)."""

    datid: int
    datname: str
    dattablespace: int
    allow_connections: bool
    is_template: bool
    can_connect: bool
    stats_reset: dt.datetime | None
    temp_files: int | None
    temp_bytes: int | None
    blks_read: int | None
    blk_read_time: float | None
    blk_write_time: float | None
    active_time: float | None = None  # ms in state active/fastpath (14+): the DB time of the IO share
    sessions: int | None = None
    temp_tablespaces: str | None = None  # ALTER DATABASE ... SET temp_tablespaces; None: the server's


@dataclass(frozen=True, slots=True)
class RelationRow:
    """One relation with storage in one database (relations.v*.sql)."""

    oid: int
    relname: str
    relkind: str
    is_toast: bool
    spcoid: int
    is_shared: bool
    filenode: int | None  # relfilenode; pg_relation_filenode for mapped catalogs
    relpages: int
    blks_read: int
    blks_hit: int
    parent_oid: int | None  # the table of an index or TOAST relation; None for a table
    scans: int | None  # sequential scans of a table, index scans of an index


@dataclass(frozen=True, slots=True)
class IoRow:
    """One pg_stat_io row in the unified 16/18 shape (io.v*.sql)."""

    backend_type: str
    object: str
    context: str
    reads: int | None
    read_bytes: int | None
    read_time: float | None
    writes: int | None
    write_bytes: int | None
    write_time: float | None
    writebacks: int | None
    writeback_time: float | None
    extends: int | None
    extend_bytes: int | None
    extend_time: float | None
    hits: int | None
    evictions: int | None
    reuses: int | None
    fsyncs: int | None
    fsync_time: float | None
    count_unit: str
    stats_reset: dt.datetime | None


@dataclass(frozen=True, slots=True)
class WalRow:
    """WAL volume and IO (wal.v*.sql); the wal_read*/wal_write_bytes columns exist from 18."""

    wal_records: int
    wal_fpi: int
    wal_bytes: int
    wal_buffers_full: int
    wal_write: int | None
    wal_sync: int | None
    wal_write_time: float | None
    wal_sync_time: float | None
    wal_write_bytes: int | None
    wal_reads: int | None
    wal_read_bytes: int | None
    wal_read_time: float | None
    stats_reset: dt.datetime | None


@dataclass(frozen=True, slots=True)
class CheckpointerRow:
    """Checkpointer and bgwriter counters with the 17 names (checkpointer.v*.sql)."""

    num_timed: int
    num_requested: int
    write_time: float
    sync_time: float
    buffers_written: int
    buffers_clean: int
    maxwritten_clean: int
    buffers_backend: int | None
    buffers_backend_fsync: int | None
    buffers_alloc: int
    checkpointer_reset: dt.datetime | None
    bgwriter_reset: dt.datetime | None


@dataclass(frozen=True, slots=True)
class ArchiverRow:
    """pg_stat_archiver (archiver.v*.sql)."""

    archived_count: int
    last_archived_wal: str | None
    last_archived_time: dt.datetime | None
    failed_count: int
    last_failed_wal: str | None
    last_failed_time: dt.datetime | None
    stats_reset: dt.datetime | None


@dataclass(frozen=True, slots=True)
class TempFilesRow:
    """Temporary files on disk in one tablespace (tempfiles.v*.sql)."""

    spcname: str
    files: int
    size_bytes: int


@dataclass(frozen=True, slots=True)
class WalDirRow:
    """WAL segments on disk (waldir.v*.sql)."""

    segments: int
    size_bytes: int


@dataclass(frozen=True, slots=True)
class ActivityRow:
    """One wait-profile sample (activity.v*.sql)."""

    active: int
    io_waiting: int


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A server process seen while sampling (sessions.v*.sql): it names a traced pid."""

    pid: int
    datname: str | None
    backend_type: str | None


@dataclass(frozen=True, slots=True)
class SizesRow:
    """sizes.v*.sql: run by hand with psql for a workload without sizes; read by advisor.sizes."""

    db_name: str
    dbid: str
    taken_at: str
    kind: str
    tablespace: str
    file_name: str
    bytes: str


@dataclass(frozen=True, slots=True)
class OwnIoRow:
    """The collector's own pending block reads and scans of one relation (own_io.v*.sql)."""

    oid: int
    is_shared: bool
    reads: int
    scans: int


ROWS: dict[str, type] = {
    "server": ServerRow,
    "privileges": PrivilegesRow,
    "settings": SettingRow,
    "tablespaces": TablespaceRow,
    "databases": DatabaseRow,
    "relations": RelationRow,
    "io": IoRow,
    "wal": WalRow,
    "checkpointer": CheckpointerRow,
    "archiver": ArchiverRow,
    "tempfiles": TempFilesRow,
    "waldir": WalDirRow,
    "activity": ActivityRow,
    "sessions": SessionRow,
    "sizes": SizesRow,
    "own_io": OwnIoRow,
}
"""Query name → row type; every SQL file's columns must equal the type's fields."""

SETTING_NAMES = (
    "archive_command",
    "archive_library",
    "archive_mode",
    "basic_archive.archive_directory",
    "block_size",
    "data_directory",
    "default_tablespace",
    "io_method",
    "max_wal_size",
    "segment_size",
    "stats_fetch_consistency",
    "temp_tablespaces",
    "track_counts",
    "track_io_timing",
    "track_wal_io_timing",
    "wal_keep_size",
    "wal_segment_size",
)
"""pg_settings rows the collector reads (settings.v*.sql's ``names`` parameter)."""

DEFAULT_PARAMS: dict[str, dict[str, object]] = {
    "settings": {"names": list(SETTING_NAMES)},
    "relations": {"count_shared": True},
}
"""The params mapping each query needs (``advisor sql show`` and the tests use these)."""
