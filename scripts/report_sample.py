"""Print the real run pasted in docs/report.md ("A real run"): PostgreSQL 18 on a loop disk.

    .venv/bin/python scripts/report_sample.py [--interval 20] [--keep DIR]

A 2 GiB loop disk with three partitions (outer, middle, inner 30/30/39 %): the data
directory (WAL, ``pg_default``) on the outer one, tablespace ``history`` in the middle and
``orders`` on the inner one. pgbench runs random primary-key reads on ``orders`` (about
100 MB, six times shared_buffers) plus inserts into a ``pg_default`` table while ``advisor
collect --interval`` samples the server; a thread evicts ``orders`` from the OS page cache
every two seconds (``--evict-every``), as memory pressure on a busy host would, so part of the buffer misses reach
the disk and part are page-cache hits. The workload is then reported as a DBA would, and
once more with its diskstats removed to show the database's own figures next to the
calibrated ones. Needs root (loop devices, mounts) and the PostgreSQL 18 binaries;
everything is removed at the end.

The docs tests run the page's commands on this run's ``w.json``: after regenerating the page,
refresh it with ``--keep DIR`` and ``cp DIR/w.json tests/docs/fixtures/report-sample-w.json``
(docs/plan.md's "A real run" plans the same file).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.helpers.loopdisk import scratch_disk  # noqa: E402
from tests.helpers.pagecache import evict  # noqa: E402
from tests.helpers.pg import PgServer, running_postgres  # noqa: E402

ROWS = 400_000
PGBENCH = """\\set id1 random(1, {rows})
\\set id2 random(1, {rows})
\\set id3 random(1, {rows})
\\set id4 random(1, {rows})
SELECT pad FROM orders WHERE id = :id1;
SELECT pad FROM orders WHERE id = :id2;
SELECT pad FROM orders WHERE id = :id3;
SELECT pad FROM orders WHERE id = :id4;
INSERT INTO audit_log (order_id) VALUES (:id1);
"""


def advisor(*args: str, env: dict[str, str] | None = None, show: str | None = None) -> str:
    """Run ``advisor *args`` and echo it as the user would type it; returns stdout."""
    print(f"$ advisor {show or ' '.join(args)}", flush=True)
    done = subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, cwd=REPO,
                          env=env, timeout=900, check=False)
    if done.returncode != 0:
        raise SystemExit(f"advisor {args[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout


def load(pg: PgServer) -> None:
    pg.psql(
        f"CREATE TABLE orders (id int PRIMARY KEY, pad text) TABLESPACE orders;"
        f"INSERT INTO orders SELECT g, repeat('o', 200) FROM generate_series(1, {ROWS}) g;"
        "ALTER INDEX orders_pkey SET TABLESPACE orders;"
        "CREATE TABLE history (id int, pad text) TABLESPACE history;"
        "INSERT INTO history SELECT g, repeat('h', 200) FROM generate_series(1, 20000) g;"
        "CREATE TABLE audit_log (id bigserial PRIMARY KEY, order_id int, at timestamptz DEFAULT now());"
        "VACUUM ANALYZE; CHECKPOINT;"
    )


class MemoryPressure(threading.Thread):
    """Evict *directory*'s files from the page cache every *seconds*, as a busy host's memory pressure would."""

    def __init__(self, directory: Path, seconds: float) -> None:
        super().__init__(daemon=True)
        self.directory = directory
        self.seconds = seconds
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(self.seconds):
            evict(self.directory)


def show(work: Path, root: Path) -> None:
    """The report of the workload as a DBA sees it, then the same workload without diskstats."""
    env = {**os.environ, "COLUMNS": "110"}
    preset = ["--preset", "class-7200-desktop"]
    print(advisor("report", "--workload", str(work), *preset, env=env,
                  show="report --workload w.json --preset class-7200-desktop"))
    report = json.loads(advisor("report", "--workload", str(work), *preset, "--format", "json",
                                "--scripts", str(root / "scripts"),
                                show="report --workload w.json --preset class-7200-desktop --format json "
                                     "--scripts scripts"))
    raw_path = root / "w-raw.json"
    raw_path.write_text(json.dumps({**json.loads(work.read_text()), "diskstats": []}))
    raw = json.loads(advisor("report", "--workload", str(raw_path), *preset, "--format", "json",
                             show="report --workload w-raw.json (diskstats removed) --format json"))
    for label, doc in (("calibrated", report), ("database's own", raw)):
        print(f"== {label}")
        print(json.dumps(doc["findings"], indent=2))
        print(json.dumps([a for a in doc["areas"] if a["iops"] > 0.5], indent=2))
        plan = doc["plan"]
        print(json.dumps({k: plan[k] for k in ("predicted_before_ms", "predicted_after_ms", "predicted_gain")}
                         if plan else None))
        print(json.dumps(plan["placements"][0] if plan else None, indent=2))
        print("\n".join(doc["warnings"]))
    for path in sorted((root / "scripts").glob("*")):
        print(f"--- {path.name}\n{path.read_text()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=int, default=20)
    parser.add_argument("--evict-every", type=float, default=2.0, help="seconds between page-cache evictions")
    parser.add_argument("--keep", type=Path, help="copy the snapshots and scripts here")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="advisor-sample-"))
    work = root / "w.json"
    try:
        with scratch_disk(2 << 30, [("outer", 0.3), ("middle", 0.3), ("inner", 0.39)],
                          image_dir=root / "disk") as disk:
            outer, middle, inner = (disk.partition(n) for n in ("outer", "middle", "inner"))
            assert outer.mountpoint and middle.mountpoint and inner.mountpoint
            spaces = {"orders": inner.mountpoint / "ts_orders", "history": middle.mountpoint / "ts_history"}
            with running_postgres(18, outer.mountpoint / "pg", tablespaces=spaces,
                                  settings={"track_io_timing": "on"}) as pg:
                load(pg)
                script = root / "sample.sql"
                script.write_text(PGBENCH.format(rows=ROWS))
                evict(spaces["orders"])
                bench = subprocess.Popen(
                    [str(pg.pgbench_path), "-n", "-c", "4", "-j", "2", "-T", str(args.interval + 40), "-f",
                     str(script), pg.dsn], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                pressure = MemoryPressure(spaces["orders"], args.evict_every)
                pressure.start()
                try:
                    time.sleep(5)
                    dsn = pg.dsn.replace(" connect_timeout=10", "")
                    advisor("collect", "--dsn", dsn, "--interval", str(args.interval), "-o", str(work),
                            show=f'collect --dsn "{dsn}" --interval {args.interval} -o w.json')
                finally:
                    pressure.stop.set()
                    pressure.join()
                    bench.terminate()
                    bench.wait(timeout=60)
            show(work, root)
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for path in [work, *(root / "scripts").glob("*")]:
                shutil.copy(path, args.keep / path.name)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
