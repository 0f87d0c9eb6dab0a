"""Partition device nodes on machines without udev (containers, minimal VMs, CI).

After a partition table is written to a loop device, the kernel's devtmpfs normally creates
``/dev/loopNpK``. Without udev that sometimes does not happen (the partition scan was
skipped), so we wait, then ask ``partx -a`` to add the partitions, and as a last resort make
the node with mknod from the numbers in sysfs. Nodes made that way are not removed by the
kernel on detach, so :func:`remove_made_nodes` deletes them once their partition is gone.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from advisor.errors import DeviceError


def wait_partition_nodes(device: str, count: int, timeout_s: float = 10.0) -> list[str]:
    """``device``p1..p``count`` once they all exist as block devices."""
    name = os.path.basename(device)
    nodes = [f"{device}p{k}" for k in range(1, count + 1)]
    deadline = time.monotonic() + timeout_s
    asked_partx = False
    while time.monotonic() < deadline:
        if all(os.path.exists(n) and stat.S_ISBLK(os.stat(n).st_mode) for n in nodes):
            return nodes
        if not asked_partx and time.monotonic() > deadline - timeout_s + 0.5:
            subprocess.run(["partx", "-a", device], capture_output=True, check=False)
            asked_partx = True
        for k, node in enumerate(nodes, start=1):
            dev_file = Path(f"/sys/block/{name}/{name}p{k}/dev")
            if not os.path.exists(node) and dev_file.exists():
                major, minor = (int(x) for x in dev_file.read_text().strip().split(":"))
                with contextlib.suppress(FileExistsError):
                    os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(major, minor))
        time.sleep(0.05)
    missing = [n for n in nodes if not os.path.exists(n)]
    raise DeviceError(f"partition nodes of {device} did not appear: {', '.join(missing)}")


def remove_made_nodes(nodes: Sequence[str]) -> None:
    """Delete partition nodes whose partition the kernel no longer has (ours, made by mknod)."""
    for node in nodes:
        name = os.path.basename(node)
        disk = name.rsplit("p", 1)[0]
        if os.path.exists(node) and not Path(f"/sys/block/{disk}/{name}").exists():
            with contextlib.suppress(OSError):
                os.unlink(node)
