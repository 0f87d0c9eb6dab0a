"""A tiered plan's per-device scripts run for real: sfdisk, then prepare.sh formats and mounts."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from advisor.disk.media.build import build_device_model
from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.model.inventory import InventoryDevice
from advisor.storage.nodes import remove_made_nodes, wait_partition_nodes
from tests.helpers.clock import AT
from tests.helpers.loopdisk import scratch_disk
from tests.helpers.workloads import AreaSpec, models, workload

pytestmark = [pytest.mark.root, pytest.mark.skipif(os.geteuid() != 0, reason="loop devices need root")]
MIB = 1 << 20


def test_sfdisk_then_prepare_mounts_every_planned_partition(tmp_path: Path) -> None:
    specs = [AreaSpec("orders", size_gb=0.08, read_iops=300, zone=(0.1, 0.2)),
             AreaSpec("wal", kind="wal", size_gb=0.03, write_iops=100, syncs=100, random_share=None,
                      zone=(0.9, 0.91))]
    fast = InventoryDevice("fast", "ssd", 512 * MIB, preset="sata-ssd")
    hdd = InventoryDevice("hdd", "hdd", 1024 * MIB, preset="class-7200-desktop")
    mount_root = tmp_path / "srv"
    options = PlanOptions(new_disks=True, mount_root=str(mount_root),
                          target=(build_device_model(fast, Path(".")), build_device_model(hdd, Path("."))))
    plan = advise(AdviceRequest(workload(specs), models(), options, generated_at=AT)).plan
    assert plan is not None
    scripts = {s.name: s.text for s in plan.scripts}
    assert {"fast/sfdisk.txt", "fast/prepare.sh"} <= set(scripts)
    (tmp_path / "fast").mkdir()
    prepare = tmp_path / "fast" / "prepare.sh"
    prepare.write_text(scripts["fast/prepare.sh"])
    labels = [p.label for p in plan.partitions if p.disk == "fast"]
    with scratch_disk(512 * MIB, None, fs=None, image_dir=tmp_path) as disk:
        subprocess.run(["sfdisk", "-q", disk.device], input=scripts["fast/sfdisk.txt"], text=True, check=True)
        subprocess.run(["blockdev", "--rereadpt", disk.device], capture_output=True, check=False)
        nodes = wait_partition_nodes(disk.device, len(labels))
        try:
            done = subprocess.run(["sh", str(prepare)], capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr
            mounted = Path("/proc/self/mounts").read_text()
            for name in labels:
                assert f" {mount_root / name} ext4 " in mounted, name
                assert f"PARTLABEL={name} {mount_root / name} ext4" in done.stdout
            # every tablespace the database script creates lies on a planned mount
            sql = scripts.get("postgres.sql", "")
            assert all(f"'{mount_root / name}/" in sql for name in labels if name.startswith(("fast-", "hot")))
            again = subprocess.run(["sh", str(prepare)], capture_output=True, text=True, timeout=120)
            assert again.returncode == 1 and "already" in again.stderr  # never formats over data
        finally:
            for name in labels:
                subprocess.run(["umount", str(mount_root / name)], capture_output=True, check=False)
            remove_made_nodes(nodes)
