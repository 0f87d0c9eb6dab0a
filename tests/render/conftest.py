"""A report with findings and a plan, built through the real engine from a synthetic workload."""

from __future__ import annotations

import pytest

from advisor.engine.advise import advise
from advisor.model import Partition, Report, Workload
from tests.engine.synth import GB, AreaSpec, models, workload
from tests.helpers.clock import AT


def sample_workload() -> Workload:
    """WAL at the outer edge, hot data inner, archive outer: several findings and a plan."""
    parts = [Partition("sda1", "sda", 1, 1 << 20, 100 * GB, ("/u01",), "ext4", True),
             Partition("sda2", "sda", 2, 100 * GB + (1 << 20), 200 * GB, ("/u02",), "ext4", True),
             Partition("sda3", "sda", 3, 300 * GB + (1 << 20), 199 * GB, ("/u03",), "ext4", True)]
    return workload([
        AreaSpec("WAL", kind="wal", size_gb=4, write_iops=90, write_kb=16, random_share=None, syncs=45,
                 zone=(0.0, 0.008), path="/u01/pg_wal"),
        AreaSpec("orders", size_gb=40, read_iops=180, zone=(0.62, 0.70), files=4, path="/u03/ts_orders"),
        AreaSpec("history", size_gb=60, read_iops=8, read_kb=128, random_share=0.1, zone=(0.25, 0.37), files=3,
                 path="/u02/ts_hist"),
        AreaSpec("archive", kind="archive", size_gb=80, write_iops=1.5, write_kb=1024, random_share=None,
                 zone=(0.01, 0.17), path="/u01/archive"),
        AreaSpec("temp", kind="temp", size_gb=5, read_iops=6, write_iops=6, read_kb=64, write_kb=64,
                 random_share=None, zone=(0.40, 0.41), path="/u02/temp"),
    ], partitions=parts)


@pytest.fixture(scope="session")
def report() -> Report:
    return advise(sample_workload(), models(), generated_at=AT)
