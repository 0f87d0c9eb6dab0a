"""Workloads on three partitions with kernel diskstats beside them, for the read-calibration tests.

Shared by test_calibration.py and test_calibration_cache_lost.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from typing import Any

from advisor.model import DiskStatRate, Partition, Report, Workload
from tests.helpers.workloads import DISK_BYTES, AreaSpec, workload

PARTS = (
    Partition("sda1", "sda", 1, 1 << 20, int(0.3 * DISK_BYTES)),
    Partition("sda2", "sda", 2, int(0.3 * DISK_BYTES), int(0.3 * DISK_BYTES)),
    Partition("sda3", "sda", 3, int(0.6 * DISK_BYTES), int(0.39 * DISK_BYTES)),
)


def on_partitions(specs: Sequence[AreaSpec], where: Mapping[str, str], stats: Sequence[DiskStatRate] = (),
                  partitions: Sequence[Partition] = PARTS) -> Workload:
    """A synthetic workload whose areas sit on the partitions *where* names, with *stats* as diskstats."""
    w = workload(specs, partitions=partitions)
    assert w.layout is not None
    locs = tuple(replace(loc, partition=where.get(loc.path.split("/")[2], loc.partition)) for loc in w.layout.locations)
    return replace(w, layout=replace(w.layout, locations=locs), diskstats=tuple(stats))


def stat(name: str, r_s: float, read_mb_s: float, partition: bool = True, util: float = 0.5) -> DiskStatRate:
    """A diskstats rate row for *name*: *r_s* reads/s moving *read_mb_s*, busy *util* of the interval."""
    return DiskStatRate(name, r_s, 5.0, read_mb_s, 0.1, 8.0, 2.0, util, is_partition=partition)


def rows(report: Report) -> dict[str, dict[str, Any]]:
    """The report's areas by name, as plain dicts."""
    return {a.name: asdict(a) for a in report.areas}


def mib(iops: float, kb: float = 8.0) -> float:
    """MB/s of *iops* reads of *kb* each, the way the synthetic workloads compute it."""
    return iops * kb / 1000


HOT = AreaSpec("orders", size_gb=20, read_iops=2000, zone=(0.65, 0.70))
WAL = AreaSpec("WAL", kind="wal", size_gb=4, write_iops=60, write_kb=16, random_share=None, syncs=40, zone=(0.05, 0.06))
