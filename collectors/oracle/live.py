"""One live sample of an Oracle database: run the V$ queries, map them to a snapshot's parts.

Every query is one SQL file in ``sql/oracle`` picked by the server's major version (files
are named by the lowest major they support: ``.v11`` for 11.2, ``.v12`` for 12.1 and 12.2
(CON_ID appears), ``.v18`` for 18c and later (VERSION_FULL); 19c and 23ai use the highest
file at or below their major). Multitenant-only queries (V$CONTAINERS) run only on a CDB.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, fields
from typing import Any

from advisor.collectors.oracle import mapping, server, units
from advisor.collectors.oracle.connect import run_query
from advisor.collectors.oracle.rows import ROWS, ContainersRow, LiveRows, OracleConnection
from advisor.collectors.oracle.segments import add_live_segments
from advisor.model import FileIO, SegmentIO, ServerInfo, WaitProfile

LIVE_QUERIES = tuple(f.name for f in fields(LiveRows) if f.name != "containers")
"""The queries of every live sample (V$CONTAINERS, on a CDB only, comes after them)."""


@dataclass
class LiveSample:
    """What one sample produced, ready to go into a CollectContext."""

    server: ServerInfo
    files: list[FileIO]
    wait: WaitProfile
    views: dict[str, list[dict[str, str | int | float | bool | None]]]
    warnings: list[str] = field(default_factory=list)
    taken_at: str | None = None
    segments: list[SegmentIO] = field(default_factory=list)


def driver_major(conn: OracleConnection) -> int:
    """Major version from the connection (``conn.version`` is "19.3.0.0.0")."""
    version = str(getattr(conn, "version", "") or "0")
    return units.version_num(version) // 10000


def read_rows(conn: OracleConnection) -> LiveRows:
    """Run every live query; V$CONTAINERS only on a CDB."""
    major = driver_major(conn)
    rows: dict[str, list[Any]] = {query: run_query(conn, ROWS[query], query, major) for query in LIVE_QUERIES}
    database = rows["database"]
    cdb = str(database[0].cdb or "NO") if database else "NO"
    containers = run_query(conn, ContainersRow, "containers", major) if cdb == "YES" else []
    return LiveRows(**rows, containers=containers)


def build_sample(rows: LiveRows, driver_version: str) -> LiveSample:
    """Turn the rows of one sample into ServerInfo, FileIO rows, wait profile and warnings."""
    params = server.parameters(rows.parameter)
    info = server.server_info(rows.instance, rows.database, params, driver_version)
    timed = units.is_true(params.get("timed_statistics", "TRUE"))
    warnings = []
    if not timed:
        warnings.append(
            "TIMED_STATISTICS is FALSE: Oracle records no IO times, so latencies are left empty "
            "(set STATISTICS_LEVEL=TYPICAL)"
        )
    catalog = mapping.Catalog(info.name, rows.containers, rows.tablespace, rows.tablespace_contents)
    files = mapping.stat_files("data", rows.datafile, rows.filestat, catalog, timed)
    files += mapping.stat_files("temp", rows.tempfile, rows.tempstat, catalog, timed)
    files += mapping.redo_files(rows.instance, rows.log, rows.logfile, rows.iostat_file, info.name, timed)
    files += mapping.control_files(rows.controlfile, rows.iostat_file, info.name, timed)
    files += mapping.recovery_files(
        rows.archive_dest, rows.recovery_file_dest, rows.recovery_area_usage, rows.iostat_file,
        info.name, timed,
    )
    if info.settings.get("cdb") == "YES":
        seen = {mapping.con(r) for r in rows.datafile}
        if seen <= {0, 1}:
            warnings.append(
                "connected to a CDB but only root (CDB$ROOT) data files are visible: grant "
                "ALTER USER <user> SET CONTAINER_DATA=ALL CONTAINER=CURRENT to see every PDB"
            )
    if len(rows.instance) > 1:
        warnings.append(f"RAC: counters summed over {len(rows.instance)} instances (GV$ views)")
    wait = server.wait_profile(rows.sys_time_model, rows.system_wait_class, timed)
    typed = [r for r in rows.iostat_file if r.filetype_name not in ("Data File", "Temp File")]
    views = {
        "oracle_system_event": server.plain_rows(rows.system_event),
        "oracle_event_histogram": server.plain_rows(rows.event_histogram),
        "oracle_iostat_filetype": server.plain_rows(typed),
        "oracle_recovery_area_usage": server.plain_rows(rows.recovery_area_usage),
    }
    sampled = rows.database[0].sampled_at
    taken_at = None
    if isinstance(sampled, dt.datetime):
        taken_at = sampled.replace(tzinfo=dt.UTC).isoformat(timespec="milliseconds")
    return LiveSample(info, files, wait, views, warnings, taken_at)


def sample(conn: OracleConnection) -> LiveSample:
    """Read and map one live sample from *conn*, with its per-segment counters."""
    rows = read_rows(conn)
    result = build_sample(rows, str(getattr(conn, "version", "") or ""))
    add_live_segments(conn, rows, result)
    return result
