"""The scripts of a staged migration: tablespace moves by rename, partition-table changes in use.

A tablespace cannot change its LOCATION, so a move creates a new tablespace at the target,
moves the relations there, drops the emptied old one and gives the new one the old name:
the next step (and the plan's own scripts) find it under the name they know.

The partition table changes while other partitions of the disk stay mounted, one partition
at a time, so the partitions in use keep their numbers and GPT identities:

* ``sfdisk --no-reread -N N`` adds partition N ("partition N is not defined yet" is sfdisk
  saying it will create it; ``--delete DEVICE N`` removes one). sfdisk
  still asks the kernel to re-read the whole table after writing it, and the kernel refuses
  while a partition is mounted: "Re-reading the partition table failed.: Device or resource
  busy" is expected, the table on the disk is written all the same (exit 0);
* ``partx -a --nr N`` then tells the kernel about the new partition alone (``partx -d --nr
  N`` forgets a deleted one). ``partx -a`` without ``--nr`` prints "error adding partition
  N" for every partition the kernel already has: that is not a failure of the new one;
* ``blockdev --rereadpt`` re-reads the whole table, and works only when nothing of the disk
  is mounted: the script uses it then, and ``partx`` otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.engine.scripts.moves import Move
from advisor.engine.scripts.pg_cleanup import drop_old_tablespaces_sql
from advisor.engine.scripts.postgres import TEMPLATES, plain_tablespace_name, psql_text
from advisor.engine.scripts.prepare import MKFS_EAGER_INIT
from advisor.engine.scripts.quoting import comment, ident, label, literal, psql_connect, shell
from advisor.engine.scripts.sfdisk import LINUX_FS
from advisor.model import Partition, Script

NODE_FUNCTION = [
    "# partition number N's node, made from sysfs where no udev made it",
    "node() {",
    "  for try in 1 2 3 4 5 6 7 8 9 10; do",
    '    for f in /sys/class/block/"$(basename "$DEVICE")"/*/partition; do',
    '      [ -f "$f" ] && [ "$(cat "$f")" = "$1" ] || continue',
    '      n="/dev/$(basename "$(dirname "$f")")"',
    '      dev=$(cat "$(dirname "$f")/dev")',
    '      [ -b "$n" ] || mknod "$n" b "${dev%%:*}" "${dev#*:}"',
    '      echo "$n"; return 0',
    "    done",
    "    sleep 0.5",
    "  done",
    '  echo "no partition $1 on $DEVICE" >&2; return 1',
    "}",
]

OWNER_LINES = ['OWNER="${OWNER:-postgres}"  # the server\'s OS account',
               'id "$OWNER" >/dev/null || { echo "no account $OWNER: set OWNER" >&2; exit 1; }']

NOTHING_MOUNTED = 'test -z "$(lsblk -nro MOUNTPOINT "$DEVICE" | grep -v "^$" || true)"'


def staging_tablespace(tablespace: str, prefix: str) -> str:
    """The name a tablespace has at its new place until the old one is dropped and it takes the old name."""
    return plain_tablespace_name(f"{prefix}_{tablespace}")


def retablespace_sql(moves: Sequence[Move], name: str, header: Sequence[str], prefix: str) -> Script:
    """Each tablespace of *moves* to its move's directory, keeping its name (see the module's docstring)."""
    lines = [f"-- {comment(line)}" for line in header]
    for move in moves:
        old = move.area.tablespace
        assert old is not None
        new = staging_tablespace(old, prefix)
        lines.append(f"-- {comment(move.area.name)} -> {comment(move.directory)}")
        lines.append(f"CREATE TABLESPACE {ident(new)} LOCATION {literal(move.directory)};")
        if move.area.kind != "temp":
            for db in [c for c in move.area.containers if c and c not in TEMPLATES]:
                lines.append(psql_connect(db))
                lines.append("SET client_min_messages = warning;")
                lines += [f"ALTER {what} ALL IN TABLESPACE {ident(old)} SET TABLESPACE {ident(new)};"
                          for what in ("TABLE", "INDEX", "MATERIALIZED VIEW")]
                lines.append("RESET client_min_messages;")
    drop = drop_old_tablespaces_sql(moves)
    lines += [line for line in (drop.text.splitlines() if drop else []) if not line.startswith("-- ")]
    lines += [f"ALTER TABLESPACE {ident(staging_tablespace(m.area.tablespace or '', prefix))} "
              f"RENAME TO {ident(m.area.tablespace or '')};" for m in moves]
    return Script(name=name, language="sql", text=psql_text(lines),
                  caveat="Each relation is locked (ACCESS EXCLUSIVE) while it is copied.")


def room_check_script(name: str, where: str, need_bytes: int, directories: Sequence[str], what: str,
                      parents: Sequence[str] = ()) -> Script:
    """A check run as root: *where* has *need_bytes* free; the directories exist, empty, the server's."""
    lines = ["#!/bin/sh", f"# {comment(what)}: the room and the empty directories the step writes into.",
             "# Run as root with OWNER set to the server's OS account; it changes nothing but the empty",
             "# directories it creates (owned by OWNER, mode 0700).",
             "set -eu", f"WHERE={shell(where)}", f"NEED_KB={need_bytes // 1024}",
             *OWNER_LINES,
             'FREE_KB=$(df -Pk "$WHERE" | awk \'NR == 2 {print $4}\')',
             'if [ "$FREE_KB" -lt "$NEED_KB" ]; then',
             '  echo "refused: $WHERE has $FREE_KB KiB free, the step needs $NEED_KB KiB" >&2; exit 1', "fi"]
    for directory in directories:
        lines.append(f"test ! -e {shell(directory)} || test -z \"$(ls -A {shell(directory)})\" || "
                     f"{{ echo {shell('not an empty directory: ' + directory)} >&2; exit 1; }}")
        lines.append(f'install -d -o "$OWNER" -m 0700 {shell(directory)}')
    for parent in parents:  # a directory something is moved into by name (pg_wal): made when missing
        lines.append(f'test -d {shell(parent)} || install -d -o "$OWNER" -m 0700 {shell(parent)}')
    lines.append('echo "$WHERE holds $FREE_KB KiB free, the step needs $NEED_KB KiB: go on"')
    return Script(name=name, language="shell", text="\n".join(lines) + "\n",
                  caveat="Changes nothing but the empty directories it creates.")


