"""A staged migration: from today's partitions to the planned ones on the disk that holds the data.

The planned partitions of a report overlap the ones in use (a planned ``hot1`` of 2 GiB may
cover two of today's partitions and fit in neither), so the plan cannot be applied to the
disk as it is. Without a spare, :mod:`advisor.engine.stage_steps` finds an order of steps
through the disk's own free space. With one, the stages below reach it through the spare
directory the user names (``--spare``, on another disk):

1. **evacuate**: every area on the disk moves to the spare. A tablespace gets a spare
   tablespace there, its relations move with ``ALTER ... ALL IN TABLESPACE ... SET
   TABLESPACE`` (an ACCESS EXCLUSIVE lock per relation while it is copied), the emptied old
   tablespace is dropped and the spare one takes its name, so the plan's own scripts apply
   unchanged in stage 3; temp files need no copy (the spare tablespace takes the name);
   ``pg_wal`` moves with the server stopped (``move_wal.sh``, aimed at the spare).
2. **repartition**: with nothing of the database left on the disk, its partitions are
   checked empty, unmounted, the planned table written (``sfdisk``, then ``blockdev
   --rereadpt``: nothing of the disk is mounted), and the new partitions made (``mkfs.ext4``
   without lazy initialisation) and mounted where the plan expects them.
3. **move in**: the plan's own scripts (``postgres.sql``, ``move_wal.sh``, then
   ``postgres_drop_old.sql`` for the spare tablespaces).

The order that fits is the only one offered: the spare must hold everything the disk
holds for the database at once; the plan is refused with that figure when the spare is
known to be smaller, and each stage's first script checks its own space before it changes
anything. A data directory on the disk is refused: its path lives on a partition that
stage 2 remakes, so the service could not find it again.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.quoting import comment, shell
from advisor.engine.scripts.steps import NODE_FUNCTION, retablespace_sql, spare_device_script, staging_tablespace
from advisor.engine.scripts.wal import move_wal_script
from advisor.engine.stage_steps import staged_in_disk
from advisor.errors import BadInput
from advisor.model import HostLayout, MigrationStage, Partition, Plan, PlannedPartition, Script
from advisor.units import DISK_MB, MIB

if TYPE_CHECKING:
    from advisor.disk.physics import DiskPhysics
    from advisor.engine.classify import Classified
    from advisor.engine.planner import PlanOptions

SPARE_ROOM = 1.1
"""The spare must hold the evacuated bytes plus 10 %: a relation being copied exists twice
until its copy commits, and ext4 needs some room of its own."""


@dataclass(frozen=True, slots=True)
class Disk:
    """The disk being remade: its device path, today's partitions and its slowest sequential rate."""

    name: str
    path: str
    partitions: tuple[Partition, ...]
    slowest_mb_s_decimal: float | None
    size_bytes: int = 0
    sector_bytes: int = 512


def _gib(nbytes: float) -> str:
    return f"{nbytes / (1 << 30):,.2f} GiB"


def _seconds(nbytes: int, disk: Disk) -> float | None:
    return round(nbytes / (disk.slowest_mb_s_decimal * DISK_MB), 1) if disk.slowest_mb_s_decimal else None


def spare_tablespace(tablespace: str) -> str:
    """The name of the stage-1 tablespace on the spare (renamed to *tablespace* once that is dropped)."""
    return staging_tablespace(tablespace, "spare")


def _evacuate_sql(moves: Sequence[Move]) -> Script:
    header = ["Stage 1 of 3: move every tablespace of the disk to the spare. Run with psql as a superuser:",
              "psql -v ON_ERROR_STOP=1 -f stage1-evacuate.sql. Each relation is locked (ACCESS EXCLUSIVE) while",
              "it is copied; the old tablespace is dropped once empty and the spare one takes its name."]
    return replace(retablespace_sql(moves, "stage1-evacuate.sql", header, "spare"),
                   caveat="Each relation is locked while it is copied to the spare.")


def _check_script(spare: str, need: int, directories: Sequence[str]) -> Script:
    lines = ["#!/bin/sh", "# Stage 1 of 3, first: the spare has the room and the directories stage 1 writes into.",
             "# Run as the server's OS account.", "set -eu", f"SPARE={shell(spare)}", f"NEED_KB={need // 1024}",
             'FREE_KB=$(df -Pk "$SPARE" | awk \'NR == 2 {print $4}\')',
             'if [ "$FREE_KB" -lt "$NEED_KB" ]; then',
             '  echo "refused: the spare $SPARE has $FREE_KB KiB free, stage 1 needs $NEED_KB KiB" >&2; exit 1', "fi"]
    for directory in directories:
        lines.append(f"mkdir -p {shell(directory)} && test -z \"$(ls -A {shell(directory)})\" || "
                     f"{{ echo {shell('not an empty directory: ' + directory)} >&2; exit 1; }}")
    lines.append('echo "the spare holds $FREE_KB KiB free, stage 1 needs $NEED_KB KiB: go on"')
    return Script(name="stage1-check.sh", language="shell", text="\n".join(lines) + "\n",
                  caveat="Changes nothing but the empty directories it creates on the spare.")


