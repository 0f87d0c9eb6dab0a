"""The Oracle scripts of one step of a staged migration (``--in-place`` through the disk's free space).

A step moves the files of some areas into one place (a planned partition, or an old one
holding them for a while). The statements are the plan's own (:mod:`advisor.engine.scripts.oracle`)
aimed at that place:

* **12.1 and later**: ``ALTER DATABASE MOVE DATAFILE '...' TO '...'``, online, which only
  Enterprise Edition has. The snapshot states the release (``version_num``) but not the
  edition, so ``stepNN-oracle.sql`` first checks the edition where it runs (the ``Oracle
  Database ... Enterprise Edition`` line of ``V$VERSION``) and stops on any other; the
  offline alternative is written beside it (``stepNN-oracle-offline.sql``);
* **before 12.1**, and the alternative on Standard Edition: each tablespace goes
  ``OFFLINE NORMAL``, ``stepNN-oracle_move_files.sh`` moves its files when the SQL pauses,
  ``ALTER DATABASE RENAME FILE`` records the new names, and it goes ``ONLINE`` again
  (SYSTEM and the active undo in MOUNT state);
* temp files are added at the new place and the old ones dropped; redo logs move by adding
  new groups there and dropping the old ones once INACTIVE.

Between steps the files have new names: each step's areas are carried on with the paths
(and redo group numbers) the previous step gave them. Control files and the FRA are not
staged: they would leave files in a partition to be deleted (the control file copy and the
FRA's ageing files), and a control-file move needs a shutdown the steps do not plan; the
plan is refused with what to do first.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import replace

from advisor.engine.areas import Relation
from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.oracle import oracle_scripts
from advisor.engine.scripts.steps import room_check_script
from advisor.errors import BadInput
from advisor.model import Script

ONLINE_MAJOR = 12
"""ALTER DATABASE MOVE DATAFILE came with 12.1."""

OFFLINE_AS = 11
"""The release whose statements :func:`oracle_scripts` writes for an offline move."""

GROUP = re.compile(r"group\s*#?\s*(\d+)", re.IGNORECASE)
"""A redo log group's number in its relation name, as :mod:`advisor.engine.scripts.oracle` reads it."""

STAGED_KINDS = frozenset({"tablespace", "undo", "temp", "wal"})

ENTERPRISE_CHECK = (
    "DECLARE edition_line VARCHAR2(400); BEGIN SELECT MAX(banner) INTO edition_line FROM v$version "
    "WHERE banner LIKE 'Oracle Database%'; IF edition_line IS NULL OR edition_line NOT LIKE '%Enterprise Edition%' "
    "THEN RAISE_APPLICATION_ERROR(-20001, 'not Enterprise Edition: no online MOVE DATAFILE here; run {offline} "
    "instead'); END IF; END;"
)


def refuse_unstaged(moves: Sequence[Move], disk: str) -> None:
    """BadInput naming what the steps cannot move off *disk* (control files, FRA) and what to do first."""
    left = [m.area for m in moves if m.area.kind not in STAGED_KINDS]
    if not left:
        return
    what = ", ".join(f"{a.name} ({a.kind})" for a in left)
    raise BadInput(f"--in-place: {what} on {disk} cannot be staged: move the control files (CONTROL_FILES in the "
                   "spfile, SHUTDOWN IMMEDIATE, copy them, STARTUP) and the FRA (DB_RECOVERY_FILE_DEST) to another "
                   "disk first, then plan again")


def _renamed(script: Script, prefix: str, name: str) -> Script:
    text = script.text.replace("oracle_move_files.sh", f"{prefix}-oracle_move_files.sh")
    return replace(script, name=name, text=text)


def _offline(moves: Sequence[Move], prefix: str, name: str) -> list[Script]:
    out = []
    for script in oracle_scripts(moves, OFFLINE_AS):
        if script.name == "oracle.sql":
            out.append(_renamed(script, prefix, name))
        elif script.name == "oracle_move_files.sh":
            out.append(_renamed(script, prefix, f"{prefix}-oracle_move_files.sh"))
    return out


def oracle_step_scripts(number: int, moves: Sequence[Move], where: str, need_bytes: int, major: int) -> list[Script]:
    """The check and SQL (and shell, offline) of one step that moves *moves* into *where*."""
    prefix = f"step{number:02d}"
    scripts = [room_check_script(f"{prefix}-check.sh", where, need_bytes, [m.directory for m in moves],
                                 f"Step {number}, first")]
    if major < ONLINE_MAJOR:
        return scripts + _offline(moves, prefix, f"{prefix}-oracle.sql")
    if not {m.area.kind for m in moves} & {"tablespace", "undo"}:  # temp files and redo: the same on every edition
        return scripts + [_renamed(s, prefix, f"{prefix}-oracle.sql") for s in oracle_scripts(moves, major)
                          if s.name == "oracle.sql"]
    offline_name = f"{prefix}-oracle-offline.sql"
    online = next(s for s in oracle_scripts(moves, major) if s.name == "oracle.sql")
    lines = online.text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("WHENEVER")) + 1
    check = ["-- ALTER DATABASE MOVE DATAFILE is Enterprise Edition only: stop on any other edition",
             ENTERPRISE_CHECK.format(offline=offline_name), "/"]
    text = "\n".join([*lines[:head], *check, *lines[head:]]) + "\n"
    scripts.append(replace(online, name=f"{prefix}-oracle.sql", text=text))
    return scripts + _offline(moves, prefix, offline_name)


def moved_on(move: Move) -> Move:
    """*move*'s area as the step leaves it: its files renamed into the move's directory, redo in new groups."""
    area = move.area
    if area.kind == "wal":
        groups = sorted({int(m.group(1)) for r in area.relations if (m := GROUP.search(r.name))})
        first_new = (max(groups) if groups else 10) + 1
        count = max(len(groups), 3)
        numbers = range(first_new, first_new + count)
        relations = tuple(Relation(area.containers[0] if area.containers else "", f"group {n}", "redo")
                          for n in numbers)
        paths = tuple(posixpath.join(move.directory, f"redo{n:02d}.log") for n in numbers)
        return replace(move, area=replace(area, relations=relations, paths=paths))
    paths = tuple(posixpath.join(move.directory, posixpath.basename(p) or "file.dbf") for p in area.paths)
    return replace(move, area=replace(area, paths=paths))
