"""A scanned table and a table of primary-key lookups on one partition, PostgreSQL 18 on a real
loop disk: the report classifies the scan as a scan and keeps the lookups' own reads (issue 40:
one kernel factor for the partition made the lookups 7.4 IOPS where the database counted 78/s)."""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.hotcold import hot_and_cold
from tests.helpers.loopdisk import no_leaks
from tests.helpers.pagecache import evict

pytestmark = [pytest.mark.root, pytest.mark.pg, pytest.mark.slow]


@pytest.fixture()
def root_dir() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="advisor-scan-"))
    try:
        yield root
    finally:
        no_leaks(root)
        shutil.rmtree(root, ignore_errors=True)


def test_a_scan_and_lookups_sharing_a_partition_keep_their_own_pattern_and_reads(root_dir: Path) -> None:
    from advisor.demo.embedded import owned_dir
    from tests.helpers.pg import available_versions

    if shutil.which("losetup") is None or 18 not in available_versions():
        pytest.skip("needs losetup and PostgreSQL 18")
    with hot_and_cold(root_dir, 384 << 20) as (disk, pg, spaces):
        inner = disk.partition("inner")
        assert inner.mountpoint is not None
        lookups_dir = owned_dir(inner.mountpoint / "ts_orders")
        pg.psql(f"CREATE TABLESPACE orders LOCATION '{lookups_dir}';"
                "CREATE TABLE orders (id int PRIMARY KEY, pad text) TABLESPACE orders;"
                "ALTER INDEX orders_pkey SET TABLESPACE orders;"
                "INSERT INTO orders SELECT g, repeat('o', 300) FROM generate_series(1, 60000) g;"
                "CHECKPOINT;")
        pg.restart("fast")  # empty shared_buffers: every read below misses it
        evict(spaces["hot"])
        evict(lookups_dir)
        a, b = root_dir / "a.json", root_dir / "b.json"
        assert run_advisor("collect", "--dsn", pg.dsn, "-o", str(a)).returncode == 0
        ids = random.Random(7).sample(range(1, 60001), 400)
        lookups = "".join(f"SELECT pad FROM orders WHERE id = {i};" for i in ids)
        pg.psql("SET enable_seqscan = on; SELECT count(*) FROM hot;" + lookups + "SELECT count(*) FROM hot;")
        time.sleep(1.1)  # the backends' statistics reach the shared counters
        assert run_advisor("collect", "--dsn", pg.dsn, "-o", str(b)).returncode == 0
        done = run_advisor("report", "--snapshot", str(a), str(b), "--preset", "class-7200-desktop",
                           "--format", "json", "--force")
        assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    areas = {x["name"]: x for x in report["areas"]}
    scan, orders = areas["hot"], areas["orders"]
    assert scan["partition"] == orders["partition"]
    assert scan["area_class"] == "scan", scan
    assert orders["area_class"] == "random-read", orders
    # the lookups read about 2-3 blocks each from disk; their share of the kernel's requests is not
    # the scan's merge factor (hundreds of 8 KiB blocks per request)
    assert orders["db_read_iops"] > 0
    assert orders["read_iops"] >= 0.5 * orders["db_read_iops"], (orders, report["warnings"])
    assert scan["read_mb_s"] * 1024 / scan["read_iops"] >= 32, scan  # the disk read it in large requests
