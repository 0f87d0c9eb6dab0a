"""How long one PostgreSQL snapshot takes on a cluster with many databases and relations.

Starts a throw-away server (newest available version), builds DATABASES databases of
RELATIONS relations each (half tables with one row, half their primary-key indexes; the
first database is built with one bulk DDL script, the others are copied from it with
CREATE DATABASE ... TEMPLATE, which is fast), then times the collector with 1, 2 and 4
parallel per-database connections. Also prints the server-side execution time of the
per-relation query in each database (EXPLAIN ANALYZE), so client cost and server cost can be
told apart. Target: the whole snapshot in at most one second.

    .venv/bin/python benchmarks/collect_bench.py [--databases 10] [--relations 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from advisor.collect import CollectContext, build_snapshot  # noqa: E402
from advisor.jsonio import dumps  # noqa: E402
from advisor.sqlfiles import pick  # noqa: E402
from collectors.postgres import PostgresCollector, relations  # noqa: E402
from tests.helpers.pg import PgServer, available_versions, running_postgres  # noqa: E402


def build(server: PgServer, databases: int, relations_per_db: int) -> None:
    """Create the databases; DDL is generated in bulk and run as one script."""
    tables = relations_per_db // 2
    ddl = ["BEGIN;"]
    ddl += [f"CREATE TABLE t{n} (id int PRIMARY KEY); INSERT INTO t{n} VALUES ({n});" for n in range(tables)]
    ddl.append("COMMIT; VACUUM ANALYZE;")
    server.psql("CREATE DATABASE bench0;")
    server.psql("\n".join(ddl), dbname="bench0")
    for n in range(1, databases):
        server.psql(f"CREATE DATABASE bench{n} TEMPLATE bench0;")


def snapshot_seconds(server: PgServer, parallel: int) -> tuple[float, float, int, list[relations.DatabaseVisit], float]:
    """(collect seconds, JSON seconds, files, per-database visits, client CPU seconds) of one snapshot."""
    relations.MAX_PARALLEL = parallel
    collector = PostgresCollector()
    session = collector.connect(server.dsn, {})
    try:
        context = CollectContext()
        start, cpu = time.perf_counter(), time.process_time()
        collector.collect(session, context)
        collected, cpu = time.perf_counter() - start, time.process_time() - cpu
        snapshot = build_snapshot(context, [])
        start = time.perf_counter()
        dumps(snapshot)
        encoded = time.perf_counter() - start
    finally:
        collector.close(session)
    visits = list(context.views["relation_visits"])
    return collected, encoded, len(snapshot.files), visits, cpu  # type: ignore[return-value]


def server_side_ms(server: PgServer, datname: str, major: int) -> float:
    """Execution time the server reports for the per-relation query in one database."""
    text = pick("postgres", "relations", major).text.replace("%(count_shared)s", "false")
    out = server.psql(f"EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) {text}", dbname=datname)
    import json

    return float(json.loads(out)[0]["Execution Time"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", type=int, default=10)
    parser.add_argument("--relations", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    version = max(available_versions())
    with tempfile.TemporaryDirectory(prefix="collect-bench-") as base, running_postgres(
        version, Path(base), settings={"max_locks_per_transaction": "256", "autovacuum": "off"}
    ) as server:
        start = time.perf_counter()
        build(server, args.databases, args.relations)
        print(f"PostgreSQL {version}: built {args.databases} databases x {args.relations} relations "
              f"in {time.perf_counter() - start:.1f} s")
        results = {}
        for parallel in (1, 2, 4):
            runs = [snapshot_seconds(server, parallel) for _ in range(args.rounds)]
            results[parallel] = runs
        base_median = statistics.median(r[0] for r in results[1])
        print()
        print(f"{'parallel':>8} {'snapshot s (median)':>20} {'min s':>7} {'client CPU s':>13} {'JSON s':>7} "
              f"{'files':>8} {'vs 1':>6}")
        for parallel, runs in results.items():
            median = statistics.median(r[0] for r in runs)
            print(f"{parallel:>8} {median:>20.3f} {min(r[0] for r in runs):>7.3f} "
                  f"{statistics.median(r[4] for r in runs):>13.3f} "
                  f"{statistics.median(r[1] for r in runs):>7.3f} {runs[0][2]:>8} {base_median / median:>5.2f}x")
        print(f"(load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
        visits = results[4][-1][3]
        print()
        print(f"{'database':<12} {'rows':>7} {'client s':>9} {'server ms':>10}")
        for visit in visits:
            name = str(visit["datname"])  # type: ignore[index]
            ms = server_side_ms(server, name, version)
            print(f"{name:<12} {visit['relations']:>7} {visit['seconds']:>9.3f} {ms:>10.1f}")  # type: ignore[index]


if __name__ == "__main__":
    main()
