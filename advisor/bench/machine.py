"""Machine metadata recorded with every profile, and the disk a target lives on.

Like pyperf, a measurement keeps the facts needed to judge it later: kernel, CPU, the
device's model, rotational flag, IO scheduler and write-cache mode. Device discovery is
one small function reading /sys directly (``disk_of``), kept separate so it can be swapped
for the storage package's resolver without touching the bench.
"""

from __future__ import annotations

import os
import platform
import stat
from pathlib import Path

SYS_BLOCK = Path("/sys/class/block")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _whole_disk(name: str) -> str:
    """``sda2`` → ``sda``; a name that is not a partition is returned as is."""
    entry = SYS_BLOCK / name
    if (entry / "partition").exists():
        return entry.resolve().parent.name
    return name


def disk_of(path: str) -> str | None:
    """Kernel name of the whole disk holding *path* (a device node or a file), if any."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    dev = info.st_rdev if stat.S_ISBLK(info.st_mode) else info.st_dev
    link = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
    if not link.exists():
        return None
    return _whole_disk(link.resolve().name)


def _cpu_model() -> str:
    for line in (_read(Path("/proc/cpuinfo")) or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _scheduler(text: str | None) -> str | None:
    """``mq-deadline [none]`` → ``none`` (the active one is in brackets)."""
    if not text:
        return None
    for word in text.split():
        if word.startswith("["):
            return word.strip("[]")
    return text


def machine_info(disk: str | None) -> dict[str, str]:
    """Kernel, CPU and, when the disk is known, its sysfs facts (model, queue settings)."""
    info = {
        "kernel": platform.release(),
        "cpu": _cpu_model(),
        "cpu_count": str(os.cpu_count() or 0),
        "python": platform.python_version(),
    }
    if disk is None:
        return info
    base = SYS_BLOCK / disk
    facts = {
        "device": disk,
        "device_model": _read(base / "device" / "model"),
        "device_vendor": _read(base / "device" / "vendor"),
        "loop_backing_file": _read(base / "loop" / "backing_file"),
        "rotational": _read(base / "queue" / "rotational"),
        "scheduler": _scheduler(_read(base / "queue" / "scheduler")),
        "write_cache": _read(base / "queue" / "write_cache"),
        "fua": _read(base / "queue" / "fua"),
        "logical_block_size": _read(base / "queue" / "logical_block_size"),
        "physical_block_size": _read(base / "queue" / "physical_block_size"),
    }
    info.update({key: value for key, value in facts.items() if value})
    return info
