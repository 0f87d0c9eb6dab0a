"""Tiers end to end: does a tiered plan speed up a real PostgreSQL as much as it predicts?

Two devices: a fast one (a loop device with direct IO over a file on this machine's own
disk, benched with ``advisor bench`` for its profile) too small for all the hot data, and an
emulated class-7200-desktop HDD at time scale 1 (every IO takes the drive's real time). A
real PostgreSQL 18 starts with everything on the HDD: WAL on its outer partition, a large
hot table (pgbench_accounts) on the inner one, three small hot tables and the archive in the
middle with the catalogs (PGDATA), a cold table at the outer edge. Each transaction reads three random accounts, one
row of each small table, now and then a cold row, and commits an insert.

For each of two plans, on a fresh copy of the scenario: collect, measure with pgbench, write
the inventory, ``advisor report --snapshot A B --target inventory.toml`` (``--knapsack`` for
the IO-density knapsack baseline), apply the plan's own scripts, measure again. Prints the
predicted gain beside the measured one, and both plans' TPS side by side.

Run as root (loop devices, FUSE):  .venv/bin/python benchmarks/tiers_end_to_end.py [--seconds 30]
Takes about 10-15 minutes; everything it starts is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.demo import pgbench  # noqa: E402
from advisor.demo.chain import Chain, apply_plan  # noqa: E402
from advisor.demo.embedded import EmbeddedServer, embedded_postgres, owned_dir  # noqa: E402
from advisor.demo.layout import mount_planned, partition_and_mount  # noqa: E402
from advisor.demo.scenario import SERVER_SETTINGS, mark_rotational  # noqa: E402

PRESET = "class-7200-desktop"
HDD_BYTES = 2 << 30
FAST_BYTES = 240 << 20
SCALE = 8  # pgbench_accounts: 800,000 rows, about 100 MB
SMALL_ROWS = 70_000  # each small table about 10 MB
COLD_ROWS = 400_000
AGREEMENT = 0.15
LOAD_SETTINGS = {**SERVER_SETTINGS, "max_wal_size": "96MB", "track_io_timing": "on"}
"""While loading: minimal WAL and no archive (the load would fill the small partitions with WAL)."""


def _script(cold_every: int) -> str:
    lines = [f"\\set aid{i} random(1, 100000 * :scale)" for i in (1, 2, 3)]
    lines += [f"\\set s{i} random(1, {SMALL_ROWS})" for i in (1, 2, 3)]
    lines += [f"\\set c random(1, {COLD_ROWS})", f"\\set roll random(1, {cold_every})", "BEGIN;"]
    lines += [f"SELECT abalance FROM pgbench_accounts WHERE aid = :aid{i};" for i in (1, 2, 3)]
    lines += [f"SELECT v FROM small{i} WHERE id = :s{i};" for i in (1, 2, 3)]
    lines += ["\\if :roll = 1", "SELECT v FROM cold WHERE id = :c;", "\\endif",
              "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, :aid1, 1, CURRENT_TIMESTAMP);",
              "END;"]
    return "\n".join(lines) + "\n"


def _run(args: list[str], stdin: str | None = None) -> str:
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:3])} failed: {done.stderr.strip()}")
    return done.stdout


def fast_device(root: Path, stack: ExitStack) -> tuple[str, Path]:
    """A written (not sparse) image on this machine's disk as a direct-IO loop device with ext4, mounted."""
    image = root / "fast.img"
    with image.open("wb") as handle:
        block = b"\0" * (1 << 20)
        for _ in range(FAST_BYTES >> 20):
            handle.write(block)
        handle.flush()
        os.fsync(handle.fileno())
    stack.callback(image.unlink, missing_ok=True)
    device = _run(["losetup", "--find", "--show", "--direct-io=on", str(image)]).strip()
    stack.callback(subprocess.run, ["losetup", "-d", device], capture_output=True, check=False)
    _run(["mkfs.ext4", "-q", "-F", "-m", "0", "-E", "lazy_itable_init=0,lazy_journal_init=0", device])
    mount = root / "mnt-fast"
    mount.mkdir()
    _run(["mount", "-o", "noatime", device, str(mount)])
    stack.callback(subprocess.run, ["umount", "-l", str(mount)], capture_output=True, check=False)
    return device, mount


