"""Scripts that move one object (not its whole tablespace) to its planned partition.

Each object placed alone (:mod:`advisor.engine.hot_objects`) gets a tablespace of its own
on the target partition, then only its relations or segments move there:

* PostgreSQL: ``ALTER TABLE ... SET TABLESPACE`` (the table and its TOAST) and ``ALTER
  INDEX ... SET TABLESPACE`` for its indexes. Each statement copies the relation under an
  ACCESS EXCLUSIVE lock; ``pg_repack --tablespace --moveidx`` is the online path.
* Oracle: ``ALTER TABLE ... MOVE [PARTITION ...] ONLINE TABLESPACE`` (12.2 and later;
  before, an offline MOVE leaves the indexes UNUSABLE and they are rebuilt right after),
  ``ALTER INDEX ... REBUILD [PARTITION ...] ONLINE TABLESPACE`` and, for a LOB segment,
  ``ALTER TABLE ... MOVE LOB (column) STORE AS (TABLESPACE ...)`` with the column looked up
  in DBA_LOBS.

Every move copies the object before it frees the old copy, so each statement is preceded
by the free space it needs on the target while it runs. Names are quoted with
:mod:`advisor.engine.scripts.quoting`.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Sequence

from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.postgres import plain_tablespace_name, repack_command
from advisor.engine.scripts.quoting import comment, ident, label, literal, psql_connect, qualified
from advisor.model import Script

PG_LOCK_WARNING = (
    "SET TABLESPACE copies each relation under an ACCESS EXCLUSIVE lock: reads and writes on it wait "
    "until the copy commits. Run in a maintenance window, or use postgres_objects_repack.sh (pg_repack) online."
)
ORACLE_CAVEAT = (
    "ONLINE moves and rebuilds need Enterprise Edition; they keep DML running and journal it. "
    "An offline MOVE (before 12.2) locks the table and leaves its indexes UNUSABLE until the rebuild that follows."
)
HEADROOM = 1.3
"""The new tablespace's first size: the object plus 30 % (it autoextends)."""


