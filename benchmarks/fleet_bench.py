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

from advisor.model import load_snapshot  # noqa: E402
from advisor.repo.connection import connect  # noqa: E402
from advisor.repo.documents import from_document  # noqa: E402
from advisor.repo.ingest import checked_connection  # noqa: E402
from advisor.repo.schema import migrate  # noqa: E402
from tests.helpers.pg import available_versions, running_postgres  # noqa: E402
from tests.repo.fleetgen import derive, real_pair  # noqa: E402


def main() -> None:
    """Parse options, run once, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=200)
    parser.add_argument("--snapshots", type=int, default=48)
    parser.add_argument("--windows", type=int, default=2)
    parser.add_argument("--clones", type=int, default=1,
                        help="copy the summaries this many times in SQL (the ranking at instances x clones)")
    parser.add_argument("--pair", nargs=2, type=Path, help="reuse two collected snapshots (A B)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
        root = Path(tmp)
        if args.pair:
            a, b = load_snapshot(args.pair[0]), load_snapshot(args.pair[1])
        else:
            a, b = real_pair(root / "pair")
        with running_postgres(max(available_versions()), root / "repo", fsync=True) as server:
            run(server.dsn, a, b, args.instances, args.snapshots, args.windows, args.clones)


def run(dsn: str, a: object, b: object, instances: int, snapshots: int, windows: int, clones: int = 1) -> None:
    """Push the derived fleet in batches (the real ingest path), summarise, rank, measure the size."""
    from advisor.fleet.rank import ranked_from_summaries
    from advisor.fleet.summaries import default_summarizer, drain
    from advisor.repo.ingest import push_many

    summarizer = default_summarizer()
    with connect(dsn) as conn:
        migrate(conn)
        checked_connection(conn)
        start = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
        encoded = pushed = raw_bytes = 0
        push_s = push_cpu = 0.0
        for _i, series in derive(a, b, instances, snapshots, start):  # type: ignore[arg-type]
            items = [from_document(s) for s in series]
            t0, c0 = time.perf_counter(), time.process_time()
            for n in range(0, len(items), 100):
                pushed += push_many(conn, items[n:n + 100]).count("new")
            push_s += time.perf_counter() - t0
            push_cpu += time.process_time() - c0
            raw_bytes += sum(len(item.raw) for item in items)
            encoded += len(items)
        t0 = time.perf_counter()
        done = drain(conn, summarizer)
        summarise_s = time.perf_counter() - t0
        conn.execute("ANALYZE")
        conn.commit()
        size = conn.execute("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                            "ON n.oid = c.relnamespace WHERE n.nspname = 'advisor' AND c.relkind = 'r'").fetchone()
        by_table = conn.execute(
            "SELECT coalesce(p.relname, c.relname), sum(pg_total_relation_size(c.oid)) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_inherits i ON i.inhrelid = c.oid "
            "LEFT JOIN pg_class p ON p.oid = i.inhparent WHERE n.nspname = 'advisor' AND c.relkind = 'r' "
            "GROUP BY 1 HAVING sum(pg_total_relation_size(c.oid)) > 65536 ORDER BY 2 DESC").fetchall()
        conn.rollback()
        if clones > 1:  # the ranking at fleet size: summary rows copied in SQL (ingest is measured above)
            from advisor.fleet.summaries import _COLUMNS
            rest = _COLUMNS.split(", ", 1)[1]
            conn.execute(f"INSERT INTO advisor.interval_summaries (instance_id, {rest}) SELECT "
                         f"instance_id || '-c' || g, {rest} FROM advisor.interval_summaries, "
                         "generate_series(2, %(k)s) g", {"k": clones})
            from advisor.fleet.summaries import ROLLUP_COLUMNS
            tail = ROLLUP_COLUMNS.split(", ", 1)[1]
            for table in ("summary_hourly", "summary_daily"):
                conn.execute(f"INSERT INTO advisor.{table} (instance_id, {tail}) SELECT instance_id || '-c' || g, "
                             f"{tail} FROM advisor.{table}, generate_series(2, %(k)s) g", {"k": clones})
            conn.execute("INSERT INTO advisor.instances (instance_id, dbms, identity, host, name) SELECT instance_id "
                         "|| '-c' || g, dbms, identity || g, host || '-c' || g, name FROM advisor.instances, "
                         "generate_series(2, %(k)s) g", {"k": clones})
        conn.commit()
        conn.autocommit = True  # VACUUM: hint bits and the visibility map set, as autovacuum leaves a table at rest
        conn.execute("VACUUM (ANALYZE)")
        conn.autocommit = False
        span = {"since": start - dt.timedelta(days=1), "until": start + dt.timedelta(days=40)}
        timings = []
        for shown in (50, None, 50, None):
            t0 = time.perf_counter()
            report = ranked_from_summaries(conn, summarizer.models_key, windows=windows, min_gain=0.05,
                                           shown=shown, **span)  # type: ignore[arg-type]
            timings.append((shown, time.perf_counter() - t0))
        conn.rollback()
        from advisor.fleet.instances import fleet_report

        top = next(i.instance_id for i in report.instances if "-c" not in i.instance_id)  # one with snapshots
        shows = []
        for _ in range(3):  # what `fleet show` computes: one instance, every window advised by the engine
            t0 = time.perf_counter()
            fleet_report(conn, summarizer.models, only=top, keep=lambda _label, _report: None, windows=windows,
                         **span)  # type: ignore[arg-type]
            shows.append(time.perf_counter() - t0)
        conn.rollback()
    repo_bytes = int(size[0]) if size and size[0] else 0
    load = os.getloadavg()
    rows = [
        ("instances x snapshots", f"{instances} x {snapshots} = {encoded}"),
        ("pushed (new rows)", f"{pushed}"),
        ("ingest rate", f"{encoded / push_s:.1f} snapshots/s ({push_s:.1f} s wall, {push_cpu:.1f} s CPU in this "
                        "process, batches of 100 by COPY)"),
        ("summarise rate", f"{done.summaries / summarise_s:.1f} intervals/s ({summarise_s:.1f} s, one process)"),
        ("document bytes per snapshot", f"{raw_bytes / encoded / 1024:.0f} KiB (JSON as collected)"),
        ("repository bytes per snapshot", f"{repo_bytes / encoded / 1024:.1f} KiB (tables + indexes + TOAST)"),
        *((f"fleet report, SQL, busiest windows of {'the first 50' if shown else 'all'}",
           f"{took:.2f} s for {len(report.instances)} instances x {snapshots} snapshots") for shown, took in timings),
        ("fleet show's computation, one instance, one day", " ".join(f"{t:.2f}" for t in shows) + " s"),
        ("load average (1/5/15 min)", f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  value")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print("bytes per snapshot by table: " + ", ".join(f"{t} {int(b) / encoded / 1024:.1f} KiB" for t, b in by_table))


if __name__ == "__main__":
    main()
