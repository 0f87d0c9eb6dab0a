"""Machine metadata recorded with every profile, and the disk a target lives on.

Like pyperf, a measurement keeps the facts needed to judge it later: kernel, CPU, the
device's model, transport, rotational flag, IO scheduler and write-cache mode, and where
the target starts on its whole disk (a partition's zone fractions are of the partition).
Device facts come from the storage package's sysfs reader, the same one the layout
collector uses, so a profile and a snapshot describe a disk in the same words.
"""

from __future__ import annotations

import os
import platform
import stat
from pathlib import Path

from advisor.storage.sysfs import BlockNode, Sysfs


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def block_node(path: str, sysfs: Sysfs | None = None) -> BlockNode | None:
    """The block node holding *path* (the device itself, or the file system's device)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    dev = info.st_rdev if stat.S_ISBLK(info.st_mode) else info.st_dev
    return (sysfs or Sysfs()).node(dev)


def disk_of(path: str) -> str | None:
    """Kernel name of the whole disk holding *path* (a device node or a file), if any."""
    node = block_node(path)
    return node.disk if node else None


def _cpu_model() -> str:
    for line in (_read(Path("/proc/cpuinfo")) or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def machine_info(path: str) -> dict[str, str]:
    """Kernel, CPU and, when the target sits on a known disk, that disk's sysfs facts."""
    info = {
        "kernel": platform.release(),
        "cpu": _cpu_model(),
        "cpu_count": str(os.cpu_count() or 0),
        "python": platform.python_version(),
    }
    sysfs = Sysfs()
    node = block_node(path, sysfs)
    if node is None:
        return info
    device = sysfs.device(node.disk)
    facts = {
        "device": device.name,
        "partition": node.name if node.number else None,
        "partition_start_bytes": str(node.start_bytes) if node.number else None,
        "disk_size_bytes": str(device.size_bytes),
        "device_model": device.model,
        "transport": device.transport,
        "loop_backing_file": device.backing_file,
        "rotational": None if device.rotational is None else ("1" if device.rotational else "0"),
        "scheduler": device.scheduler,
        "write_cache": device.write_cache,
        "fua": _read(sysfs.disk_dir(node.disk) / "queue" / "fua"),
        "logical_block_size": str(device.logical_block_bytes),
        "physical_block_size": str(device.physical_block_bytes),
        "placement": device.reason,
    }
    info.update({key: value for key, value in facts.items() if value})
    return info