def _header(device: str, what: str) -> list[str]:
    return ["#!/bin/sh", f"# {comment(what)}. Run as root; the disk's other partitions stay in use.",
            "# sfdisk writes the table and then asks the kernel to re-read it, which the kernel refuses while a",
            "# partition of the disk is mounted: 'Re-reading the partition table failed.: Device or resource busy'",
            "# ('partition N is not defined yet' before it: sfdisk is about to create partition N)",
            "# is expected (the table is written). partx then tells the kernel about this partition alone;",
            "# 'error adding partition N' from a plain partx -a means the kernel has partition N already.",
            "set -eu", f"DEVICE={shell(device)}", *OWNER_LINES,
            *NODE_FUNCTION]


def create_partitions_script(name: str, device: str, sector_bytes: int,
                             parts: Sequence[tuple[int, int, int, str, str]]) -> Script:
    """Add partitions (number, start, size, label, mount point) in free space, make and mount their file systems."""
    lines = _header(device, f"Add partitions {', '.join(str(p[0]) for p in parts)} to {device} in free space")
    for number, start, size, part_label, mount in parts:
        lines += [f"# partition {number}: {comment(part_label)}, mounted at {comment(mount)}",
                  f'if [ -e "/sys/class/block/$(basename "$DEVICE")/$(basename "$DEVICE")p{number}" ] || '
                  f'[ -e "/sys/class/block/$(basename "$DEVICE")/$(basename "$DEVICE"){number}" ]; then',
                  f'  echo "refused: partition {number} exists on $DEVICE" >&2; exit 1', "fi",
                  f"test ! -e {shell(mount)} || test -z \"$(ls -A {shell(mount)})\" || "
                  f"{{ echo {shell('refused: not empty: ' + mount)} >&2; exit 1; }}",
                  "# sfdisk refuses a span that overlaps a partition of the table (nothing is written then)",
                  f"echo 'start={start // sector_bytes}, size={size // sector_bytes}, type={LINUX_FS}, "
                  f"name=\"{label(part_label)}\"' | sfdisk -q --no-reread -N {number} \"$DEVICE\"",
                  f'if {NOTHING_MOUNTED}; then blockdev --rereadpt "$DEVICE"; fi',
                  f'partx -a --nr {number} "$DEVICE" 2>/dev/null || true  # "error adding": the kernel has it',
                  "udevadm settle 2>/dev/null || true",
                  f"PART=$(node {number})",
                  f'mkfs.ext4 -q -F -m 0 -E {MKFS_EAGER_INIT} "$PART"',
                  f"mkdir -p {shell(mount)}", f'mount -o noatime "$PART" {shell(mount)}',
                  f'chown "$OWNER" {shell(mount)} && chmod 0700 {shell(mount)}',
                  f'echo "partition {number} ($PART) is mounted at {comment(mount)}"']
    return Script(name=name, language="shell", text="\n".join(lines) + "\n",
                  caveat="Writes the disk's partition table (adds partitions in free space only).")