@dataclass
class Outcome:
    """One plan's run: what it predicted and what pgbench measured."""

    label: str
    report: dict[str, Any]
    before: pgbench.PgbenchResult
    after: pgbench.PgbenchResult

    @property
    def predicted_gain(self) -> float:
        """The plan's predicted saving in IO-weighted mean service time."""
        return float(self.report["plan"]["predicted_gain"])

    @property
    def measured_gain(self) -> float:
        """Time saved per transaction (one client: 1 - latency after / before)."""
        return 1.0 - self.after.latency_ms / self.before.latency_ms


def _load(server: EmbeddedServer, areas: dict[str, Any]) -> None:
    for label, tablespace in (("inner", "hot"), ("middle", "warm"), ("outer", "coldts")):
        location = owned_dir(areas[label].mountpoint / tablespace)
        server.psql(f"CREATE TABLESPACE {tablespace} LOCATION '{location}'")
    pgbench.initialize(server, scale=SCALE, tablespace="hot")
    for i in (1, 2, 3):
        server.psql(f"CREATE TABLE small{i} (id int PRIMARY KEY USING INDEX TABLESPACE warm, v int, pad text) "
                    f"TABLESPACE warm; INSERT INTO small{i} SELECT g, g, repeat('x', 100) "
                    f"FROM generate_series(1, {SMALL_ROWS}) g", timeout=900)
    server.psql(f"CREATE TABLE cold (id int PRIMARY KEY USING INDEX TABLESPACE coldts, v int, pad text) "
                f"TABLESPACE coldts; INSERT INTO cold SELECT g, g, repeat('y', 100) "
                f"FROM generate_series(1, {COLD_ROWS}) g", timeout=900)
    server.psql("VACUUM ANALYZE; CHECKPOINT", timeout=900)


def _measure(server: EmbeddedServer, script: Path, seconds: int, echo: Any) -> pgbench.PgbenchResult:
    pgbench.run(server, script, scale=SCALE, seconds=3)  # warm the catalogs and the indexes' upper levels
    result = pgbench.run(server, script, scale=SCALE, seconds=seconds)
    echo(f"  pgbench: {result.tps:.2f} TPS, {result.latency_ms:.1f} ms per transaction; per statement: "
         + ", ".join(f"{ms:.1f} ms {text[:40]}" for text, ms in result.statements.items()))
    return result


def _inventory(root: Path, fast: str) -> Path:
    path = root / "inventory.toml"
    path.write_text(
        f'host = "bench"\nheadroom = 0.3\n\n[[device]]\nname = "fast"\nmedium = "ssd"\ncapacity = {FAST_BYTES}\n'
        f'profile = "fast.json"\npath = "{fast}"\n\n[[device]]\nname = "hdd"\nmedium = "hdd"\n'
        f'capacity = {HDD_BYTES}\npreset = "{PRESET}"\n')
    return path


