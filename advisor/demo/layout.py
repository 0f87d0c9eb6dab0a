"""Where the demo puts things: GPT partitions with ext4 on the emulated disk, or plain directories.

The emulated disk gets three partitions from the outer edge (``outer``, ``middle``,
``inner``), each with ext4 mounted under the demo's directory. This machine may have no
udev, so partition nodes are waited for, then added with ``partx``, then made with mknod
from the numbers in sysfs. Every mount is registered on the caller's ExitStack so it is
undone even when the demo is interrupted.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from advisor.demo.embedded import owned_dir
from advisor.errors import DeviceError
from advisor.storage.nodes import remove_made_nodes, wait_partition_nodes
from advisor.units import MIB

SECTOR = 512
ALIGN = MIB
GPT_TAIL = 34 * SECTOR
DEMO_PARTITIONS = (("outer", 0.25), ("middle", 0.35), ("inner", 0.40))


@dataclass(frozen=True)
class Area:
    """One place the demo can put files: a mounted partition or a plain directory."""

    label: str
    mountpoint: Path
    device: str | None = None  # "/dev/loop5p3"; None for a plain directory
    start_bytes: int = 0
    size_bytes: int = 0


def _run(args: Sequence[str], stdin: str | None = None) -> str:
    try:
        done = subprocess.run(list(args), input=stdin, capture_output=True, text=True, timeout=300, check=False)
    except FileNotFoundError as exc:
        raise DeviceError(f"{args[0]} not found", hint="install fdisk, e2fsprogs and util-linux") from exc
    if done.returncode != 0:
        raise DeviceError(f"{' '.join(args[:2])} failed: {done.stderr.strip() or done.returncode}")
    return done.stdout


def plan(size_bytes: int, fractions: Sequence[tuple[str, float]]) -> list[tuple[str, int, int]]:
    """(label, start, size) in bytes, packed from 1 MiB, sizes rounded down to 1 MiB.

    >>> plan(100 << 20, [("a", 0.5), ("b", 0.5)])
    [('a', 1048576, 52428800), ('b', 53477376, 50331648)]
    """
    usable_end = (size_bytes - GPT_TAIL) // ALIGN * ALIGN
    out: list[tuple[str, int, int]] = []
    start = ALIGN
    for label, fraction in fractions:
        size = min(int(size_bytes * fraction) // ALIGN * ALIGN, usable_end - start)
        if size < 8 * ALIGN:
            raise DeviceError(f"partition {label!r} would be smaller than 8 MiB")
        out.append((label, start, size))
        start += size
    return out


def unmount(mountpoint: Path) -> None:
    """Unmount *mountpoint*, retrying while it is busy (a process just leaving it), lazily at last."""
    for attempt in range(40):
        done = subprocess.run(["umount", str(mountpoint)], capture_output=True, text=True, check=False)
        if done.returncode == 0 or "not mounted" in done.stderr or "no mount point" in done.stderr:
            return
        time.sleep(0.05 * (attempt + 1))
    subprocess.run(["umount", "-l", str(mountpoint)], capture_output=True, check=False)


def partition_and_mount(device: str, root: Path, stack: ExitStack,
                        fractions: Sequence[tuple[str, float]] = DEMO_PARTITIONS) -> dict[str, Area]:
    """Write a GPT on *device*, make ext4 on each partition, mount them under *root*."""
    name = os.path.basename(device)
    size = int(Path(f"/sys/block/{name}/size").read_text()) * SECTOR
    planned = plan(size, fractions)
    script = "label: gpt\n" + "".join(
        f"start={start // SECTOR}, size={length // SECTOR}, name={label}\n" for label, start, length in planned)
    _run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", device], stdin=script)
    subprocess.run(["blockdev", "--rereadpt", device], capture_output=True, check=False)
    nodes = wait_partition_nodes(device, len(planned))
    stack.callback(remove_made_nodes, nodes)
    areas: dict[str, Area] = {}
    for (label, start, length), node in zip(planned, nodes, strict=True):
        _run(["mkfs.ext4", "-q", "-F", "-m", "0", "-E", "lazy_itable_init=0,lazy_journal_init=0", "-L", label, node])
        mountpoint = root / f"mnt-{label}"
        mountpoint.mkdir(exist_ok=True)
        stack.callback(_rmdir_quiet, mountpoint)
        _run(["mount", "-t", "ext4", "-o", "noatime", node, str(mountpoint)])
        stack.callback(unmount, mountpoint)
        areas[label] = Area(label, mountpoint, node, start, length)
    return areas


DEMO_LABELS = tuple(label for label, _ in DEMO_PARTITIONS)


def plain_directories(root: Path, labels: Sequence[str] = DEMO_LABELS) -> dict[str, Area]:
    """One directory per area under *root* (the simulated story: no disk underneath)."""
    areas: dict[str, Area] = {}
    for label in labels:
        path = root / f"dir-{label}"
        path.mkdir(parents=True, exist_ok=True)
        areas[label] = Area(label, path)
    return areas


def _rmdir_quiet(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.rmdir()


def overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Length of the overlap of two fraction ranges.

    >>> round(overlap((0.0, 0.25), (0.2, 0.5)), 2)
    0.05
    """
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def mount_planned(partitions: Sequence[dict[str, object]], areas: dict[str, Area], disk_bytes: int,
                  mount_root: Path) -> dict[str, str]:
    """Make each planned partition's mount point a directory on the existing partition under it.

    The plan describes partitions from the outer edge; the demo's disk already has
    partitions, so planned partition *L* (zone a..b) is served by the existing partition
    that overlaps a..b most: ``mount_root/L`` becomes a link to a directory ``L`` on it.
    Returns planned label → existing area label.
    """
    mount_root.mkdir(parents=True, exist_ok=True)
    spans = {a.label: (a.start_bytes / disk_bytes, (a.start_bytes + a.size_bytes) / disk_bytes)
             for a in areas.values() if a.size_bytes}
    chosen: dict[str, str] = {}
    for part in partitions:
        planned_label = str(part["label"])
        zone = (float(str(part["start_fraction"])), float(str(part["end_fraction"])))
        best = max(spans, key=lambda name: overlap(spans[name], zone))
        target = owned_dir(areas[best].mountpoint / planned_label)  # the server account fills it
        link = mount_root / planned_label
        if not link.exists():
            link.symlink_to(target)
        chosen[planned_label] = best
    return chosen
