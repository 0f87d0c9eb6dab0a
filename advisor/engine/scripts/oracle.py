"""Oracle scripts that carry out a plan: datafile moves, redo, temp, FRA and ASM IDP.

12.1+ moves datafiles online (``ALTER DATABASE MOVE DATAFILE``); before that the tablespace
goes offline, the file is moved by the OS and renamed in the control file. Redo moves by
adding groups on the target, switching and dropping the old groups once INACTIVE; temp by
adding a tempfile and dropping the old one; the FRA by setting DB_RECOVERY_FILE_DEST (size
first). Files in ASM cannot be placed by path: for ASM on whole raw disks, Intelligent Data
Placement (deprecated since 12.2) marks files HOT or COLD and a rebalance moves them.

The scripts are for SQL*Plus (or SQLcl), which reads every line before Oracle does: they
start with ``SET DEFINE OFF`` (an ``&`` in a path would prompt for a substitution variable)
and ``WHENEVER SQLERROR EXIT FAILURE``, put every statement and SQL*Plus command on a line
of its own, and wait with ``PAUSE`` where the files must be moved by the shell script, whose
steps are numbered so each run moves only the files of that step. A name or path holding a
line break or another control character cannot be written safely for SQL*Plus: its move is
left out with a comment that says which it holds.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.quoting import comment, control_held, ident, literal, one_line, shell
from advisor.model import Script

IDP_CAVEAT = (
    "ASM Intelligent Data Placement is deprecated since 12.2. It needs COMPATIBLE.ASM and "
    "COMPATIBLE.RDBMS >= 11.2, works only on whole physical disks (JBOD), not on thin-provisioned, "
    "virtualised or array LUNs, Exadata or flash, and helps most when the disk group is more than 25 % full. "
    "With NORMAL/HIGH redundancy, MIRRORHOT/MIRRORCOLD place the mirror copies too. "
    "New regions apply to new extents; the REBALANCE moves existing ones."
)

_GROUP = re.compile(r"group\s*#?\s*(\d+)", re.IGNORECASE)

SQLPLUS_HEADER = (
    "-- Run in SQL*Plus or SQLcl as a DBA (SYSDBA where it shuts the instance down).",
    "SET DEFINE OFF",
    "WHENEVER SQLERROR EXIT FAILURE",
)


def _sqlplus(lines: Sequence[str]) -> str:
    """One statement or command per line; a blank line before each commented section."""
    out = list(SQLPLUS_HEADER)
    for line in lines:
        if line.startswith("-- ") and out and not out[-1].startswith("--"):
            out.append("")
        out.append(line)
    return "\n".join(out) + "\n"


def _scriptable(move: Move, names: Sequence[str], sql: list[str]) -> bool:
    """False (and a comment saying why) when a name or path would break across SQL*Plus lines."""
    broken = [text for text in (*names, move.directory) if not one_line(text)]
    if not broken:
        return True
    sql.append(f"-- {comment(move.area.name)}: a name or path holds {control_held(broken[0])}, which SQL*Plus "
               "cannot read inside a literal; move it by hand")
    return False


class _Steps:
    """The numbered steps of oracle_move_files.sh, each run where oracle.sql pauses."""

    def __init__(self) -> None:
        self.steps: list[list[str]] = []

    def add(self, commands: Sequence[str], sql: list[str], when: str) -> None:
        self.steps.append(list(commands))
        sql.append(f"PAUSE {when}: run  sh oracle_move_files.sh {len(self.steps)}  then press Enter")

    def script(self) -> str:
        lines = ["#!/bin/sh", "# Run each step when oracle.sql pauses for it: sh oracle_move_files.sh STEP",
                 "set -eu", 'case "${1:-}" in']
        for number, commands in enumerate(self.steps, start=1):
            lines += [f"{number})", *(f"    {command}" for command in commands), "    ;;"]
        lines += ["*)", f'    echo "usage: $0 STEP (1 to {len(self.steps)}, as oracle.sql says)" >&2',
                  "    exit 2", "    ;;", "esac"]
        return "\n".join(lines) + "\n"


def _target(move: Move, path: str) -> str:
    return posixpath.join(move.directory, posixpath.basename(path) or "file.dbf")


def _is_asm(path: str) -> bool:
    return path.startswith("+")


def _files(move: Move) -> list[str]:
    """The area's file paths that a path-based move can handle (not ASM, not unknown)."""
    return [p for p in move.area.paths if p and not _is_asm(p)]


def _moves(move: Move, paths: Sequence[str]) -> list[str]:
    """Shell commands of one step: the target directory, then one mv per file."""
    return [f"mkdir -p {shell(move.directory)}", *(f"mv {shell(p)} {shell(_target(move, p))}" for p in paths)]


def _container(move: Move, sql: list[str]) -> None:
    """In a CDB a tablespace belongs to its PDB: the statements run there."""
    for container in move.area.containers[:1]:
        sql.append(f"-- in a CDB: ALTER SESSION SET CONTAINER = {comment(container)} first (skip for a non-CDB)")


