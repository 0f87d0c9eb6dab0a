"""PostgreSQL on the emulated HDD: GPT, ext4 on a partition, initdb, pgbench, honest commits."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from advisor.disk.presets import get_model
from tests.helpers.emulated import emulator_leaks, ext4_on_emulated_disk, require_fuse_and_loop
from tests.helpers.pg import available_versions, running_postgres

pytestmark = [pytest.mark.root, pytest.mark.pg, pytest.mark.slow]

PRESET = "class-7200-desktop"
SCALE = 10.0
TRANSACTIONS = 150


def test_pgbench_runs_on_a_partition_of_the_emulated_disk(tmp_path: Path) -> None:
    require_fuse_and_loop()
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries on this machine (make pg-binaries)")
    version = 15 if 15 in versions else min(versions)
    rotation_limit = get_model(PRESET).rpm / 60.0
    with ext4_on_emulated_disk(tmp_path, PRESET, SCALE) as (disk, mnt), running_postgres(version, mnt,
                                                                                           fsync=True) as server:
        assert str(server.datadir).startswith(str(mnt))
        pgbench = str(server.pgbench_path)
        init = subprocess.run([pgbench, "-i", "-q", "-s", "1", "-d", server.dsn], capture_output=True,
                              text=True, timeout=300, check=False)
        assert init.returncode == 0, init.stderr
        before = disk.stats()
        run = subprocess.run([pgbench, "-n", "-c", "1", "-t", str(TRANSACTIONS), "-N", "-d", server.dsn],
                             capture_output=True, text=True, timeout=300, check=False)
        after = disk.stats()
        assert run.returncode == 0, run.stderr
    processed = re.search(r"number of transactions actually processed: (\d+)", run.stdout)
    tps = re.search(r"tps = ([\d.]+)", run.stdout)
    assert processed and int(processed.group(1)) == TRANSACTIONS, run.stdout
    assert tps is not None
    # every commit reached the emulated disk as a flush, and one client cannot commit
    # faster than the platter turns: at most one WAL flush per revolution (virtual time)
    assert after["served"]["flush"] - before["served"]["flush"] >= TRANSACTIONS
    assert float(tps.group(1)) / disk.scale <= rotation_limit * 1.05
    assert emulator_leaks() == []
