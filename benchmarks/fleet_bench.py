"""Fleet repository at size: ingest rate, fleet report time, bytes per snapshot.

Collects a real snapshot pair (PostgreSQL 18, tablespaces on a loop disk's outer and inner
partition: tests/repo/fleetgen.py), derives INSTANCES x SNAPSHOTS documents from it by
scaling, pushes them into a fresh repository on a real PostgreSQL (fsync on), then times
``fleet_report`` over all instances and measures the repository's size. Prints one table.

Run as root (loop devices):  .venv/bin/python benchmarks/fleet_bench.py [--instances 200 --snapshots 48]
``--pair A.json B.json`` reuses a collected pair instead of collecting one.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.cli.reporting import load_models  # noqa: E402
from advisor.model import load_snapshot  # noqa: E402
from advisor.repo.connection import connect  # noqa: E402
from advisor.repo.documents import from_document  # noqa: E402
from advisor.repo.fleet import fleet_report  # noqa: E402
from advisor.repo.ingest import checked_connection, push  # noqa: E402
from advisor.repo.schema import migrate  # noqa: E402
from tests.helpers.pg import available_versions, running_postgres  # noqa: E402
from tests.repo.fleetgen import derive, real_pair  # noqa: E402


def main() -> None:
    """Parse options, run once, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=200)
    parser.add_argument("--snapshots", type=int, default=48)
    parser.add_argument("--windows", type=int, default=2)
    parser.add_argument("--pair", nargs=2, type=Path, help="reuse two collected snapshots (A B)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
        root = Path(tmp)
        if args.pair:
            a, b = load_snapshot(args.pair[0]), load_snapshot(args.pair[1])
        else:
            a, b = real_pair(root / "pair")
        with running_postgres(max(available_versions()), root / "repo", fsync=True) as server:
            run(server.dsn, a, b, args.instances, args.snapshots, args.windows)


def run(dsn: str, a: object, b: object, instances: int, snapshots: int, windows: int) -> None:
    """Push the derived fleet, time the report, measure the size."""
    with connect(dsn) as conn:
        migrate(conn)
        checked_connection(conn)
        start = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
        encoded = pushed = 0
        raw_bytes = 0
        encode_s = push_s = 0.0
        for _i, series in derive(a, b, instances, snapshots, start):  # type: ignore[arg-type]
            t0 = time.perf_counter()
            items = [from_document(s) for s in series]
            t1 = time.perf_counter()
            for item in items:
                pushed += push(conn, item)
                raw_bytes += len(item.raw)
            t2 = time.perf_counter()
            encode_s += t1 - t0
            push_s += t2 - t1
            encoded += len(items)
        conn.execute("ANALYZE")
        conn.commit()
        models, _ = load_models(None, None, None)
        span = {"since": start - dt.timedelta(days=1), "until": start + dt.timedelta(days=40), "windows": windows}
        workers = os.cpu_count() or 1
        t0 = time.perf_counter()
        c0 = time.process_time()
        report = fleet_report(conn, models, **span)  # type: ignore[arg-type]
        serial_s, serial_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter()
        parallel = fleet_report(conn, models, dsn=dsn, workers=workers, **span)  # type: ignore[arg-type]
        report_s = time.perf_counter() - t0
        assert [i.instance_id for i in parallel.instances] == [i.instance_id for i in report.instances]
        size = conn.execute("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                            "ON n.oid = c.relnamespace WHERE n.nspname = 'advisor' AND c.relkind = 'r'").fetchone()
        conn.rollback()
    repo_bytes = int(size[0]) if size and size[0] else 0
    planned = sum(1 for i in report.instances if i.period and i.period.planned)
    load = os.getloadavg()
    rows = [
        ("instances x snapshots", f"{instances} x {snapshots} = {encoded}"),
        ("pushed (new rows)", f"{pushed}"),
        ("ingest rate", f"{encoded / push_s:.1f} snapshots/s ({push_s:.1f} s, one transaction each)"),
        ("document bytes per snapshot", f"{raw_bytes / encoded / 1024:.0f} KiB (JSON as collected)"),
        ("repository bytes per snapshot", f"{repo_bytes / encoded / 1024:.0f} KiB (tables + indexes + TOAST)"),
        ("fleet report, 1 process", f"{serial_s:.2f} s wall, {serial_cpu:.2f} s CPU for {len(report.instances)} "
                                    f"instances ({planned} with a plan, {windows} busiest windows each)"),
        (f"fleet report, {workers} processes", f"{report_s:.2f} s wall (x{serial_s / report_s:.2f}) - target <= 10 s"),
        ("load average (1/5/15 min)", f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  value")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    top = report.instances[:3]
    print("top 3: " + "; ".join(f"{i.instance_id} {i.period.saved_s_per_h:.1f} s/h" for i in top if i.period))


if __name__ == "__main__":
    main()
