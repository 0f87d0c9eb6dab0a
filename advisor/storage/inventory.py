"""This host's block devices as an inventory: what sysfs says each one is.

Whole disks only (``/sys/block``), without RAM disks and, unless asked, loop devices. The
medium is a first guess for the DBA to check: ``queue/zoned`` host-managed is ``smr-hm``;
a rotating disk is ``hdd`` (drive-managed SMR hides from sysfs: only ``advisor bench --tests
smr`` or the model list tells); a non-rotating ``nvme*`` is ``nvme``, another one ``ssd``;
md and device-mapper volumes and virtual disks without a model are ``array`` (positions on
a platter unknown). No entry gets a model here: a bench profile or a preset is the DBA's
choice (``--profile NAME=FILE`` attaches a profile).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from pathlib import Path

from advisor.model.inventory import Inventory, InventoryDevice, Medium
from advisor.storage.sysfs import Sysfs

SKIPPED_PREFIXES = ("ram", "zram", "sr", "fd")


def _medium(name: str, transport: str, rotational: bool | None, zoned: str | None, placement_known: bool) -> Medium:
    if zoned == "host-managed":
        return "smr-hm"
    if transport in ("md", "dm") or not placement_known:
        return "array"
    if rotational:
        return "hdd"
    return "nvme" if name.startswith("nvme") else "ssd"


def discover(sysfs: Sysfs | None = None, include_loop: bool = False,
             profiles: Mapping[str, str] | None = None) -> Inventory:
    """One inventory entry per whole disk of this host (see the module docstring)."""
    fs = sysfs or Sysfs()
    try:
        names = sorted(os.listdir(fs.root / "block"))
    except OSError:
        names = []
    devices = []
    for name in names:
        if name.startswith(SKIPPED_PREFIXES) or (name.startswith("loop") and not include_loop):
            continue
        device = fs.device(name)
        if device.size_bytes <= 0:
            continue
        zoned_text = _read(fs.disk_dir(name) / "queue" / "zoned")
        transport = device.transport or "unknown"
        medium = _medium(name, transport, device.rotational, zoned_text, device.placement_known)
        note = None
        if medium == "array":
            note = device.reason or f"{transport} volume: set the medium of the disks underneath if they are alike"
        elif medium == "hdd":
            note = "sysfs cannot tell drive-managed SMR from CMR: run `advisor bench --tests smr` on a scratch file"
        devices.append(InventoryDevice(
            name=name, medium=medium, capacity_bytes=device.size_bytes, count=1,
            profile=(profiles or {}).get(name), path=device.path, model=device.model, rotational=device.rotational,
            zoned=zoned_text, virtual=not device.placement_known, note=note,
        ))
    return Inventory(devices=tuple(devices), host=socket.gethostname())


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip() or None
    except OSError:
        return None