def _mib(size_bytes: int) -> int:
    return max(1, -(-size_bytes // (1 << 20)))


def _objects(moves: Sequence[Move]) -> list[Move]:
    return [m for m in moves if m.area.kind == "object"]


def pg_tablespace_name(move: Move) -> str:
    """The tablespace made for one object on its partition (plain, as pg_repack needs; ``pg_`` is reserved)."""
    return plain_tablespace_name(f"{move.partition}_{move.area.name}")


def _pg_sql(moves: Sequence[Move]) -> tuple[list[str], list[str]]:
    sql: list[str] = []
    repack: list[str] = []
    for move in moves:
        space = pg_tablespace_name(move)
        size = _mib(move.area.size_bytes)
        sql.append(f"-- {comment(move.area.name)} -> partition {comment(move.partition)}: needs {size} MiB free there "
                   "while it runs (the old files are removed at commit); with wal_level replica or logical it also "
                   f"writes about {size} MiB of WAL")
        sql.append(f"CREATE TABLESPACE {ident(space)} LOCATION {literal(move.directory)};")
        tables = [r for r in move.area.relations if r.kind == "data"]
        indexes = [r for r in move.area.relations if r.kind == "index"]
        for db in dict.fromkeys(r.container for r in move.area.relations):
            sql.append(f"-- run the next statements connected to database {comment(db)}")
            sql.append(psql_connect(db))
            for rel in (r for r in tables if r.container == db):
                sql.append(f"ALTER TABLE {qualified(rel.name)} SET TABLESPACE {ident(space)};")
                repack.append(repack_command(db, rel.name, space))
            for rel in (r for r in indexes if r.container == db):
                sql.append(f"ALTER INDEX {qualified(rel.name)} SET TABLESPACE {ident(space)};")
        if not tables and any(r.kind == "toast" for r in move.area.relations):
            sql.append("-- its TOAST relations move only with their table (ALTER TABLE ... SET TABLESPACE)")
    return sql, repack


def postgres_object_scripts(moves: Sequence[Move]) -> list[Script]:
    """postgres_objects.sql (and the pg_repack alternative) for the objects placed alone."""
    objects = _objects(moves)
    if not objects:
        return []
    sql, repack = _pg_sql(objects)
    header = ["-- Objects placed alone: each gets its own tablespace on its planned partition (mounted, an empty "
              "directory owned by postgres).", "-- " + PG_LOCK_WARNING]
    text = "\n".join(header + sql) + "\n"  # one statement a line, as a DBA reads and edits it
    scripts = [Script(name="postgres_objects.sql", language="sql", text=text, caveat=PG_LOCK_WARNING)]
    if repack:
        lines = ["#!/bin/sh", "# Online alternative: needs CREATE EXTENSION pg_repack in each database and the",
                 "# tablespaces of postgres_objects.sql (run its CREATE TABLESPACE lines first).", "set -u", *repack]
        scripts.append(Script(name="postgres_objects_repack.sh", language="shell", text="\n".join(lines) + "\n",
                              caveat="pg_repack takes short ACCESS EXCLUSIVE locks only at the start and end."))
    return scripts


ORACLE_12_2 = 120200
"""``version_num`` of Oracle 12.2: long (128-byte) names and ``ALTER TABLE ... MOVE ONLINE``
start there. The major alone cannot tell (12 for 12.1 and 12.2 both)."""


def oracle_tablespace_name(move: Move, version_num: int) -> str:
    """Upper-case name of the tablespace made for one segment (30 bytes before 12.2, 128 from
    it); a name cut to fit ends in a short hash of the whole, so two long segment names that
    start alike still get two tablespaces."""
    limit = 30 if version_num < ORACLE_12_2 else 128
    wanted = f"{move.partition}_{move.area.name}"
    whole = label(wanted, len(wanted)).replace(".", "_").upper()
    if len(whole) <= limit:
        return whole
    digest = hashlib.blake2s(wanted.encode("utf-8"), digest_size=4).hexdigest().upper()
    return f"{whole[:limit - 9].rstrip('_')}_{digest}"


def _owner_name(qualified: str) -> tuple[str, str]:
    owner, _, name = qualified.partition(".")
    return owner, name


def _rebuild_unusable(owner: str, table: str) -> str:
    return (f"BEGIN FOR i IN (SELECT owner, index_name FROM dba_indexes WHERE table_owner = {literal(owner)} "
            f"AND table_name = {literal(table)} AND status = 'UNUSABLE') LOOP "
            "EXECUTE IMMEDIATE 'ALTER INDEX \"' || i.owner || '\".\"' || i.index_name || '\" REBUILD ONLINE'; "
            "END LOOP; END;\n/")


def _lob_move(owner: str, segment: str, parent: str | None, space: str, online: bool) -> list[str]:
    if not parent:
        return [f"-- LOB segment {comment(owner)}.{comment(segment)}: its table is unknown; find it in DBA_LOBS "
                "and move it with ALTER TABLE ... MOVE LOB (column) STORE AS (TABLESPACE ...)"]
    table_owner, table = _owner_name(parent)
    prefix = f"ALTER TABLE {ident(table_owner)}.{ident(table)} MOVE{' ONLINE' if online else ''} LOB (\""
    suffix = f'") STORE AS (TABLESPACE {ident(space)})'
    return [f"DECLARE col VARCHAR2(128); BEGIN SELECT column_name INTO col FROM dba_lobs "
            f"WHERE owner = {literal(owner)} AND segment_name = {literal(segment)}; "
            f"EXECUTE IMMEDIATE {literal(prefix)} || col || {literal(suffix)}; END;\n/"]


def _segment_move(move: Move, version_num: int, space: str) -> list[str]:
    out: list[str] = []
    online = version_num >= ORACLE_12_2
    major = version_num // 10000
    for seg in move.area.relations:
        owner, name = _owner_name(seg.name)
        target = f"{ident(owner)}.{ident(name)}"
        kind = seg.kind.upper()
        part = ident(seg.partition) if seg.partition else ""
        if kind == "TABLE":
            if online:
                out.append(f"ALTER TABLE {target} MOVE ONLINE TABLESPACE {ident(space)};")
            else:
                out.append(f"ALTER TABLE {target} MOVE TABLESPACE {ident(space)};")
                out.append(_rebuild_unusable(owner, name))
        elif kind in ("TABLE PARTITION", "TABLE SUBPARTITION"):
            level = "SUBPARTITION" if kind.endswith("SUBPARTITION") else "PARTITION"
            mode = "ONLINE " if major >= 12 else ""
            out.append(f"ALTER TABLE {target} MOVE {level} {part} {mode}TABLESPACE {ident(space)} UPDATE INDEXES;")
        elif kind == "INDEX":
            out.append(f"ALTER INDEX {target} REBUILD ONLINE TABLESPACE {ident(space)};")
        elif kind in ("INDEX PARTITION", "INDEX SUBPARTITION"):
            level = "SUBPARTITION" if kind.endswith("SUBPARTITION") else "PARTITION"
            out.append(f"ALTER INDEX {target} REBUILD {level} {part} TABLESPACE {ident(space)} ONLINE;")
        elif kind in ("LOBSEGMENT", "LOB PARTITION"):
            out.extend(_lob_move(owner, name, seg.parent, space, online))
        else:
            out.append(f"-- {comment(seg.kind)} {comment(seg.name)} cannot be moved on its own: it moves with its "
                       "table or tablespace")
    return out


def oracle_object_scripts(moves: Sequence[Move], version_num: int) -> list[Script]:
    """oracle_objects.sql: a tablespace per segment placed alone, then the segment's move."""
    objects = _objects(moves)
    if not objects:
        return []
    lines = ["-- Segments placed alone: each gets its own tablespace on its planned partition.", "-- " + ORACLE_CAVEAT]
    if version_num < ORACLE_12_2:
        lines.append("-- Before 12.2 a table MOVE is offline (the table is locked and its indexes are rebuilt "
                     "after it).")
    for move in objects:
        space = oracle_tablespace_name(move, version_num)
        size = _mib(move.area.size_bytes)
        datafile = posixpath.join(move.directory, f"{label(space, 24).lower()}01.dbf")
        lines.append(f"-- {comment(move.area.name)} -> partition {comment(move.partition)}: needs {size} MiB free in "
                     f"{comment(space)} while it runs (the old segment is freed when the move ends)")
        lines.append(f"CREATE TABLESPACE {ident(space)} DATAFILE {literal(datafile)} "
                     f"SIZE {max(100, int(size * HEADROOM))}M AUTOEXTEND ON NEXT 256M;")
        lines.extend(_segment_move(move, version_num, space))
    return [Script(name="oracle_objects.sql", language="sql", text="\n".join(lines) + "\n", caveat=ORACLE_CAVEAT)]


def object_scripts(moves: Sequence[Move], dbms: str, version_num: int) -> list[Script]:
    """The object-move scripts of a plan for *dbms* (none when no object is placed alone)."""
    if dbms == "oracle":
        return oracle_object_scripts(moves, version_num)
    return postgres_object_scripts(moves)