def _repartition_script(disk: Disk, plan_parts: Sequence[PlannedPartition], sfdisk_name: str,
                        mount_root: str) -> Script:
    mounts = sorted({m for p in disk.partitions for m in p.mountpoints})
    lines = ["#!/bin/sh",
             f"# Stage 2 of 3: remake {comment(disk.path)} with the planned partitions. Run as root after stage 1.",
             "# Nothing of the database is on the disk now: every partition is checked empty first, then",
             "# unmounted, the planned table written, re-read (nothing mounted: blockdev --rereadpt), and the",
             "# new file systems made and mounted. Remove the old partitions' lines from /etc/fstab.",
             "set -eu", f"DEVICE={shell(disk.path)}", f"TABLE=\"$(dirname \"$0\")/{sfdisk_name}\"",
             'test -f "$TABLE" || { echo "no $TABLE beside this script" >&2; exit 1; }']
    for mount in mounts:
        # empty directories (a dropped tablespace's LOCATION) may stay; any file refuses
        lines.append(f"left=$(find {shell(mount)} -mindepth 1 -path {shell(mount + '/lost+found')} -prune "
                     "-o ! -type d -print | head -n 3)")
        lines.append(f'test -z "$left" || {{ echo "refused: {comment(mount)} still holds: $left" >&2; exit 1; }}')
    lines += [f"umount {shell(m)}" for m in mounts]
    lines += ['busy=$(lsblk -nro MOUNTPOINT "$DEVICE" | grep -v "^$" || true)',
              'test -z "$busy" || { echo "refused: still mounted from $DEVICE: $busy" >&2; exit 1; }',
              'wipefs -q -a $(lsblk -nrpo NAME "$DEVICE" | tail -n +2) 2>/dev/null || true',
              "# sfdisk re-reads the table itself when no partition is in use; blockdev makes sure",
              'sfdisk -q --no-reread "$DEVICE" < "$TABLE"',
              'blockdev --rereadpt "$DEVICE"',
              "# a loop device may show its new partitions late: partx adds what the re-read did not",
              'partx -a "$DEVICE" 2>/dev/null || true',
              "udevadm settle 2>/dev/null || true",
              *NODE_FUNCTION]
    for part in sorted(plan_parts, key=lambda p: p.start_bytes):
        mount = shell(posixpath.join(mount_root, part.label))
        node = f'"$NODE{part.number}"'
        lines += [f"NODE{part.number}=$(node {part.number})  # {comment(part.label)}: {comment(', '.join(part.areas))}",
                  f"mkfs.ext4 -q -F -m 0 -E lazy_itable_init=0,lazy_journal_init=0 {node}",
                  f"mkdir -p {mount}", f"mount -o noatime {node} {mount}"]
    lines.append('echo "the planned partitions are mounted: go on with stage 3 (the plan\'s own scripts)"')
    return Script(name="stage2-repartition.sh", language="shell", text="\n".join(lines) + "\n",
                  caveat="Replaces the disk's partition table: it refuses unless every partition is empty.")


def _disk_of(plan: Plan, layout: HostLayout | None, slowest_mb_s_decimal: float | None) -> Disk:
    disks = sorted({p.disk for p in plan.partitions})
    if len(disks) != 1 or layout is None:
        raise BadInput("--in-place stages one disk whose partitions the snapshot located; this plan has "
                       f"{len(disks)} disk(s){'' if layout is not None else ' and no host layout'}")
    device = next((d for d in layout.devices if d.name == disks[0]), None)
    if device is None:
        raise BadInput(f"--in-place: disk {disks[0]} is not in the snapshot's host layout")
    parts = tuple(p for p in layout.partitions if p.disk == device.name and p.number > 0)
    return Disk(device.name, device.path, parts, slowest_mb_s_decimal, device.size_bytes, device.logical_block_bytes)


