"""Paths of PostgreSQL's storage areas: relation files, WAL, temp and archive directories.

SQL gives paths relative to data_directory and through the ``pg_tblspc`` symlinks; the
advisor maps real directories to disks, so paths are rewritten to the tablespace location
and, where the data directory is visible on this host, ``pg_wal`` is resolved through its
symlink. The archive destination can only be read from ``archive_command`` when it is a
plain copy (``cp %p /dir/%f`` and the usual variants); anything else stays unknown.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from advisor.units import GIB

SEGMENT_BYTES_DEFAULT = GIB


@dataclass(frozen=True, slots=True)
class Tablespace:
    """A tablespace and the directory its files are in."""

    oid: int
    name: str
    directory: str  # data_directory/base, data_directory/global or the LOCATION
    location: str  # '' for pg_default/pg_global


def tablespace_directory(name: str, location: str, data_directory: str) -> str:
    """Directory holding a tablespace's files (pg_default → base, pg_global → global)."""
    if location:
        # In-place tablespaces (allow_in_place_tablespaces) report 'pg_tblspc/<oid>', relative
        # to the data directory; os.path.join keeps an absolute LOCATION as it is.
        return os.path.join(data_directory, location)
    return os.path.join(data_directory, "global" if name == "pg_global" else "base")


GLOBAL_TABLESPACE_OID = 1664
"""pg_global: shared catalogs, in data_directory/global with no database directory."""


def version_directory(major: int, catalog_version: int) -> str:
    """The per-version directory PostgreSQL makes inside a tablespace LOCATION.

    >>> version_directory(18, 202506291)
    'PG_18_202506291'
    """
    return f"PG_{major}_{catalog_version}"


def relation_directories(
    tablespaces: dict[int, Tablespace], data_directory: str, datid: int, version_dir: str
) -> dict[int, str]:
    """Tablespace oid → directory of one database's relation files there (with a trailing /).

    A relation's first segment is this directory plus its filenode, which is what
    pg_relation_filepath returns but computed here, where it costs a dict lookup instead of
    a catalog lookup per relation on the server.

    >>> ts = {1663: Tablespace(1663, "pg_default", "/pg/data/base", ""),
    ...       1664: Tablespace(1664, "pg_global", "/pg/data/global", ""),
    ...       16385: Tablespace(16385, "fast", "/srv/fast", "/srv/fast")}
    >>> dirs = relation_directories(ts, "/pg/data", 5, "PG_18_202506291")
    >>> dirs[1663], dirs[1664], dirs[16385]
    ('/pg/data/base/5/', '/pg/data/global/', '/srv/fast/PG_18_202506291/5/')
    """
    out = {}
    for oid, space in tablespaces.items():
        if oid == GLOBAL_TABLESPACE_OID:
            out[oid] = f"{space.directory}/"
        elif space.location:
            out[oid] = f"{space.directory}/{version_dir}/{datid}/"
        else:
            out[oid] = f"{space.directory}/{datid}/"
    return out


def unlisted_directory(spcoid: int, data_directory: str, datid: int, version_dir: str) -> str:
    """Relation directory of a tablespace created after the tablespace list was read.

    >>> unlisted_directory(16999, "/pg/data", 5, "PG_18_202506291")
    '/pg/data/pg_tblspc/16999/PG_18_202506291/5/'
    """
    return f"{data_directory}/pg_tblspc/{spcoid}/{version_dir}/{datid}/"


def segment_paths(first: str, size_bytes: int, segment_bytes: int = SEGMENT_BYTES_DEFAULT) -> tuple[str, ...]:
    """Further 1 GB segment files (``<path>.1``, ``.2`` ...) a relation of *size_bytes* has.

    >>> segment_paths("/d/16390", 3 * (1 << 30) + 1)
    ('/d/16390.1', '/d/16390.2', '/d/16390.3')
    >>> segment_paths("/d/16390", 1 << 30)
    ()
    """
    if size_bytes <= segment_bytes or segment_bytes <= 0:
        return ()
    count = -(-size_bytes // segment_bytes)
    return tuple(f"{first}.{n}" for n in range(1, count))


def temp_directory(space: Tablespace, major: int, catalog_version: int) -> str:
    """Where temporary files of *space* go: base/pgsql_tmp or <location>/PG_<major>_<cat>/pgsql_tmp."""
    if not space.location:
        return os.path.join(space.directory, "pgsql_tmp")
    return os.path.join(space.directory, version_directory(major, catalog_version), "pgsql_tmp")


def data_directory_visible(data_directory: str, major: int) -> bool:
    """Whether this host sees the server's data directory (same host, enough permission)."""
    try:
        with open(os.path.join(data_directory, "PG_VERSION"), encoding="ascii") as marker:
            return marker.read().strip() == str(major)
    except OSError:
        return False  # not this host, or no permission to read the data directory


def wal_directory(data_directory: str, visible: bool) -> str:
    """The WAL directory, resolved through its symlink when the data directory is visible."""
    path = os.path.join(data_directory, "pg_wal")
    return os.path.realpath(path) if visible else path


def on_disk(first: str, segment_bytes: int = SEGMENT_BYTES_DEFAULT) -> tuple[int, tuple[str, ...]]:
    """Exact size of a relation's main fork and its further segment files, read on this host.

    A file missing here (dropped since the query) has size 0. A next segment can exist only
    when the previous one is full, so a relation below 1 GB costs a single stat.
    """
    try:
        size = os.stat(first).st_size
    except OSError:
        return 0, ()
    segments: list[str] = []
    current = size
    while current >= segment_bytes > 0:
        candidate = f"{first}.{len(segments) + 1}"
        try:
            current = os.stat(candidate).st_size
        except OSError:
            break
        segments.append(candidate)
        size += current
    return size, tuple(segments)


def parse_temp_tablespaces(setting: str) -> list[str]:
    """The names in ``temp_tablespaces`` (comma-separated, possibly double-quoted).

    >>> parse_temp_tablespaces('fast, "Slow Disk"')
    ['fast', 'Slow Disk']
    >>> parse_temp_tablespaces("")
    []
    """
    names = []
    for item in re.findall(r'\s*("(?:[^"]|"")*"|[^,]+)\s*(?:,|$)', setting or ""):
        item = item.strip()
        if item.startswith('"') and item.endswith('"'):
            item = item[1:-1].replace('""', '"')
        if item:
            names.append(item)
    return names


_COPY_TOOLS = {"cp", "rsync", "install", "/bin/cp", "/usr/bin/cp", "/usr/bin/rsync"}


def archive_directory(archive_command: str, archive_library: str, library_directory: str) -> str | None:
    """Archive destination from a plain-copy ``archive_command`` or basic_archive; else None.

    >>> archive_directory("test ! -f /arch/%f && cp %p /arch/%f", "", "")
    '/arch'
    >>> archive_directory("rsync -a %p backup:/arch/%f", "", "") is None
    True
    >>> archive_directory("", "basic_archive", "/mnt/arch")
    '/mnt/arch'
    >>> archive_directory("pgbackrest --stanza=main archive-push %p", "", "") is None
    True
    """
    if archive_library == "basic_archive" and library_directory:
        return library_directory
    if not archive_command or archive_command == "(disabled)":
        return None
    for part in re.split(r"&&|;|\|\|", archive_command):
        try:
            words = shlex.split(part)
        except ValueError:
            return None
        if not words or words[0] not in _COPY_TOOLS or "%p" not in words:
            continue
        target = words[-1]
        if target.endswith("/%f") and target.startswith("/") and ":" not in target:
            return target[: -len("/%f")] or "/"
    return None
