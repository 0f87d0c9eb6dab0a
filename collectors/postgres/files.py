"""Turn PostgreSQL statistics rows into FileIO rows: relations, WAL, temp and archive.

What is attributed and what is not (docs/collect.md says the same):

* Relations: reads are shared_buffers misses per relation (blocks); read_bytes = reads ×
  block_size. PostgreSQL keeps no per-relation write counter and no per-relation timing,
  so writes and times are None, never invented. pg_stat_io has no tablespace dimension and
  is kept as a raw view only.
* WAL: one row for the WAL directory. Writes and syncs from pg_stat_wal (14–17) or the
  pg_stat_io ``wal`` object (18+, which also counts reads and bytes written); times only when
  track_wal_io_timing is on.
* Temp: per tablespace. Each database's temp_bytes goes to the tablespaces in its own
  temp_tablespaces (ALTER DATABASE ... SET), else the server's, split evenly (PostgreSQL picks
  them round-robin), or to the database's default tablespace (a per-role setting is not
  followed: which role wrote the temp bytes is counted nowhere); writes = bytes / block_size
  (temp files are written in BLCKSZ chunks). Temp reads are counted nowhere, so they are 0 here;
  where a temp tablespace has its partition to itself, the report takes its reads and write
  requests from the kernel's counters (advisor.engine.calibrate).
* Archive: archived_count segments, each wal_segment_size bytes, written to the directory
  parsed from archive_command (unknown path when it is not a plain copy).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from advisor.collectors.postgres.areas import (
    Tablespace,
    archive_directory,
    on_disk,
    parse_temp_tablespaces,
    relation_directories,
    segment_paths,
    temp_directory,
    unlisted_directory,
)
from advisor.collectors.postgres.rows import ArchiverRow, DatabaseRow, WalRow
from advisor.collectors.postgres.sizes import MISSING, stat_sizes
from advisor.model import FileIO, FileKind


@dataclass(frozen=True, slots=True)
class RelationPaths:
    """What turning relation rows into files needs: tablespaces, sizes, where files are."""

    spaces: dict[int, Tablespace]
    data_directory: str
    block_size: int
    segment_bytes: int
    local: bool  # the data directory is visible here: sizes are read from the files
    version_dir: str  # PG_<major>_<catalog version>, inside every tablespace LOCATION


def relation_kind(relkind: str, is_toast: bool) -> FileKind:
    """data (tables, matviews), index, toast (TOAST tables and their indexes) or sequence.

    Sequences are their own kind because nothing moves them one by one: ``SET TABLESPACE``
    refuses a sequence and pg_repack takes tables only; they live in the database's default
    tablespace and move with it (``ALTER DATABASE ... SET TABLESPACE``)."""
    if is_toast or relkind == "t":
        return "toast"
    if relkind == "i":
        return "index"
    if relkind == "S":
        return "sequence"
    return "data"


SPCOID_COLUMN, IS_SHARED_COLUMN, FILENODE_COLUMN = 4, 5, 6
"""Positions in a ``relations`` row (rows stay tuples on the hot path; see rows.RelationRow)."""

_KINDS: dict[tuple[str, bool], FileKind] = {
    (relkind, toast): relation_kind(relkind, toast) for relkind in "rtmiS" for toast in (False, True)
}


def relation_paths(datid: int, rows: list[tuple[Any, ...]], where: RelationPaths) -> list[str | None]:
    """First-segment path of each row (None for a row without storage), aligned with *rows*.

    The directory comes from a per-tablespace dict and the name is the filenode: what
    pg_relation_filepath returns, without its catalog lookup per relation on the server.
    """
    directories = relation_directories(where.spaces, where.data_directory, datid, where.version_dir)
    paths: list[str | None] = []
    for row in rows:
        spcoid, filenode = row[SPCOID_COLUMN], row[FILENODE_COLUMN]
        if not filenode:
            paths.append(None)  # a mapped catalog the server could not resolve
            continue
        directory = directories.get(spcoid)
        if directory is None:
            directory = unlisted_directory(spcoid, where.data_directory, datid, where.version_dir)
        paths.append(f"{directory}{filenode}")
    return paths


def relation_files(
    datname: str,
    rows: list[tuple[Any, ...]],
    paths: list[str | None],
    where: RelationPaths,
    sizes: list[int] | None = None,
) -> list[FileIO]:
    """One FileIO per relation row (``relations`` query columns, as tuples for speed).

    *paths* come from :func:`relation_paths`; *sizes* (from :mod:`advisor.collectors.postgres.sizes`,
    one per non-None path) are read here when not given. Sizes come from the files
    themselves when the data directory is visible on this host, else from relpages (an
    estimate). Shared catalogs get the file id ``global/<oid>``. Relations with no bytes on
    disk that were never read are left out.
    """
    block, segment_bytes, local = where.block_size, where.segment_bytes, where.local
    if local and sizes is None:
        sizes = stat_sizes([p for p in paths if p is not None])
    names = {oid: s.name for oid, s in where.spaces.items()}
    kinds = _KINDS
    files = []
    n = 0
    # This loop runs once per relation of the cluster (100,000 in benchmarks/collect_bench.py),
    # so it is kept to a few lookups and one FileIO per row.
    for (
        (oid, relname, relkind, is_toast, spcoid, is_shared, _node, relpages, blks_read, _hit, parent, scans),
        path,
    ) in zip(rows, paths, strict=True):
        if path is None:
            continue
        segments: tuple[str, ...] = ()
        if sizes is not None:
            size = sizes[n]
            n += 1
            if size < 0:
                size = 0 if size == MISSING else relpages * block  # unreadable here: the catalog's estimate
            elif size >= segment_bytes:
                size, segments = on_disk(path, segment_bytes)
        else:
            size = relpages * block
            segments = segment_paths(path, size, segment_bytes)
        if size == 0 and not blks_read:
            continue
        container = "global" if is_shared else datname
        files.append(
            FileIO(
                f"{container}/{oid}",
                path,
                kinds.get((relkind, is_toast)) or relation_kind(relkind, is_toast),
                names.get(spcoid) or str(spcoid),
                container,
                size,
                blks_read,
                None,
                blks_read * block,
                None,
                None,
                None,
                None,
                None,
                None,
                relname,
                segments,
                None if parent is None else f"{container}/{parent}",
                scans,
            )
        )
    return files


def wal_file(wal: WalRow, path: str, size_bytes: int, timing: bool) -> FileIO:
    """The WAL directory as one file-like object."""
    write_bytes = wal.wal_write_bytes if wal.wal_write_bytes is not None else wal.wal_bytes
    return FileIO(
        file_id="wal",
        path=path,
        kind="wal",
        tablespace="pg_wal",
        container="",
        size_bytes=size_bytes,
        reads=int(wal.wal_reads or 0),
        writes=None if wal.wal_write is None else int(wal.wal_write),
        read_bytes=int(wal.wal_read_bytes or 0),
        write_bytes=int(write_bytes),
        write_time_ms=float(wal.wal_write_time) if timing and wal.wal_write_time is not None else None,
        read_time_ms=float(wal.wal_read_time) if timing and wal.wal_read_time is not None else None,
        syncs=None if wal.wal_sync is None else int(wal.wal_sync),
        sync_time_ms=float(wal.wal_sync_time) if timing and wal.wal_sync_time is not None else None,
        name="pg_wal",
    )


def temp_targets(db: DatabaseRow, temp_setting: list[str], spaces: dict[int, Tablespace]) -> list[Tablespace]:
    """Tablespaces that receive *db*'s temp files: the database's own temp_tablespaces (ALTER
    DATABASE ... SET), else the server's, else the database default."""
    by_name = {s.name: s for s in spaces.values()}
    own = parse_temp_tablespaces(db.temp_tablespaces) if db.temp_tablespaces is not None else None
    listed = [by_name[name] for name in (temp_setting if own is None else own) if name in by_name]
    if listed:
        return listed
    default = spaces.get(db.dattablespace)
    return [default] if default else []


