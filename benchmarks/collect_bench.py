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
   tablespace list with and without pg_tablespace_size (server time), and file sizes read in
   a helper process vs in the collector's own.
3. per database: rows, client seconds and server milliseconds of the relations query.
4. ``advisor collect -o`` as a user runs it (a new process, host location included).

``--locate`` times locating 1,000, 10,000 and 100,000 files of 4 KB (created in /var/tmp)
in this process alone and with half of them in a forked child (``advisor.storage.parallel``).

``--codecs`` measures only the document codec, without a server, on generated snapshots of
1,000, 10,000 and 100,000 relations (each with its location): encode and decode through
``advisor.model.jsonio`` (msgspec records), msgspec decoding plain frozen dataclasses with the
same fields, and the same code path of another revision (``--baseline main``: its
``advisor`` package is exported from git and timed in a child process).

    .venv/bin/python benchmarks/collect_bench.py [--databases 10] [--relations 10000] [--rounds 5]
    .venv/bin/python benchmarks/collect_bench.py --dsn "host=... dbname=postgres"   # an existing cluster
    .venv/bin/python benchmarks/collect_bench.py --codecs [--baseline main] [--rounds 5]
    .venv/bin/python benchmarks/collect_bench.py --locate [--rounds 5]
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
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from advisor.model import FileIO, HostLayout, Location, ServerInfo, Snapshot, load_snapshot  # noqa: E402

try:
    from advisor.model.jsonio import encode, write_atomic
except ModuleNotFoundError:  # a --baseline revision of the old layout (advisor/model/jsonio.py)
    from advisor.jsonio import encode, write_atomic  # old layout

if TYPE_CHECKING:
    from advisor.collect.context import CollectContext
    from tests.helpers.pg import PgServer

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


