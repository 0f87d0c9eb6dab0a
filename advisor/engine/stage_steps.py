"""The staged migration through the disk's own free space: steps and their scripts (no spare).

:func:`advisor.engine.stage_order.order_moves` finds the order; this module writes one or
two scripts per step, numbered in the order they run (``step01-partitions.sh``,
``step02-check.sh`` and ``step02-move.sql``, ``step03-move_wal.sh``, ``step04-drop.sh`` ...),
and a :class:`~advisor.model.MigrationStage` per step with the space it needs, what is
offline and for how long: a copy on the same disk reads and writes every byte there, so
twice its bytes at the disk's slowest sequential rate. The tablespaces keep their names
(each move renames the new one to the old name), so the plan's ``postgres.sql``,
``move_wal.sh`` and ``postgres_drop_old.sql`` are not part of this path: the steps put every
area where the plan wants it; single objects the plan places alone move last, with the
plan's ``postgres_objects.sql``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.steps import (
    create_partitions_script,
    drop_partitions_script,
    retablespace_sql,
    room_check_script,
)
from advisor.engine.scripts.wal import move_wal_script
from advisor.engine.stage_oracle import ONLINE_MAJOR, moved_on, oracle_step_scripts, refuse_unstaged
from advisor.engine.stage_order import HOLD_ROOM, Step, order_moves
from advisor.errors import BadInput
from advisor.model import HostLayout, MigrationStage, Plan, Script
from advisor.units import DISK_MB, MIB

if TYPE_CHECKING:
    from advisor.engine.stages import Disk

HOLD_DIR = "advisor-staging"
"""The directory inside an old partition's file system that holds areas for a while."""

REPLACED = frozenset({"postgres.sql", "move_wal.sh", "postgres_drop_old.sql", "postgres_repack.sh", "oracle.sql",
                      "oracle_move_files.sh"})
"""The plan's scripts whose work the steps do (they would move the areas a second time)."""


def _gib(nbytes: float) -> str:
    return f"{nbytes / (1 << 30):,.2f} GiB"


def _partition_of(move: Move, layout: HostLayout, disk: Disk) -> int:
    """The number of the old partition that holds *move*'s area: by its located files, else by mount point."""
    numbers = {p.name: p.number for p in disk.partitions}
    located = {loc.path: loc.partition for loc in layout.locations}
    mounts = sorted(((m, p.number) for p in disk.partitions for m in p.mountpoints), key=lambda mp: -len(mp[0]))
    for path in move.area.paths:
        name = located.get(path)
        if name in numbers:
            return numbers[name]
        resolved = layout.mapped_paths.get(path, path)
        for mount, number in mounts:
            if resolved == mount or resolved.startswith(mount.rstrip("/") + "/"):
                return number
    raise BadInput(f"--in-place: no partition of {disk.name} is known to hold {move.area.name}, so no order of moves "
                   "on the disk can be found: stage through a spare directory on another disk (--spare DIR)")


def _sizes(moves: Sequence[Move]) -> dict[str, int]:
    """Each area's bytes; an object placed alone counts in its tablespace, with whose relations it moves."""
    sizes = {m.area.name: max(m.area.size_bytes, MIB) for m in moves if m.area.kind != "object"}
    by_tablespace = {m.area.tablespace: m.area.name for m in moves if m.area.kind == "tablespace"}
    for move in moves:
        if move.area.kind == "object" and by_tablespace.get(move.area.tablespace) in sizes:
            sizes[by_tablespace[move.area.tablespace]] += move.area.size_bytes
    return sizes


def _move_scripts(number: int, step: Step, by_area: dict[str, Move], hold: bool,
                  settings: Mapping[str, str]) -> list[Script]:
    moves = [replace(by_area[m.area], mount=posixpath.join(m.target, HOLD_DIR) if hold else m.target,
                     partition=m.target_label) for m in step.moves]
    spaces = [m for m in moves if m.area.kind in ("tablespace", "temp") and m.area.tablespace]
    wal_moves = [m for m in moves if m.area.kind == "wal"]
    prefix = f"step{number:02d}"
    where = step.moves[0].target
    need = int(sum(max(m.area.size_bytes, MIB) for m in [*spaces, *wal_moves]) * HOLD_ROOM)
    # pg_wal itself must not exist (move_wal.sh moves it there): its parent is made ready
    scripts = [room_check_script(f"{prefix}-check.sh", where, need, [m.directory for m in spaces],
                                 f"Step {number}, first", [m.mount for m in wal_moves])]
    if spaces:
        header = [f"Step {number}: " + ("hold " if hold else "move ") + ", ".join(m.area.name for m in spaces)
                  + f" in {where}. Run with psql as a superuser: psql -v ON_ERROR_STOP=1 -f {prefix}-move.sql.",
                  "Each relation is locked (ACCESS EXCLUSIVE) while it is copied; each tablespace keeps its name."]
        scripts.append(retablespace_sql(spaces, f"{prefix}-move.sql", header, f"step{number}"))
    wal = move_wal_script(wal_moves, settings)
    if wal is not None:
        scripts.append(replace(wal, name=f"{prefix}-move_wal.sh"))
    return scripts


def _oracle_offline(major: int, names: Sequence[str]) -> str:
    if major >= ONLINE_MAJOR and not any(n.endswith("-oracle-offline.sql") for n in names):
        return "nothing (temp files are added and the old ones dropped; redo groups are added and switched)"
    if major >= ONLINE_MAJOR:
        return ("nothing on Enterprise Edition (MOVE DATAFILE is online); elsewhere each tablespace while its files "
                "are copied (the -offline.sql)")
    return "each tablespace while its files are copied (OFFLINE NORMAL; SYSTEM and undo: the instance, MOUNT)"


