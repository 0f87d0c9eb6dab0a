"""The file systems a tiered plan's partitions need: mkfs and mount lines per target device.

A tiered plan targets new devices, so each gets a directory with its sfdisk file and, after
it, ``prepare.sh``: one ext4 file system per planned partition found by its GPT label,
mounted where the database scripts expect it. A partition that already holds a file system is
refused, never formatted over; the fstab lines are printed, not written.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace

from advisor.engine.scripts.quoting import comment, label, shell
from advisor.model import Plan, PlannedPartition, Script

MKFS_EAGER_INIT = "lazy_itable_init=0,lazy_journal_init=0"
"""mkfs.ext4 extended options that write the inode tables and the journal at once: by default
ext4 initialises them lazily in a kernel thread after mount, writing to the disk for minutes,
which disturbs any measurement of it (and of the database moved onto it)."""


def prepare_script(device: str, partitions: Sequence[PlannedPartition], mount_root: str) -> Script:
    """mkfs and mount lines for one device's planned partitions (after its sfdisk file)."""
    lines = ["#!/bin/sh",
             f"# Prepare {comment(device)} after `sfdisk DEVICE < sfdisk.txt`: one file system per planned partition,",
             "# mounted where the database scripts expect it. A partition that already holds a file system is",
             "# refused, never formatted over. Add the fstab lines printed at the end.",
             "set -eu", "udevadm settle 2>/dev/null || true",
             'node() { blkid -l -o device -t PARTLABEL="$1" || { echo "no partition labelled $1" >&2; exit 1; }; }',
             'fresh() {',
             '  if [ -n "$(blkid -p -o value -s TYPE "$1" 2>/dev/null)" ]; then',
             '    echo "refused: $1 already holds a file system" >&2; exit 1',
             '  fi',
             '}']
    fstab = []
    for part in sorted(partitions, key=lambda p: p.start_fraction):
        node = f'"$(node {shell(part.label)})"'
        mount = shell(posixpath.join(mount_root, part.label))
        lines += [f"# partition {part.number}: {comment(', '.join(part.areas))}", f"fresh {node}",
                  f"mkfs.ext4 -q -F -m 0 -E {MKFS_EAGER_INIT} {node}", f"mkdir -p {mount}",
                  f"mount -o noatime {node} {mount}"]
        fstab.append(f"PARTLABEL={part.label} {posixpath.join(mount_root, part.label)} ext4 noatime 0 2")
    lines.append("cat <<'FSTAB'")
    lines += [*fstab, "FSTAB"]
    return Script(name=f"{device}/prepare.sh", language="shell", text="\n".join(lines) + "\n",
                  caveat="Formats the planned partitions: run it on the new device only, after its sfdisk file.")


def per_device_scripts(plan: Plan, mount_root: str) -> tuple[Script, ...]:
    """sfdisk and prepare (mkfs, mount) files in one directory per device; database scripts at the top."""
    out = []
    for script in plan.scripts:
        if script.language == "sfdisk" and script.name.startswith("sfdisk-"):
            device = script.name.removeprefix("sfdisk-").removesuffix(".txt")
            out.append(replace(script, name=f"{device}/sfdisk.txt"))
            parts = [p for p in plan.partitions if label(p.disk) == device]
            out.append(prepare_script(device, parts, mount_root))
        else:
            out.append(script)
    return tuple(out)