def whole_snapshot(dsn: str, output: Path, keep: bool = False) -> dict[str, Any]:
    """Seconds of each phase of one snapshot, from connecting to the file on disk.

    The collected rows are dropped unless *keep*: snapshots kept alive from earlier rounds
    would make every later garbage collection (and so every later round) slower.
    """
    from advisor.collect.context import CollectContext, build_snapshot
    from advisor.collectors.postgres import PostgresCollector

    collector = PostgresCollector()
    start = time.perf_counter()
    session = collector.connect(dsn, {})
    try:
        connected = time.perf_counter()
        context = CollectContext()
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
    from advisor.collect.sqlfiles import pick

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
    from advisor.collect.sqlfiles import pick

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

    from advisor.collectors.postgres import relations

    def collect_seconds(helper: bool) -> float:
        with setting(relations, "SIZE_HELPER", helper):
            return float(whole_snapshot(dsn, out)["collect"])

    here, helper = alternate(rounds, lambda: collect_seconds(False), lambda: collect_seconds(True))
    files = sum(1 for f in context.files if f.kind in ("data", "index", "toast"))
    rows.append(ratio_row(f"collect s, {files} sizes: stat here vs helper", here, helper, "s"))
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
    """Reading those snapshots back, and a workload from two of them in a new process."""
    loaded = statistics.median(timed(lambda: load_snapshot(first)) for _ in range(max(1, rounds // 2)))
    advisor = str(Path(sys.executable).with_name("advisor"))
    start = time.perf_counter()
    subprocess.run([advisor, "workload", str(first), str(second), "--format", "json", "-o", str(second) + ".wl"],
                   capture_output=True, check=True, timeout=600)
    workload_s = time.perf_counter() - start
    size_mb = first.stat().st_size / 1e6
    print(f"reading a {size_mb:.0f} MB snapshot back: {loaded:.2f} s")
    print(f"advisor workload A B -o on two of them (a new process): {workload_s:.2f} s")


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def report(dsn: str, major: int, rounds: int) -> None:
    from advisor.collectors.postgres import relations

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


CODEC_SIZES = (1_000, 10_000, 100_000)


def synthetic_snapshot(relations: int) -> Snapshot:
    """A snapshot of *relations* relation files in ten databases, each file with its location.

    Built from keyword arguments that every revision of the model accepts, so the baseline
    child process generates the very same document.
    """
    server = ServerInfo(dbms="postgres", version="18.1", version_num=180001, host="db1", name="bench",
                        identity="7301234567890123456", started_at="2026-11-21T08:00:00+00:00",
                        stats_reset={"io": None, "wal": "2026-11-01T00:00:00+00:00"},
                        settings={"data_directory": "/srv/pg/18/main", "track_io_timing": "on"})
    files = []
    locations = []
    for n in range(relations):
        db = n % 10
        path = f"/srv/pg/18/main/base/{16384 + db}/{20000 + n}"
        size = 8192 * (1 + n % 97)
        files.append(FileIO(file_id=f"bench{db}/{20000 + n}", path=path, kind="index" if n % 2 else "data",
                            tablespace="pg_default", container=f"bench{db}", size_bytes=size, reads=n * 3,
                            writes=None, read_bytes=n * 3 * 8192, write_bytes=None, name=f"t{n}"))
        locations.append(Location(path=path, disk="sda", partition="sda2", zone_start=0.1 + n / relations / 2,
                                  zone_end=0.1 + n / relations / 2 + 1e-6, extents=1, size_bytes=size,
                                  zone_mean=0.1 + n / relations / 2))
    layout = HostLayout(hostname="db1", locations=tuple(locations))
    return Snapshot(server=server, taken_at="2026-11-21T10:00:00.000+00:00", files=tuple(files), layout=layout,
                    tool_version="bench")


def codec_times(relations: int, rounds: int) -> dict[str, float]:
    """Median seconds to encode and to decode (``load_snapshot``) one generated snapshot."""
    snapshot = synthetic_snapshot(relations)
    encodes, decodes = [], []
    with tempfile.TemporaryDirectory(prefix="codec-bench-") as tmp:
        path = Path(tmp) / "snapshot.json"
        for _ in range(rounds):
            start = time.perf_counter()
            data = encode(snapshot)
            encodes.append(time.perf_counter() - start)
            path.write_bytes(data)
            start = time.perf_counter()
            back = load_snapshot(path)
            decodes.append(time.perf_counter() - start)
        if back != snapshot:
            raise SystemExit("the decoded snapshot differs from the encoded one")
    return {"encode": statistics.median(encodes), "decode": statistics.median(decodes), "bytes": float(len(data))}


def dataclass_twin(tp: Any, made: dict[type, type]) -> Any:
    """The same type with every record class replaced by a frozen slotted dataclass of the same fields."""
    import dataclasses
    import types
    import typing

    if isinstance(tp, type) and hasattr(tp, "__struct_fields__"):
        if tp not in made:
            hints = typing.get_type_hints(tp)
            spec: list[Any] = []
            for f in dataclasses.fields(tp):
                kind = dataclass_twin(hints[f.name], made)
                if f.default is not dataclasses.MISSING:
                    spec.append((f.name, kind, dataclasses.field(default=f.default)))
                elif f.default_factory is not dataclasses.MISSING:
                    factory = f.default_factory
                    if isinstance(factory, type) and hasattr(factory, "__struct_fields__"):
                        factory = dataclass_twin(factory, made)
                    spec.append((f.name, kind, dataclasses.field(default_factory=factory)))
                else:
                    spec.append((f.name, kind))
            made[tp] = dataclasses.make_dataclass(tp.__name__, spec, frozen=True, slots=True)
        return made[tp]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is None or origin is typing.Literal:
        return tp
    twins = tuple(dataclass_twin(a, made) for a in args)
    if origin in (types.UnionType, typing.Union):
        return typing.Union[twins]  # noqa: UP007 - built from a runtime tuple
    return origin[twins]


def msgspec_on_dataclasses(relations: int, rounds: int) -> dict[str, float]:
    """msgspec decoding the same document into plain frozen dataclasses (no unknown-field check)."""
    import msgspec

    data = encode(synthetic_snapshot(relations))
    decoder = msgspec.json.Decoder(dataclass_twin(Snapshot, {}))
    decoded = statistics.median(timed(lambda: decoder.decode(data)) for _ in range(rounds))
    foreign = data.replace(b'"reads":', b'"surprise":1,"reads":', 1)
    try:
        decoder.decode(foreign)
        strict = 0.0
    except msgspec.ValidationError:
        strict = 1.0
    return {"decode": decoded, "refuses_unknown": strict}


def baseline_times(revision: str, relations: int, rounds: int) -> dict[str, float] | str:
    """:func:`codec_times` of another revision's ``advisor`` package, in a child process."""
    with tempfile.TemporaryDirectory(prefix="codec-baseline-") as tmp:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "advisor", "collectors", "sql"],
                                 capture_output=True, timeout=120)
        if archive.returncode != 0:
            return f"no baseline: {archive.stderr.decode(errors='replace').strip()}"
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True, timeout=120)
        script = Path(tmp) / "benchmarks" / "collect_bench.py"  # so that its REPO is the exported tree
        script.parent.mkdir()
        script.write_bytes(Path(__file__).read_bytes())
        child = subprocess.run([sys.executable, str(script), "--codec-child", str(relations),
                                "--rounds", str(rounds)], capture_output=True, text=True, timeout=1200, cwd=tmp,
                               env={**os.environ, "PYTHONPATH": tmp})
        if child.returncode != 0:
            return f"no baseline: {(child.stderr.strip().splitlines() or ['?'])[-1]}"
        result: dict[str, float] = json.loads(child.stdout.splitlines()[-1])
        return result


