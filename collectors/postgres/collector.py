"""One PostgreSQL snapshot: identity, settings, per-relation misses, WAL, temp, archive, waits.

Order matters for honesty: the reset clocks (system_identifier, postmaster start, every
fixed-kind and per-database stats_reset) are read before the counters they guard, so a reset
that happens while a snapshot is being taken shows up as a reset in the next diff instead of
going unnoticed.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable
from typing import Any

from advisor.collect.context import CollectContext
from advisor.collectors.postgres import files as mapping
from advisor.collectors.postgres.areas import (
    Tablespace,
    data_directory_visible,
    tablespace_directory,
    version_directory,
    wal_directory,
)
from advisor.collectors.postgres.own_io import merge, own_io, with_own_io
from advisor.collectors.postgres.relations import as_view_rows, databases_to_visit, read_all
from advisor.collectors.postgres.rows import (
    ActivityRow,
    ArchiverRow,
    CheckpointerRow,
    DatabaseRow,
    IoRow,
    PrivilegesRow,
    ServerRow,
    SessionRow,
    SettingRow,
    TablespaceRow,
    TempFilesRow,
    WalDirRow,
    WalRow,
)
from advisor.collectors.postgres.session import PgSession, run_query
from advisor.errors import PrivilegeMissing
from advisor.model import FileIO, ServerInfo, SessionSeen, WaitProfile
from advisor.secrets import mask_settings

Jsonable = str | int | float | bool | None


def iso(value: dt.datetime | None) -> str | None:
    """timestamptz → ISO 8601 (None stays None: 'never reset')."""
    return None if value is None else value.isoformat()


def to_bytes(row: SettingRow | None, default: int) -> int:
    """A size setting in bytes (units B, kB, 8kB, MB as pg_settings reports them)."""
    if row is None or not row.setting.lstrip("-").isdigit():
        return default
    units = {None: 1, "": 1, "B": 1, "kB": 1024, "8kB": 8192, "MB": 1 << 20, "16MB": 16 << 20, "GB": 1 << 30}
    return int(row.setting) * units.get(row.unit, 1)


def wal_bound_settings(settings: dict[str, SettingRow]) -> dict[str, str]:
    """``max_wal_size`` and ``wal_keep_size`` in bytes (pg_settings gives MB): what pg_wal may hold."""
    return {f"{name}_bytes": str(to_bytes(settings[name], 0)) for name in ("max_wal_size", "wal_keep_size")
            if name in settings}


def view_rows(rows: list[Any]) -> list[dict[str, Jsonable]]:
    """Row dataclasses as JSON-friendly dicts (timestamps as ISO text) for Snapshot.views."""
    out = []
    for row in rows:
        item: dict[str, Jsonable] = {}
        for name in row.__dataclass_fields__:
            value = getattr(row, name)
            item[name] = value.isoformat() if isinstance(value, dt.datetime) else value
        out.append(item)
    return out


def tablespace_rows(tablespaces: list[TablespaceRow], files: list[FileIO]) -> list[dict[str, Jsonable]]:
    """The pg_tablespace view with the bytes of the relation files counted in each tablespace.

    Summed from the files rather than asked of pg_tablespace_size, which stats every file of
    the tablespace again on the server (free space and visibility map forks are not counted).
    """
    relation_bytes: dict[str, int] = {}
    for f in files:
        if f.kind in ("data", "index", "toast", "sequence"):
            relation_bytes[f.tablespace] = relation_bytes.get(f.tablespace, 0) + f.size_bytes
    rows = view_rows(tablespaces)
    for row in rows:
        row["relation_bytes"] = relation_bytes.get(str(row["spcname"]), 0)
    return rows


def check_privileges(priv: PrivilegesRow, settings: dict[str, SettingRow]) -> list[str]:
    """Refuse without data_directory (nothing could be placed); warn for the minor losses."""
    role = priv.role_name
    if "data_directory" not in settings:
        raise PrivilegeMissing(
            f"role {role} cannot read data_directory, so no file can be located",
            hint=f'GRANT pg_monitor TO "{role}" (or pg_read_all_settings)',
        )
    warnings = []
    if not (priv.is_superuser or priv.read_all_stats):
        warnings.append(
            f"role {role} cannot see other roles' wait events: the IO wait share counts only its own "
            f'sessions (GRANT pg_monitor TO "{role}")'
        )
    if not priv.can_ls_tmpdir:
        warnings.append(f'temp file sizes unknown: pg_ls_tmpdir not allowed (GRANT pg_monitor TO "{role}")')
    if not priv.can_ls_waldir:
        warnings.append(f'WAL directory size unknown: pg_ls_waldir not allowed (GRANT pg_monitor TO "{role}")')
    return warnings


def wait_sample(session: PgSession) -> ActivityRow:
    """One pg_stat_activity sample (active client sessions, how many wait on IO)."""
    rows = run_query(session.conn, ActivityRow, "activity", session.major)
    return rows[0]


def session_sample(session: PgSession, seen: dict[int, SessionSeen]) -> None:
    """Add the server's processes pg_stat_activity shows now to *seen* (by pid; a pid seen again
    serving another database or in another role is the later process, the operating system
    having given it the number again)."""
    for row in run_query(session.conn, SessionRow, "sessions", session.major):
        seen[row.pid] = SessionSeen(row.pid, row.datname, row.backend_type or "")


def wait_profile(samples: list[ActivityRow], sessions: Iterable[SessionSeen] = ()) -> WaitProfile:
    """Share of active sessions waiting on IO over *samples* (None when nothing was active)."""
    active = sum(s.active for s in samples)
    waiting = sum(s.io_waiting for s in samples)
    return WaitProfile(
        io_wait_share=waiting / active if active else None,
        samples=len(samples),
        active_sessions=active / len(samples) if samples else None,
        source="pg_stat_activity",
        sessions=tuple(sorted(sessions, key=lambda s: s.pid)),
    )


def observe(session: PgSession, seconds: float, every_s: float = 0.5) -> WaitProfile:
    """Sample pg_stat_activity every *every_s* seconds for *seconds* (the workload interval): the
    wait profile, and the server's processes seen (they name the pids of a block-layer trace)."""
    deadline = time.monotonic() + seconds
    seen: dict[int, SessionSeen] = {}
    samples = [wait_sample(session)]
    session_sample(session, seen)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(every_s, remaining))
        if deadline - time.monotonic() > -every_s:
            samples.append(wait_sample(session))
            session_sample(session, seen)
    return wait_profile(samples, seen.values())