def drop_partitions_script(name: str, device: str, parts: Sequence[Partition]) -> Script:
    """Unmount and delete emptied partitions; each refused while it holds a file."""
    lines = _header(device, f"Delete the emptied partitions {', '.join(str(p.number) for p in parts)} of {device}")
    for part in parts:
        mount = part.mountpoints[0] if part.mountpoints else ""
        if mount:
            lines += [f"left=$(find {shell(mount)} -mindepth 1 -path {shell(mount + '/lost+found')} -prune "
                      "-o ! -type d -print | head -n 3)",
                      f'test -z "$left" || {{ echo "refused: {comment(mount)} still holds: $left" >&2; exit 1; }}',
                      f"if mountpoint -q {shell(mount)}; then umount {shell(mount)}; fi"]
        lines += [f"PART=$(node {part.number})",
                  'test -z "$(lsblk -nro MOUNTPOINT "$PART")" || { echo "refused: $PART is mounted" >&2; exit 1; }',
                  f'sfdisk -q --no-reread --delete "$DEVICE" {part.number}  # "busy" is expected: see the header',
                  f'partx -d --nr {part.number} "$DEVICE"',
                  f'echo "partition {part.number} ({comment(part.name)}) is deleted: remove its /etc/fstab line"']
    return Script(name=name, language="shell", text="\n".join(lines) + "\n",
                  caveat="Deletes partitions from the table; it refuses one that still holds a file.")


def spare_device_script(name: str, device: str, mount: str) -> Script:
    """Make the spare *device* (``--spare /dev/sdX``) one file system mounted at *mount*, owned by the server.

    The device must be empty: one that holds a file system or a partition table, or is
    mounted, is refused, never formatted over. Run again once mounted, it changes nothing.
    """
    lines = ["#!/bin/sh", f"# Stage 1, first of all: the spare device {comment(device)} as one file system at "
             f"{comment(mount)}.", "# Run as root with OWNER set to the server's OS account. A device that holds a "
             "file system or a", "# partition table, or is mounted, is refused: nothing is formatted over.",
             "set -eu", f"SPARE_DEVICE={shell(device)}", f"MOUNT={shell(mount)}", *OWNER_LINES,
             'test -b "$SPARE_DEVICE" || { echo "refused: $SPARE_DEVICE is not a block device" >&2; exit 1; }',
             'if mountpoint -q "$MOUNT" && [ "$(findmnt -no SOURCE "$MOUNT")" = "$SPARE_DEVICE" ]; then',
             '  echo "$SPARE_DEVICE is mounted at $MOUNT already"; exit 0', "fi",
             'test -z "$(lsblk -nro MOUNTPOINT "$SPARE_DEVICE" | grep -v "^$" || true)" ||',
             '  { echo "refused: $SPARE_DEVICE (or a partition of it) is mounted" >&2; exit 1; }',
             'held=$(blkid -p -o value -s TYPE "$SPARE_DEVICE" 2>/dev/null || true)'
             '$(blkid -p -o value -s PTTYPE "$SPARE_DEVICE" 2>/dev/null || true)',
             'test -z "$held" || { echo "refused: $SPARE_DEVICE holds $held: not formatted over" >&2; exit 1; }',
             f'mkfs.ext4 -q -F -m 0 -E {MKFS_EAGER_INIT} "$SPARE_DEVICE"',
             'mkdir -p "$MOUNT"', 'mount -o noatime "$SPARE_DEVICE" "$MOUNT"',
             'chown "$OWNER" "$MOUNT" && chmod 0700 "$MOUNT"',
             'echo "the spare $SPARE_DEVICE is mounted at $MOUNT (unmount it once stage 3 is done)"']
    return Script(name=name, language="shell", text="\n".join(lines) + "\n",
                  caveat="Formats the spare device named with --spare; it refuses one that holds anything.")