def run_once(knapsack: bool, seconds: int, echo: Any) -> Outcome:
    """The whole scenario on fresh devices for one plan."""
    from advisor.disk.emulator.device import emulated_disk

    label = "knapsack baseline" if knapsack else "advisor tiered plan"
    with ExitStack() as stack:
        root = Path(tempfile.mkdtemp(prefix="advisor-tiers-", dir="/var/tmp"))
        stack.callback(subprocess.run, ["rm", "-rf", str(root)], check=False)
        os.chmod(root, 0o755)
        echo(f"== {label}: fast device and emulated {PRESET} in {root}")
        fast, fast_mount = fast_device(root, stack)
        disk = stack.enter_context(emulated_disk(PRESET, HDD_BYTES, root / "disk.img", scale=1.0, cache="volatile"))
        mark_rotational(disk.device, echo)
        areas = partition_and_mount(disk.device, root, stack)
        for area in [*areas.values()]:
            owned_dir(area.mountpoint)  # as on a database host: the file systems belong to the server account
        owned_dir(fast_mount)
        archive = owned_dir(areas["middle"].mountpoint / "archive")
        server = stack.enter_context(embedded_postgres(areas["middle"].mountpoint / "pgdata",
                                                       waldir=areas["outer"].mountpoint / "pg_wal",
                                                       settings=LOAD_SETTINGS, log_path=root / "postgres.log"))
        _load(server, areas)
        server.restart({"debug_io_direct": "data", "wal_level": "replica", "archive_mode": "on",
                        "archive_command": f"test ! -f {archive}/%f && cp %p {archive}/%f"})
        script = root / "tx.sql"
        script.write_text(_script(cold_every=10))
        chain = Chain(root, echo)
        snaps = [root / f"snap-{c}.json" for c in "abcd"]
        chain.collect(server, snaps[0])
        before = _measure(server, script, seconds, echo)
        chain.collect(server, snaps[1])
        chain.bench(fast, root / "fast.json", ("--tests", "zones,stroke,qd", "--zones", "3", "--runs", "1"))
        inventory = _inventory(root, fast)
        planned = root / "planned"
        args = ["report", "--snapshot", str(snaps[0]), str(snaps[1]), "--target", str(inventory),
                "--mount-root", str(planned), "--preset", PRESET]
        if knapsack:
            args.append("--knapsack")
        chain.advisor(*args, "--format", "json", "-o", str(root / "report.json"))
        report = json.loads((root / "report.json").read_text())
        echo(chain.advisor(*args, "--format", "terminal", label="render"))
        parts = report["plan"]["partitions"]
        planned.mkdir(exist_ok=True)
        for part in parts:
            if part["disk"] == "fast":
                target = owned_dir(fast_mount / part["label"])
                (planned / part["label"]).symlink_to(target)
        mount_planned([p for p in parts if p["disk"] != "fast"], areas, disk.size_bytes, planned)
        server.restart({"debug_io_direct": ""})
        apply_plan(server, report["plan"]["scripts"], root / "apply.log", echo)
        server.psql("CHECKPOINT")
        server.restart({"debug_io_direct": "data"})
        chain.collect(server, snaps[2])
        after = _measure(server, script, seconds, echo)
        chain.collect(server, snaps[3])
        return Outcome(label, report, before, after)


def _table(outcomes: list[Outcome]) -> str:
    rows = ["| plan | fast tier holds | predicted ms before -> after | predicted gain | TPS before | TPS after "
            "| measured gain | prediction within ±15 % |", "|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        plan = o.report["plan"]
        fast = next((d for d in plan["tiers"]["devices"] if d["name"] == "fast"), {"areas": []})
        agree = abs(o.predicted_gain - o.measured_gain) <= AGREEMENT * max(abs(o.measured_gain), 1e-9)
        rows.append(f"| {o.label} | {', '.join(fast['areas'])} | {plan['predicted_before_ms']:.2f} -> "
                    f"{plan['predicted_after_ms']:.2f} | {o.predicted_gain:+.1%} | {o.before.tps:.2f} | "
                    f"{o.after.tps:.2f} | {o.measured_gain:+.1%} | {'yes' if agree else 'no'} |")
    if len(outcomes) == 2:
        ours, base = outcomes
        rows.append("")
        rows.append(f"measured TPS after, advisor plan / knapsack baseline: {ours.after.tps / base.after.tps:.3f} "
                    f"(predicted mean ms {base.report['plan']['predicted_after_ms']:.2f} / "
                    f"{ours.report['plan']['predicted_after_ms']:.2f})")
    return "\n".join(rows)


def main() -> int:
    """Both plans, one after the other; the comparison table at the end."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=30, help="length of each measured pgbench run")
    parser.add_argument("--only", choices=("plan", "knapsack"), help="run one of the two plans")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("tiers_end_to_end: needs root (loop devices, FUSE)", file=sys.stderr)
        return 2
    start = time.monotonic()
    with open("/proc/loadavg") as handle:
        load = handle.read().split()[:3]
    outcomes = []
    for knapsack in (False, True):
        if args.only and args.only != ("knapsack" if knapsack else "plan"):
            continue
        outcomes.append(run_once(knapsack, args.seconds, lambda line: print(line, flush=True)))
    print(f"\nload average at start {' '.join(load)}; {time.monotonic() - start:.0f} s in all")
    print(_table(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
