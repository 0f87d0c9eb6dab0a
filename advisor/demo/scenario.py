"""The demo on an emulated 7200 rpm disk: bad layout, measure, advise, apply the plan, measure.

Layout (deliberately bad, a cross-surface pattern): the emulated disk gets three GPT
partitions with ext4; PGDATA lives on ``middle``, WAL (``initdb -X``) on ``outer``, and the
pgbench tables and indexes in tablespace ``hot`` on ``inner``. Every commit's WAL flush
therefore sends the single actuator from the inner edge to the outer edge and back.

Caches are kept out of the way so the disk, not memory, answers the reads:
``shared_buffers`` is 16 MB against a table of 64 MB or more (plus the drive's own cache in
the model); the emulator's loop device uses direct IO, so the backing file's page cache
is not used; and PostgreSQL reads its data files with ``debug_io_direct = data`` (O_DIRECT),
so the page cache of the ext4 on top cannot serve them either. That setting is off while
the tables are loaded and moved (bulk copies through the page cache are much faster) and
on for every measured run. No global cache is dropped.

The before run is collected with ``advisor collect --interval N --trace``: the report replays
its block-layer requests, and the replay's gain is the prediction the demo prints and judges
(:mod:`advisor.demo.prediction`), the aggregate model's beside it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.demo import pgbench
from advisor.demo.chain import Chain, apply_plan
from advisor.demo.embedded import EmbeddedServer, embedded_postgres, owned_dir
from advisor.demo.layout import Area, mount_planned, partition_and_mount
from advisor.demo.measured import io_latencies
from advisor.demo.prediction import from_report
from advisor.demo.prediction import judge as judge_prediction
from advisor.demo.summary import DemoSummary, Measurement
from advisor.demo.timesplit import TimeSplit, compare_with_retry, split_run
from advisor.disk.emulator.iotrace import recording
from advisor.errors import AdvisorError
from advisor.model import load_workload
from advisor.units import GIB

Echo = Callable[[str], None]
TRACE_MARGIN_S = 1  # the traced interval: the measured run and this much for pgbench to connect
SERVER_SETTINGS = {
    "shared_buffers": "16MB",
    # wal_level minimal: the load (pgbench -i truncates and fills in one transaction) writes
    # almost no WAL, so pg_wal stays small and the WAL area is what the commits need.
    "wal_level": "minimal",
    "max_wal_senders": "0",
    "min_wal_size": "32MB",
    "max_wal_size": "1GB",
    "checkpoint_timeout": "30min",
    "wal_compression": "off",
    "io_method": "sync",
    "track_io_timing": "on",  # the gate then reads the IO share of DB time from the counters
    "track_wal_io_timing": "on",  # one request at a time per backend, as the QD1 model assumes
}


@dataclass(frozen=True)
class DemoConfig:
    """Knobs of a demo run (``--quick`` shrinks time and size)."""

    quick: bool = False
    preset: str = "class-7200-desktop"
    time_scale: float = 2.0  # the emulated disk runs this many times faster than the drive
    pgbench_scale: int = 10  # 100 000 accounts rows (13 MB) per unit
    seconds: int = 20  # each measured pgbench run
    warmup_seconds: int = 3
    clients: int = 1
    reads_per_transaction: int = 2
    disk_bytes: int = 2 * GIB
    advise_from_bench: bool = False  # True: report --disk disk.json (right at time scale 1)
    bench_args: tuple[str, ...] = ("--tests", "zones,stroke,cross", "--zones", "5", "--runs", "1")

    @classmethod
    def for_run(cls, quick: bool, preset: str, seconds: int | None, time_scale: float | None) -> DemoConfig:
        """Defaults for a full or ``--quick`` run, with explicit overrides."""
        base = (cls(quick=True, time_scale=5.0, pgbench_scale=5, seconds=10, warmup_seconds=2, disk_bytes=1 << 30)
                if quick else cls())
        return cls(quick=base.quick, preset=preset, time_scale=time_scale or base.time_scale,
                   pgbench_scale=base.pgbench_scale, seconds=seconds or base.seconds,
                   warmup_seconds=base.warmup_seconds, disk_bytes=base.disk_bytes)


def mark_rotational(device: str, echo: Echo) -> None:
    """Tell the kernel the emulated disk rotates (a loop device over FUSE reports 0).

    The flag is what ``lsblk -d -o ROTA`` and the host collector read; the emulated disk
    is a spinning disk in every respect that matters, so saying so is accurate.
    """
    flag = Path("/sys/block") / Path(device).name / "queue" / "rotational"
    try:
        flag.write_text("1\n")
    except OSError as exc:
        echo(f"  (could not mark {device} rotational: {exc.strerror})")


def hot_table_place(server: EmbeddedServer, areas: dict[str, Area]) -> dict[str, Any]:
    """Tablespace, file and area (partition label) of pgbench_accounts right now."""
    row = server.psql("SELECT coalesce(t.spcname, 'pg_default') || '|' || pg_relation_filepath('pgbench_accounts') "
                      "FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace "
                      "WHERE c.relname = 'pgbench_accounts'")
    tablespace, _, relpath = row.partition("|")
    path = (server.datadir / relpath).resolve()
    label = next((a.label for a in areas.values() if str(path).startswith(str(a.mountpoint.resolve()) + "/")), None)
    return {"tablespace": tablespace, "path": str(path), "area": label}


def where_zone(chain: Chain, path: str) -> dict[str, Any]:
    """Disk, partition and zone range of *path* as ``advisor where --format json`` reports them."""
    rows = json.loads(chain.advisor("where", "--format", "json", path, label="where"))
    row = rows[0] if rows else {}
    return {k: row.get(k) for k in ("disk", "partition", "zone_start", "zone_end", "placement_known")}


def _measure(server: EmbeddedServer, script: Path, config: DemoConfig, echo: Echo, what: str,
             mountpoint: Path, around: AbstractContextManager[Any] | None = None) -> tuple[Measurement, TimeSplit]:
    """One warm-up and one measured pgbench run, the latter traced by the emulator at *mountpoint*
    (and inside *around*, e.g. a ``collect --interval --trace`` of the run)."""
    if config.warmup_seconds:
        pgbench.run(server, script, scale=config.pgbench_scale, seconds=config.warmup_seconds, clients=config.clients)
    with around if around is not None else nullcontext():
        echo(f"$ pgbench -n -r -c {config.clients} -T {config.seconds} -f {script.name}   # {what}")
        with recording(mountpoint) as traced:
            result = pgbench.run(server, script, scale=config.pgbench_scale, seconds=config.seconds,
                                 clients=config.clients)
    measurement = Measurement.of(result)
    split = split_run(traced[0], measurement)
    echo(f"  {result.tps:.1f} TPS, {result.latency_ms:.2f} ms per transaction, "
         f"{result.read_latency_ms or 0:.2f} ms per read (real time); of {split.measured_s:.2f} s: "
         f"modelled disk {split.disk_s:.2f} s, host {split.host_s:.2f} s")
    return measurement, split


def run_emulated(config: DemoConfig, root: Path, stack: ExitStack, echo: Echo) -> DemoSummary:
    """The whole story on the emulated disk; resources go on *stack* (the caller unwinds it)."""
    from advisor.disk.emulator.device import emulated_disk

    summary = DemoSummary(mode="emulated", label="MEASURED on an emulated HDD (real PostgreSQL 18, real ext4)",
                          preset=config.preset, time_scale=config.time_scale, pgbench_scale=config.pgbench_scale)
    chain = Chain(root, echo)
    echo(f"== emulated {config.preset} ({config.disk_bytes >> 20} MiB, {config.time_scale:g}x faster than "
         "the drive), partitions outer | middle | inner")
    disk = stack.enter_context(emulated_disk(config.preset, config.disk_bytes, root / "disk.img",
                                             scale=config.time_scale, cache="volatile"))
    mark_rotational(disk.device, echo)
    areas = partition_and_mount(disk.device, root, stack)
    for area in areas.values():
        owned_dir(area.mountpoint)  # as on a database host: the file systems belong to the postgres account
        echo(f"  {area.device}  {area.label:7} {area.size_bytes >> 20:5d} MiB  mounted on {area.mountpoint}")
    echo("== PostgreSQL 18: WAL on outer, tablespace hot on inner (the bad layout); PGDATA off this disk")
    server = stack.enter_context(embedded_postgres(
        root / "pgdata", waldir=areas["outer"].mountpoint / "pg_wal",
        settings=SERVER_SETTINGS, log_path=root / "postgres.log"))
    hot_dir = owned_dir(areas["inner"].mountpoint / "hot")
    server.psql(f"CREATE TABLESPACE hot LOCATION '{hot_dir}'")
    echo(f"$ pgbench -i -s {config.pgbench_scale} --tablespace=hot --index-tablespace=hot")
    pgbench.initialize(server, scale=config.pgbench_scale, tablespace="hot")
    server.psql("CHECKPOINT")
    server.restart({"debug_io_direct": "data"})
    script = root / "read_commit.sql"
    script.write_text(pgbench.transaction_script(config.reads_per_transaction))
    summary.hot_table["before"] = hot_table_place(server, areas)
    summary.hot_table["before"]["where"] = where_zone(chain, summary.hot_table["before"]["path"])

    echo("== measure: collect --interval --trace over the pgbench run")
    traced_workload, kept = root / "workload-before.json", root / "before"
    collect_warnings: list[str] = []
    collecting = chain.collect_traced(server, traced_workload, config.seconds + TRACE_MARGIN_S, kept,
                                      collect_warnings)
    summary.before, before_split = _measure(server, script, config, echo, "before", disk.mountpoint, collecting)
    snap_a, snap_b = kept / "snapshot-a.json", kept / "snapshot-b.json"
    echo("== bench the disk (read-only)")
    disk_json = root / "disk.json"
    chain.bench(disk.device, disk_json, config.bench_args)
    echo("== advise")
    report_path = root / "report.json"
    planned_root = root / "planned"
    if config.advise_from_bench:
        disk_args = ["--disk", str(disk_json)]
    else:
        echo(f"  (at {config.time_scale:g}x the bench measures the emulator's pipe more than the drive: "
             f"advising with the emulated preset {config.preset} on the emulator's clock)")
        disk_args = _preset_args(config)
    report = chain.report_on(["--workload", str(traced_workload)], disk_args, report_path, planned_root)
    echo(chain.rendered.rstrip())
    _take_plan(summary, report)
    prediction = from_report(report, len(load_workload(traced_workload).traces), tuple(collect_warnings))
    if prediction.source == "aggregate":
        echo(f"  predicting with the AGGREGATE model, not the replay: {prediction.why_not_replay}")
    elif report["plan"].get("not_worth_it"):
        echo(f"  the replay finds no change worth making ({report['plan']['not_worth_it']}): "
             "the demo applies the plan anyway, to measure it")
    summary.predicted_gain = prediction.gain

    echo("== apply the plan's own PostgreSQL script")
    mapping = mount_planned(report["plan"].get("partitions", []), areas, disk.size_bytes, planned_root)
    for planned, existing in mapping.items():
        echo(f"  planned partition {planned} lies in the existing {existing} partition: {planned_root / planned}")
    summary.plan["mapped_partitions"] = mapping
    server.restart({"debug_io_direct": ""})
    summary.applied_scripts = apply_plan(server, summary.plan.get("scripts", []), root / "apply.log", echo)
    if not summary.applied_scripts:
        raise AdvisorError("the plan has no PostgreSQL script to apply")
    server.psql("CHECKPOINT")
    server.restart({"debug_io_direct": "data"})
    summary.hot_table["after"] = hot_table_place(server, areas)
    moved = Path(summary.hot_table["after"]["path"])
    shown = moved.relative_to(root) if moved.is_relative_to(root) else moved  # short column in the table
    echo(chain.advisor("where", str(shown), label="where").rstrip())
    summary.hot_table["after"]["where"] = where_zone(chain, str(moved))
    snap_c, snap_d = root / "snapshot-c.json", root / "snapshot-d.json"
    chain.collect(server, snap_c)
    comparison = compare_with_retry((summary.before, before_split),
                                    lambda: _measure(server, script, config, echo, "after", disk.mountpoint), echo)
    summary.after = comparison.after
    summary.time_split = {"before": before_split.as_dict(), "after": comparison.split.as_dict()}
    summary.verdict = comparison.verdict_dict()
    chain.collect(server, snap_d)
    echo("== the model on the layout as applied (where ext4 really put the moved files)")
    applied = chain.report(snap_c, snap_d, disk_args, root / "report-after.json", root / "planned-after", render=False)
    _as_applied(summary, applied)
    summary.io_latency = {
        "before": io_latencies(snap_a, snap_b, summary.hot_table["before"]["tablespace"]),
        "after": io_latencies(snap_c, snap_d, summary.hot_table["after"]["tablespace"]),
    }
    if config.advise_from_bench:  # how much of any gap is the fit of the bench profile, not the physics
        echo("== the same two reports with the emulated drive's own model (--preset)")
        preset = _preset_args(config)
        exact_before = chain.report(snap_a, snap_b, preset, root / "report-preset.json", planned_root, render=False)
        exact_after = chain.report(snap_c, snap_d, preset, root / "report-preset-after.json", root / "planned-after",
                                   render=False)
        summary.plan["preset_model"] = {"plan": exact_before.get("plan"), "as_applied": exact_after.get("plan")}
    summary.measure_gains()
    judgement = judge_prediction(prediction, summary.measured_gain.get("latency"), summary.measurement_valid)
    summary.prediction = {**prediction.as_dict(), "judgement": judgement}
    if not summary.measurement_valid:
        summary.measured_gain = {}  # the runs' figures stay in before/after; no gain is claimed from them
    summary.commands = chain.commands
    summary.step_seconds = {k: round(v, 1) for k, v in chain.timings.items()}
    return summary


def _take_plan(summary: DemoSummary, report: dict[str, Any]) -> None:
    summary.findings = [{k: f.get(k) for k in ("code", "severity", "subject", "title", "predicted_gain")}
                        for f in report.get("findings", [])]
    plan = report.get("plan") or {}
    if not plan:
        raise AdvisorError("the report has no plan: " + json.dumps(report.get("warnings", []))[:200])
    summary.plan = {k: plan.get(k) for k in ("predicted_before_ms", "predicted_after_ms", "predicted_gain",
                                             "placements", "service_times", "scripts", "method", "notes",
                                             "not_worth_it")}


def _as_applied(summary: DemoSummary, after: dict[str, Any]) -> None:
    """The model's service times for the layout the apply produced, beside the plan's own.

    The plan predicts for its planned partitions; the demo maps them onto the partitions
    the disk already has, and ext4 picks where inside them the files land. The report on
    the after-run evaluates the model on the real positions: that is the prediction the
    measurement should match.
    """
    plan_before = summary.plan.get("predicted_before_ms")
    realised = (after.get("plan") or {}).get("predicted_before_ms")
    times = (after.get("plan") or {}).get("service_times") or []
    summary.plan["as_applied"] = {"mean_ms": realised, "service_times": times}
    if plan_before and realised:
        summary.predicted_gain_as_applied = 1.0 - realised / plan_before


def elapsed_since(start: float) -> float:
    """Seconds since *start* (monotonic), rounded for the summary."""
    return round(time.monotonic() - start, 1)


def _preset_args(config: DemoConfig) -> list[str]:
    """The emulated drive's own model: its preset run ``time_scale`` times faster, as the emulator runs it."""
    return ["--preset", config.preset, "--time-scale", f"{config.time_scale:g}"]
