"""Block devices from ``/sys``: partition offsets, whole-disk facts, how a disk is attached.

``/sys/dev/block/MAJ:MIN`` links to the device's directory; a ``partition`` file there
means a partition whose ``start`` and ``size`` are in 512-byte sectors whatever the logical
block size, and whose parent directory is the whole disk. Every lookup is cached per
device: mapping 100 000 files touches sysfs once per file system.

``queue/rotational`` is recorded but not trusted (loop and virtio devices say 1), so each
disk also gets a ``transport`` and, when the block layer hides physical positions (virtual
disks, RAM disks, md and non-linear device-mapper targets), ``placement_known = False``
with the reason.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from advisor.model import Device, Partition
from advisor.units import MIB

SECTOR = 512


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _read_int(path: Path) -> int | None:
    text = _read(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class BlockNode:
    """The block device a file system sits on, resolved to its whole disk."""

    name: str  # "sda2", "loop3p1", or the disk name itself
    disk: str  # "sda", "loop3"
    number: int  # partition number, 0 when the file system is on the whole device
    start_bytes: int  # offset of this node on the whole disk
    size_bytes: int
    major: int
    minor: int


def selected_scheduler(text: str | None) -> str | None:
    """The active scheduler is the bracketed word.

    >>> selected_scheduler("mq-deadline kyber [bfq] none")
    'bfq'
    >>> selected_scheduler("none")
    'none'
    """
    if not text:
        return None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return text.split()[0]


def transport_of(name: str, device_link: str) -> str:
    """How a disk is attached, from its name and where its sysfs node lives.

    >>> transport_of("sda", "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda")
    'sata'
    >>> transport_of("vda", "/sys/devices/pci0000:00/0000:00:04.0/virtio1/block/vda")
    'virtio'
    """
    prefixes = (("loop", "loop"), ("dm-", "dm"), ("md", "md"), ("nvme", "nvme"), ("zram", "zram"),
                ("ram", "ram"), ("nbd", "nbd"), ("rbd", "rbd"), ("xvd", "xen"), ("mmcblk", "mmc"))
    for prefix, transport in prefixes:
        if name.startswith(prefix):
            return transport
    for marker, transport in (("/virtio", "virtio"), ("/usb", "usb"), ("/ata", "sata"), ("/nvme", "nvme"),
                              ("/vmbus", "hyperv"), ("/sas", "sas"), ("/fc_host", "fc"), ("/session", "iscsi")):
        if marker in device_link:
            return transport
    return "scsi" if "/host" in device_link else "unknown"


def placement_verdict(transport: str, model: str | None) -> str | None:
    """Why LBA fractions of this disk say nothing about platter position, or None.

    >>> placement_verdict("virtio", None)
    'virtual disk (virtio) without a model: its LBAs are not positions on a platter'
    >>> placement_verdict("loop", None) is None
    True
    """
    if transport in ("zram", "ram"):
        return f"{transport} is a RAM disk"
    if transport in ("nbd", "rbd", "iscsi"):
        return f"network block device ({transport}): the disk layout is on another host"
    if transport in ("virtio", "xen", "hyperv") and not model:
        return f"virtual disk ({transport}) without a model: its LBAs are not positions on a platter"
    if transport == "md":
        return "md RAID spreads and mirrors blocks across member disks"
    return None


class Sysfs:
    """Cached view of ``/sys`` block devices (one instance per run)."""

    def __init__(self, root: Path = Path("/sys")) -> None:
        self.root = root
        self._nodes: dict[int, BlockNode | None] = {}
        self._devices: dict[str, Device] = {}

    def node(self, dev: int) -> BlockNode | None:
        """The block node for an ``st_dev``, or None for anonymous devices (0:N)."""
        if dev not in self._nodes:
            self._nodes[dev] = self._read_node(dev)
        return self._nodes[dev]

    def _read_node(self, dev: int) -> BlockNode | None:
        major, minor = os.major(dev), os.minor(dev)
        link = self.root / "dev" / "block" / f"{major}:{minor}"
        if not link.exists():
            return None
        directory = Path(os.path.realpath(link))
        size = (_read_int(directory / "size") or 0) * SECTOR
        number = _read_int(directory / "partition")
        if number is not None:
            start = (_read_int(directory / "start") or 0) * SECTOR
            return BlockNode(directory.name, directory.parent.name, number, start, size, major, minor)
        return BlockNode(directory.name, directory.name, 0, 0, size, major, minor)

    def disk_dir(self, disk: str) -> Path:
        """``/sys/block/<disk>``."""
        return self.root / "block" / disk

    def device(self, disk: str) -> Device:
        """Whole-disk facts, read once per disk."""
        known = self._devices.get(disk)
        if known is not None:
            return known
        base = self.disk_dir(disk)
        queue = base / "queue"
        model = _read(base / "device" / "model") or None
        transport = transport_of(disk, os.path.realpath(base))
        backing = _read(base / "loop" / "backing_file") if transport == "loop" else None
        if transport == "dm":
            model = _read(base / "dm" / "name") or model
        reason = placement_verdict(transport, model)
        if transport == "md":
            level = _read(base / "md" / "level") or "RAID"
            reason = f"md {level} over {', '.join(self.slaves(disk)) or 'unknown members'}: {reason}"
        device = Device(
            name=disk,
            path=f"/dev/{disk}",
            size_bytes=(_read_int(base / "size") or 0) * SECTOR,
            model=model,
            rotational=(_read(queue / "rotational") == "1") if (queue / "rotational").exists() else None,
            logical_block_bytes=_read_int(queue / "logical_block_size") or SECTOR,
            physical_block_bytes=_read_int(queue / "physical_block_size") or SECTOR,
            write_cache=_read(queue / "write_cache"),
            scheduler=selected_scheduler(_read(queue / "scheduler")),
            transport=transport,
            backing_file=backing,
            placement_known=reason is None,
            reason=reason,
        )
        self._devices[disk] = device
        return device

    def slaves(self, disk: str) -> list[str]:
        """Devices under a dm or md device (``/sys/block/<disk>/slaves``)."""
        try:
            return sorted(os.listdir(self.disk_dir(disk) / "slaves"))
        except OSError:
            return []

    def partition(self, node: BlockNode, mountpoints: tuple[str, ...] = (), fstype: str | None = None) -> Partition:
        """The Partition record of a node, with its 1 MiB / physical-block alignment."""
        device = self.device(node.disk)
        aligned = node.start_bytes % max(device.physical_block_bytes, 1) == 0 and node.start_bytes % MIB == 0
        return Partition(
            name=node.name,
            disk=node.disk,
            number=node.number,
            start_bytes=node.start_bytes,
            size_bytes=node.size_bytes,
            mountpoints=mountpoints,
            fstype=fstype,
            aligned=aligned,
        )

    def partitions_of(self, disk: str) -> list[BlockNode]:
        """All partitions of a disk in start order (for the audit map)."""
        found: list[BlockNode] = []
        base = self.disk_dir(disk)
        try:
            entries = sorted(os.listdir(base))
        except OSError:
            return found
        for entry in entries:
            dev_text = _read(base / entry / "dev")
            if dev_text and (base / entry / "partition").exists():
                major, minor = (int(x) for x in dev_text.split(":"))
                node = self.node(os.makedev(major, minor))
                if node is not None:
                    found.append(node)
        return sorted(found, key=lambda n: n.start_bytes)