def temp_files(
    databases: list[DatabaseRow],
    temp_tablespaces: str,
    spaces: dict[int, Tablespace],
    on_disk: dict[str, int],
    block_size: int,
    major: int,
    catalog_version: int,
) -> list[FileIO]:
    """One ``temp/<tablespace>`` row per tablespace that receives temp files."""
    setting = parse_temp_tablespaces(temp_tablespaces)
    bytes_by_space: dict[int, float] = defaultdict(float)
    for db in databases:
        targets = temp_targets(db, setting, spaces)
        for space in targets:
            bytes_by_space[space.oid] += (db.temp_bytes or 0) / len(targets)
    files = []
    for oid, total in sorted(bytes_by_space.items()):
        space = spaces[oid]
        written = int(round(total))
        files.append(
            FileIO(
                file_id=f"temp/{space.name}",
                path=temp_directory(space, major, catalog_version),
                kind="temp",
                tablespace=space.name,
                container="",
                size_bytes=on_disk.get(space.name, 0),
                reads=0,
                writes=written // block_size,
                read_bytes=0,
                write_bytes=written,
                name=f"pgsql_tmp ({space.name})",
            )
        )
    return files


def archive_file(archiver: ArchiverRow, settings: dict[str, str], wal_segment_bytes: int) -> tuple[FileIO, str | None]:
    """The archive destination as one row, and a warning when its path is unknown."""
    directory = archive_directory(
        settings.get("archive_command", ""),
        settings.get("archive_library", ""),
        settings.get("basic_archive.archive_directory", ""),
    )
    warning = None
    if directory is None:
        warning = (
            "archive destination unknown: archive_command is not a plain copy to a local directory; "
            "archive writes are counted but cannot be placed on a disk"
        )
    count = int(archiver.archived_count)
    row = FileIO(
        file_id="archive",
        path=directory or "",
        kind="archive",
        tablespace="archive",
        container="",
        size_bytes=0,
        reads=0,
        writes=count,
        read_bytes=0,
        write_bytes=count * wal_segment_bytes,
        name="WAL archive",
    )
    return row, warning