def _stage(number: int, step: Step, scripts: Sequence[Script], disk: Disk, oracle_major: int | None) -> MigrationStage:
    names = tuple(s.name for s in scripts)
    if step.kind == "create":
        what = ", ".join(f"{p.label} (number {p.number})" for p in step.created)
        return MigrationStage(number, f"make partitions {what} in free space", names,
                              sum(p.size_bytes for p in step.created), f"free space of {disk.name}",
                              "nothing (the new partitions are not used yet)", None,
                              f"{names[0]}: each number is free; sfdisk refuses a span that overlaps a partition")
    if step.kind == "drop":
        what = ", ".join(p.name for p in step.dropped)
        return MigrationStage(number, f"delete the emptied partitions {what}", names, 0, disk.name,
                              "nothing of the database (the partitions are empty)", None,
                              f"{names[0]}: no partition to delete holds a file (empty directories aside)")
    moved = sum(m.size_bytes for m in step.moves)
    wal = any(s.name.endswith("move_wal.sh") for s in scripts)
    has_sql = any(s.language == "sql" for s in scripts)
    verb = "hold" if step.kind == "hold" else "move"
    seconds = round(2 * moved / (disk.slowest_mb_s_decimal * DISK_MB), 1) if disk.slowest_mb_s_decimal else None
    offline = ("; ".join(["each relation while it is copied (ACCESS EXCLUSIVE lock)"] * has_sql
                         + ["the server while pg_wal moves"] * wal) if oracle_major is None
               else _oracle_offline(oracle_major, names))
    return MigrationStage(number, f"{verb} {', '.join(m.area for m in step.moves)} into {step.moves[0].target_label}",
                          names, int(moved * HOLD_ROOM), step.moves[0].target, offline, seconds,
                          f"{names[0]}: the free space at the target (df) and empty directories")


def _oracle_step(number: int, step: Step, by_area: dict[str, Move], hold: bool, major: int) -> list[Script]:
    """The step's Oracle scripts; *by_area* is carried on with the names the step gives the files."""
    moves = [replace(by_area[m.area], mount=posixpath.join(m.target, HOLD_DIR) if hold else m.target,
                     partition=m.target_label) for m in step.moves]
    need = int(sum(max(m.area.size_bytes, MIB) for m in moves) * HOLD_ROOM)
    scripts = oracle_step_scripts(number, moves, step.moves[0].target, need, major)
    for move in moves:
        by_area[move.area.name] = moved_on(move)
    return scripts


def staged_in_disk(plan: Plan, moves: Sequence[Move], layout: HostLayout, disk: Disk,
                   settings: Mapping[str, str], oracle_major: int | None = None) -> Plan:
    """*plan* with the steps that reach it through the disk's own free space, or BadInput with the space needed.

    *oracle_major* is the Oracle release (None: PostgreSQL), which decides the statements.
    """
    if oracle_major is not None:
        refuse_unstaged(moves, disk.name)
    by_area = {m.area.name: m for m in moves}
    sizes = _sizes(moves)
    where = {m.area.name: _partition_of(m, layout, disk) for m in moves if m.area.name in sizes}
    mount_of_label = {p.label: next((m.mount for m in moves if m.partition == p.label), "") for p in plan.partitions}
    root = posixpath.dirname(next(iter(m.mount for m in moves))) if moves else ""
    mount_of_label = {k: v or posixpath.join(root, k) for k, v in mount_of_label.items()}
    target_of = {m.area.name: m.partition for m in moves if m.area.name in sizes}
    steps = order_moves(disk.size_bytes, disk.partitions, plan.partitions, sizes, where, mount_of_label, target_of)
    scripts: list[Script] = []
    stages: list[MigrationStage] = []
    for number, step in enumerate(steps, 1):
        name = f"step{number:02d}"
        if step.kind == "create":
            made = [(p.number, p.start_bytes, p.size_bytes, p.label, mount_of_label[p.label]) for p in step.created]
            these = [create_partitions_script(f"{name}-partitions.sh", disk.path, disk.sector_bytes, made)]
        elif step.kind == "drop":
            these = [drop_partitions_script(f"{name}-drop.sh", disk.path, step.dropped)]
        elif oracle_major is not None:
            these = _oracle_step(number, step, by_area, step.kind == "hold", oracle_major)
        else:
            these = _move_scripts(number, step, by_area, step.kind == "hold", settings)
        scripts += these
        stages.append(_stage(number, step, these, disk, oracle_major))
    objects = next((s for s in plan.scripts if s.name == "postgres_objects.sql"), None)
    if objects is not None:
        stages.append(MigrationStage(len(stages) + 1, "move the objects placed alone", (objects.name,), 0,
                                     "the planned partitions", "each relation while it is copied", None,
                                     "postgres_objects.sql checks each relation before it moves it"))
    notes = [f"step {s.number}: {s.title} ({', '.join(s.scripts)}); needs {_gib(s.needs_bytes)} in {s.needs_where}; "
             f"offline: {s.offline}" + (f", about {s.offline_s:,.0f} s at {disk.slowest_mb_s_decimal:,.0f} MB/s"
                                         if s.offline_s is not None and disk.slowest_mb_s_decimal else "")
             for s in stages]
    kept = tuple(s for s in plan.scripts if s.name not in REPLACED)
    return replace(plan, scripts=(*scripts, *kept), stages=tuple(stages), notes=(*plan.notes, *notes))