def codecs(rounds: int, revision: str | None) -> None:
    """The codec table: this tree's records, msgspec on dataclasses, and the baseline revision."""
    print(f"{'relations':>9} {'MB':>6} {'encode s':>9} {'decode s':>9} {'dc decode s':>11} "
          f"{'base enc s':>10} {'base dec s':>10} {'enc ratio':>9} {'dec ratio':>9}")
    notes = set()
    for relations in CODEC_SIZES:
        ours = codec_times(relations, rounds)
        plain = msgspec_on_dataclasses(relations, rounds)
        base = baseline_times(revision, relations, rounds) if revision else "no baseline asked"
        if isinstance(base, str):
            notes.add(base)
            enc = dec = "-"
            ratios = ("-", "-")
        else:
            enc, dec = f"{base['encode']:.3f}", f"{base['decode']:.3f}"
            ratios = (f"{base['encode'] / ours['encode']:.2f}x", f"{base['decode'] / ours['decode']:.2f}x")
        if not plain["refuses_unknown"]:
            notes.add("msgspec on plain dataclasses accepts unknown fields (a foreign document would be half-read)")
        print(f"{relations:>9} {ours['bytes'] / 1e6:>6.1f} {ours['encode']:>9.3f} {ours['decode']:>9.3f} "
              f"{plain['decode']:>11.3f} {enc:>10} {dec:>10} {ratios[0]:>9} {ratios[1]:>9}")
    for note in sorted(notes):
        print(f"note: {note}")
    print(f"baseline: {revision or '-'}; ratios are baseline / this tree; median of {rounds} rounds; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def locate_sizes(rounds: int, root: Path) -> None:
    """Locating 1,000 / 10,000 / 100,000 files: this process alone vs half of them in a forked child."""
    from advisor.storage import parallel
    from advisor.storage.locate import Locator

    print(f"{'files':>7} {'one core s':>10} {'forked s':>9} {'ratio':>6}   (storage/parallel.py; "
          f"default: fork from {parallel.PARALLEL_MIN} paths)")
    made: list[str] = []
    for count in CODEC_SIZES:
        for index in range(len(made), count):
            folder = root / f"d{index // 1000:03d}"
            folder.mkdir(exist_ok=True)
            path = folder / f"f{index:06d}"
            path.write_bytes(b"x" * 4096)
            made.append(str(path))
        os.sync()
        paths = made[:count]

        def run(threshold: int, paths: list[str] = paths) -> float:
            with setting(parallel, "PARALLEL_MIN", threshold):
                return timed(lambda: Locator().locate_many(paths))

        alone, forked = alternate(rounds, lambda: run(1 << 62), lambda: run(1))
        print(f"{count:>7} {alone:>10.3f} {forked:>9.3f} {alone / forked:>5.2f}x")
    print(f"median of {rounds} rounds; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--databases", type=int, default=10)
    parser.add_argument("--relations", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dsn", help="measure an existing cluster instead of building one (nothing is written to it)")
    parser.add_argument("--codecs", action="store_true", help="only the document codec, on generated snapshots")
    parser.add_argument("--baseline", default=None, help="with --codecs: also time this git revision's codec")
    parser.add_argument("--locate", action="store_true", help="only locating files on one core vs two")
    parser.add_argument("--codec-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.codec_child:
        import advisor

        print(f"timing {advisor.__file__}", file=sys.stderr)
        print(json.dumps(codec_times(args.codec_child, args.rounds)))
        return
    if args.codecs:
        codecs(args.rounds, args.baseline)
        return
    if args.locate:
        with tempfile.TemporaryDirectory(prefix="locate-bench-", dir="/var/tmp") as tmp:
            locate_sizes(args.rounds, Path(tmp))
        return
    if args.dsn:
        import psycopg

        with psycopg.connect(args.dsn) as conn:
            major = conn.info.server_version // 10000
        report(args.dsn, major, args.rounds)
        return
    from tests.helpers.pg import available_versions, running_postgres

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
