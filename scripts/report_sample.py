"""Print the real run pasted in docs/report.md ("A real run"): PostgreSQL 18 on a loop disk.

    .venv/bin/python scripts/report_sample.py [--interval 20] [--keep DIR]

A 2 GiB loop disk with three partitions (outer, middle, inner 30/30/39 %): the data
directory (WAL, ``pg_default``) on the outer one, tablespace ``history`` in the middle and
``orders`` on the inner one. ``orders`` (about 100 MB, larger than shared_buffers) is
evicted from the OS page cache, then pgbench runs random primary-key reads on it plus
inserts into a ``pg_default`` table while ``advisor report --dsn`` samples the server, and
two snapshots are saved for the JSON and script excerpts. The reads start cold and warm up
in the page cache, so the database's buffer misses exceed what reaches the disk: the report
shows the calibration. Needs root (loop devices, mounts) and the PostgreSQL 18 binaries;
everything is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.helpers.loopdisk import scratch_disk  # noqa: E402
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


def evict(directory: Path) -> None:
    """Drop the (checkpointed, clean) files under *directory* from the OS page cache."""
    for path in directory.rglob("*"):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="copy the snapshots and scripts here")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="advisor-sample-"))
    env = {**os.environ, "COLUMNS": "110"}
    try:
        with scratch_disk(2 << 30, [("outer", 0.3), ("middle", 0.3), ("inner", 0.39)],
                          image_dir=root / "disk") as disk:
            outer, middle, inner = (disk.partition(n) for n in ("outer", "middle", "inner"))
            assert outer.mountpoint and middle.mountpoint and inner.mountpoint
            spaces = {"orders": inner.mountpoint / "ts_orders", "history": middle.mountpoint / "ts_history"}
            with running_postgres(18, outer.mountpoint / "pg", tablespaces=spaces, fsync=True,
                                  settings={"track_io_timing": "on"}) as pg:
                load(pg)
                script = root / "sample.sql"
                script.write_text(PGBENCH.format(rows=ROWS))
                evict(spaces["orders"])
                bench = subprocess.Popen(
                    [str(pg.pgbench_path), "-n", "-c", "4", "-j", "2", "-T", str(3 * args.interval + 30), "-f",
                     str(script), pg.dsn], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    time.sleep(2)
                    dsn = pg.dsn.replace(" connect_timeout=10", "")
                    print(advisor("report", "--dsn", dsn, "--interval", str(args.interval), "--preset",
                                  "class-7200-desktop", env=env,
                                  show=f'report --dsn "{dsn}" --interval {args.interval} '
                                       "--preset class-7200-desktop"))
                    snaps = [root / "a.json", root / "b.json"]
                    advisor("collect", "--dsn", dsn, "-o", str(snaps[0]), show=f'collect --dsn "{dsn}" -o a.json')
                    time.sleep(args.interval)
                    advisor("collect", "--dsn", dsn, "-o", str(snaps[1]), show=f'collect --dsn "{dsn}" -o b.json')
                finally:
                    bench.terminate()
                    bench.wait(timeout=60)
                pair = [str(s) for s in snaps]
                report = json.loads(advisor("report", "--snapshot", *pair, "--preset", "class-7200-desktop",
                                            "--format", "json", "--scripts", str(root / "scripts"),
                                            show="report --snapshot a.json b.json --preset class-7200-desktop "
                                                 "--format json --scripts scripts"))
                print(json.dumps([f for f in report["findings"] if f["code"] in ("HOT_ON_INNER", "READS_CACHED")],
                                 indent=2))
                print(json.dumps([a for a in report["areas"] if a["name"] == "orders"], indent=2))
                print(json.dumps(report["plan"]["placements"][0] if report["plan"] else None, indent=2))
                print("\n".join(report["warnings"]))
                for path in sorted((root / "scripts").glob("*")):
                    print(f"--- {path.name}\n{path.read_text()}")
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    for path in [*snaps, *(root / "scripts").glob("*")]:
                        shutil.copy(path, args.keep / path.name)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