MOVE_EACH_FILE = ("BEGIN FOR f IN ({listing}) LOOP EXECUTE IMMEDIATE 'ALTER DATABASE MOVE DATAFILE ''' || "
                  "f.file_name || ''' TO ''' || {target} || SUBSTR(f.file_name, INSTR(f.file_name, '/', -1) + 1) "
                  "|| ''''; END LOOP; END;")
"""One line of PL/SQL: every data file the listing returns moved online into the target directory."""


def _whole_tablespace(move: Move, tablespace: str, major: int, sql: list[str]) -> None:
    """Move every data file of a tablespace the workload knows only as a whole (no file names).

    The report gave per-tablespace figures only, so the files are listed where the script runs
    (DBA_DATA_FILES) and each is moved online (12.1+); before 12c they are listed for a move by hand.
    """
    sql.append(f"-- tablespace {comment(tablespace)} -> partition {comment(move.partition)}: the whole tablespace "
               "(the report names no files), every data file of it")
    _container(move, sql)
    listing = f"SELECT file_name FROM dba_data_files WHERE tablespace_name = {literal(tablespace)}"
    if major < 12:
        sql.append("-- before 12c: take it OFFLINE, move the files this lists, RENAME FILE each, then ONLINE")
        sql.append(f"{listing};")
        return
    sql.append(f"-- first: mkdir -p {comment(move.directory)} (owned by the oracle user)")
    sql.append(MOVE_EACH_FILE.format(listing=listing, target=literal(move.directory.rstrip("/") + "/")))
    sql.append("/")


def _datafiles(move: Move, major: int, sql: list[str], steps: _Steps) -> None:
    tablespace = move.area.tablespace or move.area.name
    paths = _files(move)
    if move.area.whole_tablespace and not paths and _scriptable(move, [tablespace], sql):
        _whole_tablespace(move, tablespace, major, sql)
        return
    if not paths or not _scriptable(move, [tablespace, *paths], sql):
        return
    sql.append(f"-- tablespace {comment(tablespace)} -> partition {comment(move.partition)}")
    if major >= 12:
        sql.append(f"-- first: mkdir -p {comment(move.directory)} (owned by the oracle user)")
        for path in paths:
            sql.append(f"ALTER DATABASE MOVE DATAFILE {literal(path)} TO {literal(_target(move, path))};")
        return
    if move.area.kind == "undo" or tablespace.upper() == "SYSTEM":
        # SYSTEM and the active undo tablespace cannot go offline: move them in MOUNT state
        sql.append("SHUTDOWN IMMEDIATE")
        sql.append("STARTUP MOUNT")
        steps.add(_moves(move, paths), sql, "Instance mounted")
        for path in paths:
            sql.append(f"ALTER DATABASE RENAME FILE {literal(path)} TO {literal(_target(move, path))};")
        sql.append("ALTER DATABASE OPEN;")
        return
    sql.append(f"ALTER TABLESPACE {ident(tablespace)} OFFLINE NORMAL;")
    steps.add(_moves(move, paths), sql, "Tablespace offline")
    for path in paths:
        sql.append(f"ALTER DATABASE RENAME FILE {literal(path)} TO {literal(_target(move, path))};")
    sql.append(f"ALTER TABLESPACE {ident(tablespace)} ONLINE;")


def _redo(move: Move, sql: list[str]) -> None:
    groups = sorted({int(m.group(1)) for r in move.area.relations if (m := _GROUP.search(r.name))})
    first_new = (max(groups) if groups else 10) + 1
    count = max(len(groups), 3)
    size_mb = max(64, int(move.area.size_bytes / max(1, len(move.area.paths)) / (1 << 20)))
    if not _scriptable(move, [], sql):
        return
    sql.append(f"-- redo -> partition {comment(move.partition)}: add groups, switch, drop the old ones when INACTIVE")
    for n in range(first_new, first_new + count):
        path = posixpath.join(move.directory, f"redo{n:02d}.log")
        sql.append(f"ALTER DATABASE ADD LOGFILE GROUP {n} ({literal(path)}) SIZE {size_mb}M;")
    sql.append("ALTER SYSTEM SWITCH LOGFILE;")
    sql.append("ALTER SYSTEM CHECKPOINT;")
    sql.append("-- check V$LOG: drop each old group only when STATUS = 'INACTIVE' and ARCHIVED = 'YES'")
    if not groups:
        sql.append("-- (old group numbers unknown: list them with SELECT GROUP#, STATUS, ARCHIVED FROM V$LOG)")
    for n in groups:
        sql.append(f"ALTER DATABASE DROP LOGFILE GROUP {n};")


