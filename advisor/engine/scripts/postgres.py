"""PostgreSQL scripts that carry out a plan: tablespaces, moves, pg_wal, temp, archive.

A tablespace cannot change its LOCATION in SQL, so each moved tablespace gets a new one on
the target partition and its relations move with ``ALTER TABLE/INDEX/MATERIALIZED VIEW ALL
IN TABLESPACE ... SET TABLESPACE``, which rewrites them under an ACCESS EXCLUSIVE lock
(readers and writers wait); pg_repack is the online path. ``pg_wal`` can only move while the
server is stopped (stop, mv, symlink, start). Every name and path from the database is
quoted (:mod:`advisor.engine.scripts.quoting`).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Mapping, Sequence

import sqlparse

from advisor.engine.scripts.datadir import move_datadir_script
from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.pg_cleanup import drop_old_tablespaces_sql
from advisor.engine.scripts.quoting import (
    comment,
    conninfo_value,
    ident,
    identifier_list,
    literal,
    psql_connect,
    qualified,
    shell,
)
from advisor.engine.scripts.wal import move_wal_script
from advisor.model import Script

TEMPLATES = frozenset({"template0", "template1"})
"""Databases the moves skip: template0 refuses connections, template1 holds no user tables."""

SYSTEM_SCHEMAS = ("pg_catalog.", "pg_toast.", "information_schema.")

_NOT_PLAIN = re.compile(r"[^a-z0-9_]+")

LOCK_WARNING = (
    "SET TABLESPACE rewrites each relation holding an ACCESS EXCLUSIVE lock for the whole copy: "
    "reads and writes on it wait. Run in a maintenance window, or use pg_repack (postgres_repack.sh) "
    "to move tables online."
)


def new_tablespace_name(move: Move) -> str:
    """Name of the tablespace created for *move* on its target partition.

    The partition label comes first: names starting with ``pg_`` are reserved, and the old
    name may be ``pg_default``. The name is advisor's own choice, so it is made plain
    (``[a-z0-9_]``, what needs no quoting): pg_repack 1.4 writes the ``--tablespace`` value
    into its index DDL unquoted, so a name that needs quotes breaks ``--moveidx``. When the
    old name had to be changed to fit, a short hash of it keeps two such names apart.
    """
    return plain_tablespace_name(f"{move.partition}_{move.area.tablespace or move.area.name}")


def plain_tablespace_name(wanted: str) -> str:
    """*wanted* as a tablespace name in ``[a-z0-9_]`` (a short hash when it had to change)."""
    plain = _NOT_PLAIN.sub("_", wanted.lower()).strip("_") or "area"
    if not plain[0].isalpha():
        plain = "ts_" + plain
    if plain == wanted and len(plain) <= 63:
        return plain
    digest = hashlib.blake2s(wanted.encode("utf-8"), digest_size=4).hexdigest()
    return f"{plain[:54]}_{digest}"


def _format(sql: str) -> str:
    return str(sqlparse.format(sql, reindent=True, keyword_case="upper")).strip() + "\n"


def psql_text(lines: Sequence[str]) -> str:
    """*lines* as a psql script: SQL runs laid out by sqlparse, psql meta-commands verbatim.

    sqlparse knows no ``\\connect`` and would upper-case its options, so each run of SQL
    between meta-commands is formatted on its own.
    """
    parts: list[str] = []
    for is_meta, group in itertools.groupby(lines, key=lambda line: line.startswith("\\")):
        run = list(group)
        if is_meta or all(line.startswith("--") for line in run):
            parts.append("\n".join(run) + "\n")
        else:
            parts.append(_format("\n".join(run)))
    return "".join(parts)


def _tablespace_sql(moves: Sequence[Move]) -> list[str]:
    out: list[str] = []
    for move in moves:
        if move.area.kind not in ("tablespace", "temp") or not move.area.tablespace:
            continue
        if move.area.tablespace == "pg_global":
            out.append(f"-- {comment(move.area.name)} (catalogs, pg_global) -> partition {comment(move.partition)}: "
                       "no SQL moves it; move_datadir.sh copies the data directory there with the server stopped")
            continue
        new = new_tablespace_name(move)
        out.append(f"-- {comment(move.area.name)} -> partition {comment(move.partition)}")
        out.append(f"CREATE TABLESPACE {ident(new)} LOCATION {literal(move.directory)};")
        if move.area.kind == "temp":
            continue
        for db in [c for c in move.area.containers if c not in TEMPLATES] or [""]:
            if db:
                out.append(f"-- run the next statements connected to database {comment(db)}")
                out.append(psql_connect(db))
            # a database with no index (or view) there says "no matching relations": not a failure
            out.append("SET client_min_messages = warning;")
            for what in ("TABLE", "INDEX", "MATERIALIZED VIEW"):
                out.append(
                    f"ALTER {what} ALL IN TABLESPACE {ident(move.area.tablespace)} SET TABLESPACE {ident(new)};"
                )
            out.append("RESET client_min_messages;")
            if any(r.kind == "sequence" and r.container == db for r in move.area.relations):
                out.append(f"-- its sequences stay in {comment(move.area.tablespace)}: no statement moves a sequence "
                           "alone; they follow the database's default tablespace (ALTER DATABASE ... SET "
                           "TABLESPACE, with no one connected to it)")
    temps = [new_tablespace_name(m) for m in moves if m.area.kind == "temp" and m.area.tablespace]
    if temps:
        # a list setting: identifiers, which the server stores as the list it splits again
        out.append("-- temp files go to the new temp tablespace(s)")
        out.append(f"ALTER SYSTEM SET temp_tablespaces = {identifier_list(temps)};")
        out.append("SELECT pg_reload_conf();")
    return out


def _archive_sql(moves: Sequence[Move]) -> list[str]:
    out: list[str] = []
    for move in moves:
        if move.area.kind != "archive":
            continue
        target = move.directory.replace("%", "%%")  # archive_command expands %p %f %%
        command = f"test ! -f {shell(target + '/%f')} && cp %p {shell(target + '/%f')}"
        out.append(f"-- archive to partition {comment(move.partition)} (create the directory first)")
        out.append(f"ALTER SYSTEM SET archive_command = {literal(command)};")
        out.append("SELECT pg_reload_conf();")
    return out


def postgres_sql(moves: Sequence[Move]) -> Script:
    """CREATE TABLESPACE / SET TABLESPACE / temp_tablespaces / archive_command."""
    body = _tablespace_sql(moves) + _archive_sql(moves)
    header = [
        "-- Mount the planned partitions first; each LOCATION must be an empty directory owned by the",
        "-- server's OS account. Run with psql as a superuser: psql -v ON_ERROR_STOP=1 -f postgres.sql",
        "-- (the \\connect lines move to each database in turn, keeping psql's host, port and user).",
        "-- " + LOCK_WARNING,
    ]
    return Script(name="postgres.sql", language="sql", text=psql_text(header + body), caveat=LOCK_WARNING)


def repack_script(moves: Sequence[Move]) -> Script | None:
    """pg_repack commands that move the known relations online (needs the extension)."""
    lines = ["#!/bin/sh", "# Online alternative to SET TABLESPACE: needs CREATE EXTENSION pg_repack in each database.",
             "# Each table is independent: one that pg_repack refuses (no primary key) does not stop",
             "# the others; check the output.", "set -u"]
    count = 0
    for move in moves:
        if move.area.kind != "tablespace" or move.area.tablespace == "pg_global":
            continue
        new = new_tablespace_name(move)
        for rel in move.area.relations:
            # tables only (--moveidx takes their indexes along); catalogs and TOAST move with them or not at all
            if rel.kind != "data" or rel.name.startswith(SYSTEM_SCHEMAS) or rel.container in TEMPLATES:
                continue
            lines.append(repack_command(rel.container, rel.name, new))
            count += 1
    if count == 0:
        return None
    return Script(name="postgres_repack.sh", language="shell", text="\n".join(lines) + "\n",
                  caveat="pg_repack takes short ACCESS EXCLUSIVE locks only at start and end of each table.")


def repack_command(database: str, relation: str, tablespace: str) -> str:
    """One ``pg_repack`` line moving *relation* (``schema.name``) and its indexes to *tablespace*.

    pg_repack casts ``--table`` to regclass (so the SQL-quoted qualified name, then
    shell-quoted) and pastes ``--dbname`` into a connection string (so libpq's quoting).
    """
    return (f"pg_repack --dbname={shell(conninfo_value(database))} --table={shell(qualified(relation))} "
            f"--tablespace={shell(tablespace)} --moveidx")


def postgres_scripts(moves: Sequence[Move], settings: Mapping[str, str]) -> list[Script]:
    """All PostgreSQL scripts for *moves*."""
    scripts = [postgres_sql(moves)]
    extras = (move_wal_script(moves, settings), move_datadir_script(moves, settings), repack_script(moves),
              drop_old_tablespaces_sql(moves))
    for extra in extras:
        if extra is not None:
            scripts.append(extra)
    return scripts
