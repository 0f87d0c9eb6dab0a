"""How long one PostgreSQL snapshot takes on a cluster with many databases and relations.

Starts a throw-away server (newest available version), builds DATABASES databases of
RELATIONS relations each (half tables with one row, half their primary-key indexes; the
first database is built with one bulk DDL script, the others are copied from it with
CREATE DATABASE ... TEMPLATE), then measures, all in one run:

1. the whole database snapshot: connect, collect every database, encode the document and
   write it to a file (what ``advisor collect`` does apart from locating files on disks),
   with 1, 2 and 4 queries in flight. Target: at most one second.
2. each design choice against the alternative it replaced, side by side: the relations
   query with pg_relation_filepath vs paths built by the collector (server time), without
   vs with the owning table of each index and TOAST relation (parent_oid, server time), the
   tablespace list with and without pg_tablespace_size (server time), file sizes read in a
   helper process vs in the collector's own, FileIO built by the dataclass vs the slot
   constructor, and JSON by the standard library vs orjson.
3. per database: rows, client seconds and server milliseconds of the relations query.
4. ``advisor collect -o`` as a user runs it (a new process, host location included).

    .venv/bin/python benchmarks/collect_bench.py [--databases 10] [--relations 10000] [--rounds 5]
    .venv/bin/python benchmarks/collect_bench.py --dsn "host=... dbname=postgres"   # an existing cluster
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from advisor.bulk import gc_paused  # noqa: E402
from advisor.collect.context import CollectContext, build_snapshot  # noqa: E402
from advisor.collectors.postgres import PostgresCollector, relations  # noqa: E402
from advisor.jsonio import encode, to_jsonable, write_atomic  # noqa: E402
from advisor.model import FileIO, new_file_io  # noqa: E402
from advisor.sqlfiles import pick  # noqa: E402
from tests.helpers.pg import PgServer, available_versions, running_postgres  # noqa: E402

FILEPATH_QUERY_EXPRESSION = "pg_relation_filepath(c.oid)"
"""What the relations query used to ask per relation, before paths were built client-side."""


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


def whole_snapshot(dsn: str, output: Path, pause_gc: bool = True, keep: bool = False) -> dict[str, Any]:
    """Seconds of each phase of one snapshot, from connecting to the file on disk.

    The collected rows are dropped unless *keep*: snapshots kept alive from earlier rounds
    would make every later garbage collection (and so every later round) slower.
    """
    collector = PostgresCollector()
    start = time.perf_counter()
    session = collector.connect(dsn, {})
    try:
        connected = time.perf_counter()
        context = CollectContext()
        with gc_paused() if pause_gc else nullcontext():  # as advisor.collect.sampling.take_snapshot does
            collector.collect(session, context)
            collected = time.perf_counter()
            document = encode(build_snapshot(context, []))
        encoded = time.perf_counter()
        write_atomic(output, document)
        written = time.perf_counter()
    finally:
        collector.close(session)
    return {
        "connect": connected - start, "collect": collected - connected, "encode": encoded - collected,
        "write": written - encoded, "total": written - start, "files": len(context.files),
        "bytes": len(document), "visits": context.views["relation_visits"], "context": context if keep else None,
    }


@contextmanager
def setting(module: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def alternate(rounds: int, before: Callable[[], float], after: Callable[[], float]) -> tuple[float, float]:
    """Medians of *before* and *after*, run in turns so that drift in the machine hits both."""
    a, b = [], []
    for _ in range(rounds):
        a.append(before())
        b.append(after())
    return statistics.median(a), statistics.median(b)


def server_ms(dsn: str, dbname: str, *queries: str, rounds: int = 9) -> list[float]:
    """Median execution time the server reports for each query (EXPLAIN ANALYZE, timing off).

    The queries take turns on one connection after a warm-up round, so catalog caches and
    drift in the machine treat them alike.
    """
    import psycopg

    times: list[list[float]] = [[] for _ in queries]
    with psycopg.connect(dsn, dbname=dbname, autocommit=True) as conn:
        for round_ in range(rounds + 1):
            for i, query in enumerate(queries):
                row = conn.execute(f"EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) {query}").fetchone()
                assert row is not None
                if round_:
                    times[i].append(float(row[0][0]["Execution Time"]))
    return [statistics.median(t) for t in times]


def relations_query(major: int, *, old: bool) -> str:
    text = pick("postgres", "relations", major).text.replace("%(count_shared)s", "false")
    if old:
        start = text.index("(CASE WHEN c.relfilenode")
        end = text.index("AS filenode")
        text = text[:start] + FILEPATH_QUERY_EXPRESSION + " " + text[end:]
    return text


def relations_without_parent(major: int) -> str:
    """The relations query as it was before it named the table of each index and TOAST relation."""
    text = relations_query(major, old=False)
    for line in (",\n       COALESCE(owner.oid, i.indrelid)::bigint AS parent_oid",
                 "\n  LEFT JOIN pg_index i ON i.indexrelid = c.oid",
                 "\n  LEFT JOIN pg_class owner ON owner.reltoastrelid = COALESCE(i.indrelid, c.oid) "
                 "AND owner.reltoastrelid <> 0"):
        if line not in text:
            raise LookupError(f"relations query changed: {line.strip()!r} not found")
        text = text.replace(line, "")
    return text


def tablespaces_query(major: int, *, old: bool) -> str:
    text = pick("postgres", "tablespaces", major).text
    if old:
        text = text.replace("pg_tablespace_location(t.oid) AS location",
                            "pg_tablespace_location(t.oid) AS location, pg_tablespace_size(t.oid) AS size_bytes")
    return text


def ratio_row(label: str, before: float, after: float, unit: str) -> str:
    return f"{label:<44} {before:>10.3f} {after:>10.3f} {unit:<4} {before / after:>7.2f}x"


def compare_choices(dsn: str, major: int, rounds: int, out: Path, context: CollectContext) -> None:
    """Each choice against what it replaced, measured now on the same cluster."""
    biggest = max(context.views["relation_visits"], key=lambda v: v["relations"])["datname"]
    relations_ms = server_ms(dsn, biggest, relations_query(major, old=True), relations_query(major, old=False))
    parent_ms = server_ms(dsn, biggest, relations_without_parent(major), relations_query(major, old=False))
    spaces_ms = server_ms(dsn, "postgres", tablespaces_query(major, old=True), tablespaces_query(major, old=False),
                          rounds=3)
    rows = [
        ratio_row(f"relations query, server ms ({biggest})", *relations_ms, "ms"),
        ratio_row("relations query ms: without vs with parent_oid", *parent_ms, "ms"),
        ratio_row("tablespace list, server ms", *spaces_ms, "ms"),
    ]
    def collect_seconds(helper: bool) -> float:
        with setting(relations, "SIZE_HELPER", helper):
            return float(whole_snapshot(dsn, out)["collect"])

    here, helper = alternate(rounds, lambda: collect_seconds(False), lambda: collect_seconds(True))
    rows.append(ratio_row("collect s, sizes: stat here vs helper process", here, helper, "s"))
    gc_on, gc_off = alternate(rounds, lambda: float(whole_snapshot(dsn, out, pause_gc=False)["total"]),
                              lambda: float(whole_snapshot(dsn, out)["total"]))
    rows.append(ratio_row("snapshot s, garbage collector on vs paused", gc_on, gc_off, "s"))
    files = [f for f in context.files if f.kind in ("data", "index", "toast")]
    args = [(f.file_id, f.path, f.kind, f.tablespace, f.container, f.size_bytes, f.reads, None, f.read_bytes, None,
             None, None, None, None, None, f.name, f.segment_paths) for f in files]

    def build_with(constructor: Callable[..., FileIO]) -> float:
        start = time.perf_counter()
        for a in args:
            constructor(*a)
        return time.perf_counter() - start

    dataclass_s, slots_s = alternate(rounds, lambda: build_with(FileIO), lambda: build_with(new_file_io))
    rows.append(ratio_row(f"{len(args)} FileIO: dataclass vs slot constructor", dataclass_s, slots_s, "s"))
    snapshot = build_snapshot(context, [])

    def stdlib() -> float:
        start = time.perf_counter()
        json.dumps(to_jsonable(snapshot), ensure_ascii=False, separators=(",", ":"))
        return time.perf_counter() - start

    def fast() -> float:
        start = time.perf_counter()
        encode(snapshot)
        return time.perf_counter() - start

    stdlib_s, orjson_s = alternate(rounds, stdlib, fast)
    rows.append(ratio_row("JSON s: json.dumps(walk) vs orjson", stdlib_s, orjson_s, "s"))
    print()
    print(f"{'choice (before vs after)':<44} {'before':>10} {'after':>10} {'':<4} {'ratio':>8}")
    for row in rows:
        print(row)


def cli_snapshot(dsn: str, out: Path) -> tuple[float, dict[str, float]]:
    """``advisor collect -o`` in a new process: wall seconds and each collector's seconds."""
    advisor = str(Path(sys.executable).with_name("advisor"))
    start = time.perf_counter()
    done = subprocess.run([advisor, "collect", "--dsn", dsn, "-o", str(out)], capture_output=True, text=True,
                          timeout=600)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 4):
        raise SystemExit(f"advisor collect failed ({done.returncode}): {done.stderr.strip()}")
    runs = {r["name"]: float(r["duration_s"]) for r in json.loads(out.read_text())["runs"]}
    return wall, runs