def collect(session: PgSession, context: CollectContext) -> None:
    """Fill *context* with one snapshot of the server, in one transaction on the collector's
    connection: its counters, then what reading them read itself (:mod:`.own_io`)."""
    with session.conn.transaction():
        _collect(session, context)


def _collect(session: PgSession, context: CollectContext) -> None:
    major, conn = session.major, session.conn
    server = run_query(conn, ServerRow, "server", major)[0]
    priv = run_query(conn, PrivilegesRow, "privileges", major)[0]
    settings = {r.name: r for r in run_query(conn, SettingRow, "settings", major)}
    context.warnings.extend(check_privileges(priv, settings))
    values = {name: row.setting for name, row in settings.items()}
    values.update(wal_bound_settings(settings))  # in bytes: the plan sizes pg_wal's partition by them
    data_directory = values["data_directory"]
    block_size = to_bytes(settings.get("block_size"), 8192)
    wal_segment = to_bytes(settings.get("wal_segment_size"), 16 << 20)
    segment_bytes = to_bytes(settings.get("segment_size"), 1 << 30)

    tablespaces = run_query(conn, TablespaceRow, "tablespaces", major)
    spaces = {
        t.spcoid: Tablespace(
            t.spcoid, t.spcname, tablespace_directory(t.spcname, t.location, data_directory), t.location
        )
        for t in tablespaces
    }
    databases = run_query(conn, DatabaseRow, "databases", major)
    visit, skipped = databases_to_visit(databases)
    context.warnings.extend(skipped)
    local = data_directory_visible(data_directory, major)
    if not local:
        context.warnings.append(
            "the data directory is not visible on this host: relation sizes are estimates from pg_class.relpages "
            "and the pg_wal symlink (if any) is not resolved; run advisor on the database host for exact figures"
        )
    where = mapping.RelationPaths(
        spaces, data_directory, block_size, segment_bytes, local, version_directory(major, server.catalog_version)
    )
    visits = read_all(session, visit, server.current_db, where)

    files: list[FileIO] = []
    for v in visits:
        if v.error:
            context.warnings.append(f"database {v.datname} skipped: {v.error}")
        files.extend(v.files)

    wal = run_query(conn, WalRow, "wal", major)[0]
    wal_path = wal_directory(data_directory, local)
    wal_size = 0
    if priv.can_ls_waldir:
        wal_size = int(run_query(conn, WalDirRow, "waldir", major)[0].size_bytes)
    wal_timing = values.get("track_wal_io_timing") == "on"
    files.append(mapping.wal_file(wal, wal_path, wal_size, wal_timing))

    on_disk: dict[str, int] = {}
    if priv.can_ls_tmpdir:
        on_disk = {r.spcname: int(r.size_bytes) for r in run_query(conn, TempFilesRow, "tempfiles", major)}
    temp_setting = values.get("temp_tablespaces", "")
    files.extend(
        mapping.temp_files(databases, temp_setting, spaces, on_disk, block_size, major, server.catalog_version)
    )

    archiver = run_query(conn, ArchiverRow, "archiver", major)[0]
    if values.get("archive_mode", "off") != "off":
        archive, warning = mapping.archive_file(archiver, values, wal_segment)
        files.append(archive)
        if warning:
            context.warnings.append(warning)

    checkpointer = run_query(conn, CheckpointerRow, "checkpointer", major)[0]
    views: dict[str, list[dict[str, Jsonable]]] = {
        "pg_stat_wal": view_rows([wal]),
        "pg_stat_archiver": view_rows([archiver]),
        "pg_stat_checkpointer": view_rows([checkpointer]),
        "pg_stat_database": view_rows(databases),
        "pg_tablespace": tablespace_rows(tablespaces, files),
        "relation_visits": as_view_rows(visits),
    }
    if major >= 16:
        views["pg_stat_io"] = view_rows(run_query(conn, IoRow, "io", major))
    context.views.update(views)
    context.wait = wait_profile([wait_sample(session)])
    pending = merge([v.own_io for v in visits] + [own_io(conn, major, server.current_db)])  # the last query
    context.files.extend(with_own_io(files, pending))
    context.server = server_info(server, session, values, databases)
    context.taken_at = iso(server.now)


def server_info(
    server: ServerRow, session: PgSession, values: dict[str, str], databases: list[DatabaseRow]
) -> ServerInfo:
    """ServerInfo with every reset clock the workload diff checks (reference §4.5)."""
    resets: dict[str, str | None] = {
        "wal": iso(server.wal_reset),
        "archiver": iso(server.archiver_reset),
        "bgwriter": iso(server.bgwriter_reset),
    }
    if server.io_reset is not None:
        resets["io"] = iso(server.io_reset)
    if server.checkpointer_reset is not None:
        resets["checkpointer"] = iso(server.checkpointer_reset)
    for db in databases:
        resets[f"database:{db.datname}"] = iso(db.stats_reset)
    info = session.conn.info
    host = server.server_addr or info.host or "local"
    kept = mask_settings({name: values[name] for name in sorted(values)})  # archive_command may carry a password
    kept["catalog_version"] = str(server.catalog_version)
    return ServerInfo(
        dbms="postgres",
        version=server.server_version.split()[0],
        version_num=server.server_version_num,
        host=host,
        name=f"{host}:{info.port}",
        identity=server.system_identifier,
        started_at=iso(server.postmaster_start) or "",
        stats_reset=resets,
        in_recovery=server.in_recovery,
        settings=kept,
    )