def _temp(move: Move, sql: list[str]) -> None:
    tablespace = move.area.tablespace or "TEMP"
    paths = _files(move)
    if not _scriptable(move, [tablespace, *paths], sql):
        return
    size_mb = max(100, int(move.area.size_bytes / max(1, len(paths)) / (1 << 20)))
    sql.append(f"-- temp {comment(tablespace)} -> partition {comment(move.partition)}")
    if move.area.whole_tablespace and not paths:  # no file names: one new tempfile, the old ones listed
        _container(move, sql)
        target = literal(posixpath.join(move.directory, f"{tablespace.lower()}01.dbf"))
        sql.append(f"ALTER TABLESPACE {ident(tablespace)} ADD TEMPFILE {target} SIZE {size_mb}M;")
        sql.append("-- then drop each old tempfile this lists: ALTER DATABASE TEMPFILE '<name>' DROP INCLUDING "
                   "DATAFILES")
        sql.append(f"SELECT file_name FROM dba_temp_files WHERE tablespace_name = {literal(tablespace)};")
        return
    for path in paths:
        sql.append(f"ALTER TABLESPACE {ident(tablespace)} ADD TEMPFILE {literal(_target(move, path))} SIZE {size_mb}M;")
    for path in paths:
        sql.append(f"ALTER DATABASE TEMPFILE {literal(path)} DROP INCLUDING DATAFILES;")


def _fra(move: Move, sql: list[str]) -> None:
    if not _scriptable(move, [], sql):
        return
    size_gb = max(1, -(-move.area.size_bytes * 2 // (1 << 30)))
    sql.append(f"-- FRA -> partition {comment(move.partition)}: size first; existing files stay and age out")
    sql.append(f"ALTER SYSTEM SET DB_RECOVERY_FILE_DEST_SIZE = {size_gb}G SCOPE=BOTH SID='*';")
    sql.append(f"ALTER SYSTEM SET DB_RECOVERY_FILE_DEST = {literal(move.directory)} SCOPE=BOTH SID='*';")


def _control(move: Move, sql: list[str], steps: _Steps) -> None:
    paths = _files(move)
    if not paths or not _scriptable(move, paths, sql):
        return
    targets = [_target(move, p) for p in paths]
    sql.append(f"-- control files -> partition {comment(move.partition)}: takes effect at the next startup")
    # a list setting: one literal per file, never one literal holding the list
    sql.append(f"ALTER SYSTEM SET CONTROL_FILES = {', '.join(literal(t) for t in targets)} SCOPE=SPFILE;")
    steps.steps.append([f"mkdir -p {shell(move.directory)}",
                        *(f"cp -p {shell(path)} {shell(target)}" for path, target in zip(paths, targets, strict=True))])
    sql.append(f"-- then SHUTDOWN IMMEDIATE, run  sh oracle_move_files.sh {len(steps.steps)}  (it copies the "
               "control files), STARTUP")


def _idp(moves: Sequence[Move]) -> list[str]:
    out: list[str] = []
    groups: set[str] = set()
    for move in moves:
        region = "HOT MIRRORHOT" if move.hot else "COLD MIRRORCOLD"
        for path in move.area.paths:
            if not _is_asm(path):
                continue
            if not one_line(path):
                out.append(f"-- {comment(path)}: the path holds {control_held(path)}, which SQL*Plus cannot read; "
                           "set its region by hand")
                continue
            group = path[1:].split("/", 1)[0]
            groups.add(group)
            out.append(f"ALTER DISKGROUP {ident(group.upper())} MODIFY FILE {literal(path)} ATTRIBUTE ({region});")
    for group in sorted(groups):
        out.append(f"ALTER DISKGROUP {ident(group.upper())} REBALANCE POWER 4;")
    return out


def oracle_scripts(moves: Sequence[Move], major: int) -> list[Script]:
    """oracle.sql (+ oracle_move_files.sh before 12c, oracle_asm_idp.sql for ASM files)."""
    sql: list[str] = []
    steps = _Steps()
    # control files last: their copy waits for a shutdown, after every other step has run
    for move in sorted(moves, key=lambda m: m.area.kind == "control"):
        if move.area.kind in ("tablespace", "undo"):
            _datafiles(move, major, sql, steps)
        elif move.area.kind == "wal":
            _redo(move, sql)
        elif move.area.kind == "temp":
            _temp(move, sql)
        elif move.area.kind == "archive":
            _fra(move, sql)
        elif move.area.kind == "control":
            _control(move, sql, steps)
    scripts = []
    caveat = ("ALTER DATABASE MOVE DATAFILE is online (12.1+, Enterprise Edition); in a CDB run it in the owning "
              "PDB. Before 12c the tablespace is offline while its files move.")
    if sql:
        scripts.append(Script(name="oracle.sql", language="sql", text=_sqlplus(sql), caveat=caveat))
    if steps.steps:
        scripts.append(Script(name="oracle_move_files.sh", language="shell", text=steps.script()))
    idp = _idp(moves)
    if idp:
        scripts.append(Script(name="oracle_asm_idp.sql", language="sql", text=_sqlplus(idp), caveat=IDP_CAVEAT))
    return scripts