def reading(rounds: int, first: Path, second: Path) -> None:
    """Reading those snapshots back: the generic walk vs the compiled decoders, and a workload."""
    from advisor.jsonio import _walk
    from advisor.model import Snapshot, load_snapshot

    def before() -> float:  # the standard library parser and the generic walk, as advisor read files before
        start = time.perf_counter()
        _walk(Snapshot, json.loads(first.read_text()), "$")
        return time.perf_counter() - start

    def after() -> float:
        start = time.perf_counter()
        load_snapshot(first)
        return time.perf_counter() - start

    generic_s, compiled_s = alternate(max(1, rounds // 2), before, after)
    advisor = str(Path(sys.executable).with_name("advisor"))
    start = time.perf_counter()
    subprocess.run([advisor, "workload", str(first), str(second), "--format", "json", "-o", str(second) + ".wl"],
                   capture_output=True, check=True, timeout=600)
    workload_s = time.perf_counter() - start
    size_mb = first.stat().st_size / 1e6
    print(f"reading a {size_mb:.0f} MB snapshot back: json + generic walk {generic_s:.2f} s, "
          f"orjson + compiled decoders {compiled_s:.2f} s ({generic_s / compiled_s:.1f}x)")
    print(f"advisor workload A B -o on two of them (a new process): {workload_s:.2f} s")


def report(dsn: str, major: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="collect-bench-out-") as tmp:
        out = Path(tmp) / "snapshot.json"
        print()
        print(f"{'in flight':>9} {'total s':>8} {'min s':>7} {'connect':>8} {'collect':>8} {'encode':>7} "
              f"{'write':>6} {'files':>8} {'MB':>6} {'vs 1':>6}")
        results: dict[int, list[dict[str, Any]]] = {1: [], 2: [], 4: []}
        for _ in range(rounds):  # in turns, so that drift in the machine hits every setting
            for parallel, runs in results.items():
                with setting(relations, "MAX_PARALLEL", parallel):
                    runs.append(whole_snapshot(dsn, out))
        base = statistics.median(r["total"] for r in results[1])
        for parallel, runs in results.items():
            med = {k: statistics.median(float(r[k]) for r in runs) for k in ("total", "connect", "collect",
                                                                                "encode", "write")}
            print(f"{parallel:>9} {med['total']:>8.3f} {min(r['total'] for r in runs):>7.3f} {med['connect']:>8.3f} "
                  f"{med['collect']:>8.3f} {med['encode']:>7.3f} {med['write']:>6.3f} {runs[0]['files']:>8} "
                  f"{runs[0]['bytes'] / 1e6:>6.1f} {base / med['total']:>5.2f}x")
        default = results[relations.MAX_PARALLEL]
        print(f"target: whole snapshot <= 1 s; default ({relations.MAX_PARALLEL} in flight) median "
              f"{statistics.median(r['total'] for r in default):.3f} s "
              f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
        last = whole_snapshot(dsn, out, keep=True)
        compare_choices(dsn, major, rounds, out, last["context"])
        print()
        print(f"{'database':<12} {'rows':>7} {'query s':>8} {'files s':>8} {'server ms':>10}")
        query = relations_query(major, old=False)
        for visit in last["visits"]:
            ms = server_ms(dsn, str(visit["datname"]), query, rounds=3)[0]
            print(f"{visit['datname']:<12} {visit['relations']:>7} {visit['seconds']:>8.3f} "
                  f"{visit['files_seconds']:>8.3f} {ms:>10.1f}")
        later = Path(tmp) / "snapshot-b.json"
        walls, runs = zip(*(cli_snapshot(dsn, out) for _ in range(max(1, rounds // 2))), strict=True)
        cli_snapshot(dsn, later)
        wall = statistics.median(walls)
        print()
        print(f"advisor collect -o (new process, host location included): {wall:.2f} s; collectors: "
              + ", ".join(f"{name} {statistics.median(r[name] for r in runs):.2f} s" for name in runs[0]))
        reading(rounds, out, later)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--databases", type=int, default=10)
    parser.add_argument("--relations", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dsn", help="measure an existing cluster instead of building one (nothing is written to it)")
    args = parser.parse_args()
    if args.dsn:
        import psycopg

        with psycopg.connect(args.dsn) as conn:
            major = conn.info.server_version // 10000
        report(args.dsn, major, args.rounds)
        return
    version = max(available_versions())
    with tempfile.TemporaryDirectory(prefix="collect-bench-") as base, running_postgres(
        version, Path(base), settings={"max_locks_per_transaction": "256", "autovacuum": "off"}
    ) as server:
        start = time.perf_counter()
        build(server, args.databases, args.relations)
        print(f"PostgreSQL {version}: built {args.databases} databases x {args.relations} relations "
              f"in {time.perf_counter() - start:.1f} s")
        report(server.dsn, version, args.rounds)


if __name__ == "__main__":
    main()