def staged(plan: Plan, moves: Sequence[Move], layout: HostLayout | None, spare: str | None,
           spare_free_bytes: int | None, slowest_mb_s_decimal: float | None, mount_root: str,
           settings: dict[str, str], oracle_major: int | None = None) -> Plan:
    """*plan* with the stages (and their scripts) that carry it out on the disk that holds the data.

    Raises :class:`~advisor.errors.BadInput` (exit 6) with the space needed when no spare can
    hold what the disk holds, and for what cannot be staged (a data directory on the disk).
    """
    disk = _disk_of(plan, layout, slowest_mb_s_decimal)
    on_disk = [m for m in moves if m.area.disk == disk.name]
    if oracle_major is not None:
        if spare is not None:
            raise BadInput("--in-place --spare writes its stages for PostgreSQL; for Oracle leave out --spare: the "
                           "steps go through the disk's own free space (MOVE DATAFILE, or offline copies)")
        assert layout is not None  # _disk_of refuses a plan without one
        return staged_in_disk(plan, on_disk, layout, disk, settings, oracle_major)
    if any(m.area.tablespace == "pg_global" for m in on_disk):
        raise BadInput(f"--in-place: the data directory lies on {disk.name}, whose partitions stage 2 remakes; "
                       "move it off the disk first (move_datadir.sh aimed at another disk)")
    unstaged = [m.area.name for m in on_disk if m.area.kind not in ("tablespace", "temp", "wal", "object")]
    if unstaged:
        raise BadInput(f"--in-place: {', '.join(unstaged)} on {disk.name} cannot be staged (no script moves it to "
                       "the spare); point it at another disk first")
    need = int(sum(max(m.area.size_bytes, MIB) for m in on_disk) * SPARE_ROOM)
    if spare is None:
        assert layout is not None  # _disk_of refuses a plan without one
        return staged_in_disk(plan, on_disk, layout, disk, settings)
    if spare_free_bytes is not None and spare_free_bytes < need:
        raise BadInput(f"--in-place: the spare {spare} has {_gib(spare_free_bytes)} free, the disk's areas need "
                       f"{_gib(need)}: no order of moves fits")
    # a spare device (--spare /dev/sdX) gets one file system, mounted where stage 1 writes
    device = spare if spare.startswith("/dev/") else None
    if device is not None:
        spare = posixpath.join(mount_root.rstrip("/") or "/", "spare")
    spare_moves = [replace(m, partition="spare", mount=spare) for m in on_disk]
    tablespaces = [m for m in spare_moves if m.area.kind in ("tablespace", "temp") and m.area.tablespace]
    wal = [m for m in spare_moves if m.area.kind == "wal"]
    scripts = [spare_device_script("stage1-spare.sh", device, spare)] if device is not None else []
    scripts.append(_check_script(spare, need, [m.directory for m in tablespaces]))
    if tablespaces:
        scripts.append(_evacuate_sql(tablespaces))
    wal_script = move_wal_script(wal, settings) if wal else None
    if wal_script is not None:
        scripts.append(replace(wal_script, name="stage1-move_wal.sh"))
    sfdisk = next(s.name for s in plan.scripts if s.language == "sfdisk")
    scripts.append(_repartition_script(disk, plan.partitions, sfdisk, mount_root))
    data_bytes = sum(m.area.size_bytes for m in tablespaces if m.area.kind != "temp")
    wal_bytes = sum(m.area.size_bytes for m in wal)
    # the plan's own scripts, less the online alternatives (pg_repack) the user may pick instead
    stage3 = tuple(s.name for s in plan.scripts
                   if s.language != "sfdisk" and "/" not in s.name and "repack" not in s.name)
    stages = (
        MigrationStage(1, f"evacuate {disk.name} to the spare", tuple(s.name for s in scripts[:-1]), need, spare,
                       "each relation while it is copied (ACCESS EXCLUSIVE lock); the server while pg_wal moves"
                       if wal else "each relation while it is copied (ACCESS EXCLUSIVE lock)",
                       _seconds(data_bytes + wal_bytes, disk),
                       f"stage1-check.sh: the spare has {_gib(need)} free and empty directories"),
        MigrationStage(2, f"remake {disk.name}'s partitions as planned", ("stage2-repartition.sh", sfdisk), 0,
                       disk.name, "nothing of the database (it runs from the spare); the disk's old partitions",
                       None, "stage2-repartition.sh: no old partition holds a file (empty directories aside)"),
        MigrationStage(3, "move in: the plan's own scripts", stage3, data_bytes + wal_bytes,
                       "the planned partitions", "each relation while it is copied; the server while pg_wal moves"
                       if wal else "each relation while it is copied", _seconds(data_bytes + wal_bytes, disk),
                       "postgres.sql needs empty LOCATION directories; move_wal.sh checks its target first"),
    )
    notes = [f"stage {s.number}: {s.title} ({', '.join(s.scripts)}); needs {_gib(s.needs_bytes)} in {s.needs_where}; "
             f"offline: {s.offline}" + (f", about {s.offline_s:,.0f} s at {disk.slowest_mb_s_decimal:,.0f} MB/s"
                                         if s.offline_s is not None and disk.slowest_mb_s_decimal else "")
             for s in stages]
    return replace(plan, scripts=(*scripts, *plan.scripts), stages=stages, notes=(*plan.notes, *notes))


def stage_plan(plan: Plan, classified: Sequence[Classified], layout: HostLayout | None, physics: DiskPhysics,
               options: PlanOptions, settings: dict[str, str], dbms: str = "postgres", version_num: int = 0) -> Plan:
    """The glue ``advise`` calls: the plan's moves rebuilt from its placements, the disk's slowest rate."""
    oracle_major = version_num // 10000 if (options.dbms or dbms) == "oracle" else None
    by_name = {c.area.name: c for c in classified}
    root = options.mount_root.rstrip("/")
    moves = [Move(by_name[p.area].area, by_name[p.area].cls, p.target, f"{root}/{p.target}", hot=False)
             for p in plan.placements if p.area in by_name]
    rates = [rate for _fraction, rate in physics.zone_curve(16)]
    slowest = min(rates) if rates else None
    return staged(plan, moves, layout, options.spare, options.spare_free_bytes, slowest, options.mount_root,
                  settings, oracle_major)
