"""The sfdisk script that creates the planned partitions from the outer edge.

GPT, every start and size a multiple of 1 MiB (so 4K physical sectors and RAID chunks line
up), sizes including growth headroom, names restricted to a safe alphabet. It is for the
new disk of a migration: applying it to a disk in use destroys its partition table, which
the header says in words.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.engine.scripts.quoting import comment, label
from advisor.model import PlannedPartition, Script
from advisor.units import MIB

LINUX_FS = "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
GPT_TAIL_BYTES = MIB  # room for the backup GPT at the end of the disk


def align_up(nbytes: int, unit: int = MIB) -> int:
    """Round *nbytes* up to a multiple of *unit*."""
    return -(-nbytes // unit) * unit


def sfdisk_script(
    partitions: Sequence[PlannedPartition], device: str = "/dev/sdX", sector_bytes: int = 512, disk_name: str = ""
) -> Script:
    """An sfdisk input file (``sfdisk DEVICE < file``) for one disk's planned partitions."""
    lines = [
        f"# Partitions for {comment(disk_name or device)}, from the outer edge (LBA 0) inward.",
        f"# Apply ONLY to the new, empty disk: sfdisk {comment(device)} < this-file (it replaces the partition table).",
        "label: gpt",
        "unit: sectors",
        f"sector-size: {sector_bytes}",
        f"first-lba: {MIB // sector_bytes}",
        "",
    ]
    for part in sorted(partitions, key=lambda p: p.start_fraction):
        start_bytes = max(MIB, align_up(part.start_bytes))
        lines.append(
            f"start={start_bytes // sector_bytes}, size={align_up(part.size_bytes) // sector_bytes}, "
            f'type={LINUX_FS}, name="{label(part.label or f"part{part.number}")}"'
        )
        areas = ", ".join(part.areas)
        lines.append(f"# partition {part.number}: {comment(areas)}")
    return Script(
        name=f"sfdisk-{label(disk_name or 'disk')}.txt",
        language="sfdisk",
        text="\n".join(lines) + "\n",
        caveat="Replaces the partition table of the disk it is applied to: use it on the new disk only.",
    )

