"""One workload through the tutorial's path on emulated HDDs: bad layout, measure, advise, apply, measure.

The machinery is the demo's (:mod:`advisor.demo`): the emulated disk, its partitions and
ext4 file systems, the embedded PostgreSQL 18, the advisor commands run as a DBA types
them. The plan is applied with its own in-place stages (:mod:`accuracy_apply`). What this
adds is the workload (several pgbench client groups at once, from
:mod:`accuracy_workloads`), two measured runs on each side, the per-area figures of the
emulated disk (:mod:`accuracy_trace`), the load average around each run, and the re-advice
on the layout the plan produced (stable advice: no further move).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.demo import pgbench
from advisor.demo.chain import Chain
from advisor.demo.embedded import EmbeddedServer, embedded_postgres, owned_dir
from advisor.demo.layout import Area, partition_and_mount
from advisor.demo.scenario import SERVER_SETTINGS, mark_rotational
from advisor.disk.emulator.device import EmulatedDisk, emulated_disk
from advisor.disk.emulator.iotrace import IoTrace, recording
from advisor.errors import AdvisorError
from advisor.units import GIB
from benchmarks.accuracy_apply import apply_directories, apply_staged, check_placed, staged_plan, temp_dirs
from benchmarks.accuracy_as_applied import as_applied, figures
from benchmarks.accuracy_host_path import DriveRecord, HostPath, path_arguments, path_record, side_path
from benchmarks.accuracy_trace import ExtentIndex, attribute, build_index
from benchmarks.accuracy_workloads import PARTITIONS, AreaSpec, ClientGroup, Workload

Echo = Callable[[str], None]
_RELATIONS = ("SELECT c.oid || '|' || t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace "
              "WHERE c.relkind IN ('r', 'i', 't', 'm') AND c.relfilenode <> 0")


@dataclass(frozen=True)
class PathConfig:
    """How the suite runs: the emulated drive, its speed, the runs per side."""

    preset: str = "class-7200-desktop"
    time_scale: float = 1.0  # the emulated disk runs this many times faster than the drive
    advise_from_bench: bool = False  # True: report --disk with bench --quick profiles, as the tutorial does
    disk_bytes: int = 8 * GIB
    runs_per_side: int = 2
    keep_records: bool = False  # True: each run's emulated-drive records written to the workload's directory
    apply_anyway: bool = True  # True: a plan the report does not advise is applied too, to measure its prediction
    tell_path: bool = True  # each side's traced report is told the path its drive's clock saw (--path-ms; run 65)


@dataclass
class Layout:
    """The emulated disks, their partitions, the server and which relation belongs to which area."""

    disks: list[EmulatedDisk]
    partitions: list[dict[str, Area]]
    server: EmbeddedServer
    relations: dict[str, dict[str, str]]  # database → relation oid → area name
    workload: Workload


def _disk_name(disk: EmulatedDisk) -> str:
    return Path(disk.device).name


def build_bad_layout(w: Workload, cfg: PathConfig, root: Path, stack: ExitStack, echo: Echo) -> Layout:
    """Emulated disks with outer/middle/inner ext4 partitions; WAL and tablespaces where *w* says."""
    disks: list[EmulatedDisk] = []
    partitions: list[dict[str, Area]] = []
    for i in range(w.disks):
        disk = stack.enter_context(emulated_disk(cfg.preset, cfg.disk_bytes, root / f"disk{i}.img",
                                                 scale=cfg.time_scale, cache="volatile"))
        mark_rotational(disk.device, echo)
        home = root / f"disk{i}"
        home.mkdir()
        parts = partition_and_mount(disk.device, home, stack, PARTITIONS)
        for part in parts.values():
            owned_dir(part.mountpoint)
        disks.append(disk)
        partitions.append(parts)
        echo(f"  disk {i}: {disk.device} {cfg.disk_bytes >> 30} GiB {cfg.preset} at {cfg.time_scale:g}x, "
             + ", ".join(f"{p.label} {p.size_bytes >> 20} MiB" for p in parts.values()))
    wal = next(a for a in w.areas if a.name == "WAL")
    server = stack.enter_context(embedded_postgres(
        root / "pgdata", waldir=partitions[wal.disk][wal.partition].mountpoint / "pg_wal",
        settings=SERVER_SETTINGS, log_path=root / "postgres.log"))
    for area in w.areas:
        if area.name != "WAL":
            location = owned_dir(partitions[area.disk][area.partition].mountpoint / area.name)
            server.psql(f"CREATE TABLESPACE {area.name} LOCATION '{location}'")
    for database in w.databases:
        if database != "postgres":
            server.psql(f"CREATE DATABASE {database}")
    for database, sql in w.setup:
        started = time.monotonic()
        server.psql(sql, dbname=database, timeout=1800)
        echo(f"  loaded {database} in {time.monotonic() - started:.0f} s")
    server.psql("CHECKPOINT")
    server.restart({"debug_io_direct": "data", **w.settings})
    relations: dict[str, dict[str, str]] = {}
    names = {a.name for a in w.areas}
    for database in w.databases:
        rows = [line.split("|") for line in server.psql(_RELATIONS, dbname=database).splitlines() if line]
        relations[database] = {oid: space for oid, space in rows if space in names}
    return Layout(disks, partitions, server, relations, w)


def _relation_files(layout: Layout) -> dict[str, list[Path]]:
    """Every file of every area right now: relation forks and segments, WAL segments."""
    files: dict[str, list[Path]] = {}
    for database, owners in layout.relations.items():
        if not owners:
            continue
        query = (f"SELECT oid || '|' || pg_relation_filepath(oid) FROM pg_class "
                 f"WHERE oid IN ({', '.join(owners)})")
        for line in layout.server.psql(query, dbname=database).splitlines():
            oid, _, relpath = line.partition("|")
            base = layout.server.datadir / relpath
            folder, stem = base.parent.resolve(), base.name
            files.setdefault(owners[oid], []).extend(
                p for p in folder.glob(stem + "*")
                if p.name == stem or p.name.startswith((stem + ".", stem + "_")))
    wal_dir = (layout.server.datadir / "pg_wal").resolve()
    files["WAL"] = [p for p in wal_dir.iterdir() if p.is_file()]
    return files


def _temp_ranges(layout: Layout, disk_index: int) -> list[tuple[int, int, str]]:
    """The byte range of the partition that holds each temp area's current temp tablespace."""
    out: list[tuple[int, int, str]] = []
    for spec in layout.workload.areas:
        if not spec.temp:
            continue
        setting = layout.server.psql("SHOW temp_tablespaces", dbname=layout.workload.groups[0].database)
        first = setting.split(",")[0].strip().strip('"')
        if not first:
            continue
        location = layout.server.psql(f"SELECT pg_tablespace_location(oid) FROM pg_tablespace "
                                      f"WHERE spcname = '{first}'")
        if not location:
            continue
        where = Path(location).resolve()
        for part in layout.partitions[disk_index].values():
            if where.is_relative_to(part.mountpoint.resolve()):
                out.append((part.start_bytes, part.start_bytes + part.size_bytes, spec.name))
    return out


def _indexes(layout: Layout, earlier: dict[str, list[Path]]) -> list[ExtentIndex]:
    """The extent index of every disk, located after a run: the files listed before it (*earlier*)
    and now, so a WAL segment or relation segment created during the run is found with its
    extents as they ended up; a file removed during the run is skipped."""
    files = {area: sorted(set(paths) | set(earlier.get(area, []))) for area, paths in _relation_files(layout).items()}
    return [build_index(files, _temp_ranges(layout, i), _disk_name(d))
            for i, d in enumerate(layout.disks)]


def run_groups(server: EmbeddedServer, groups: tuple[ClientGroup, ...], seconds: int, root: Path) \
        -> dict[str, pgbench.PgbenchResult]:
    """Every client group's pgbench at once for *seconds*; each group's parsed result."""
    procs: dict[str, subprocess.Popen[str]] = {}
    try:
        for group in groups:
            script = root / f"{group.name}.sql"
            script.write_text(group.script)
            argv = [str(server.tool("pgbench")), "-n", "-r", "-c", str(group.clients), "-j",
                    str(min(group.clients, 2)), "-T", str(seconds), "-f", str(script), server.dsn(group.database)]
            procs[group.name] = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        results: dict[str, pgbench.PgbenchResult] = {}
        for group in groups:
            out, err = procs[group.name].communicate(timeout=seconds * 4 + 180)
            if procs[group.name].returncode != 0:
                raise AdvisorError(f"pgbench ({group.name}) failed: {err.strip().splitlines()[-1:] or ''}")
            results[group.name] = pgbench.parse_output(out, seconds=seconds, clients=group.clients)
        return results
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def group_time_ms(group: ClientGroup, result: pgbench.PgbenchResult) -> float | None:
    """The group's measured time: mean transaction latency, or mean statement latency."""
    return result.latency_ms if group.metric == "transaction" else result.read_latency_ms


def measured_run(layout: Layout, seconds: int, root: Path, echo: Echo, label: str,
                 keep_records: bool = False, records: dict[str, list[DriveRecord]] | None = None) -> dict[str, Any]:
    """One measured run: every group at once, each emulated disk traced, the load noted around it;
    with *keep_records*, each disk's records also go to ``io-trace-<side>-run-<n>-<disk>.json`` in
    *root* (to line them up with the block layer's trace and the replay, request by request); *records*
    gathers them per disk name (the path to the drive, :mod:`accuracy_host_path`)."""
    earlier = _relation_files(layout)
    load_before = os.getloadavg()
    with ExitStack() as tracing:
        boxes: list[list[IoTrace]] = [tracing.enter_context(recording(d.mountpoint)) for d in layout.disks]
        started = time.monotonic()
        results = run_groups(layout.server, layout.workload.groups, seconds, root)
        elapsed = time.monotonic() - started
    load_after = os.getloadavg()
    indexes = _indexes(layout, earlier)
    if records is not None:
        for d, box in zip(layout.disks, boxes, strict=True):
            records.setdefault(_disk_name(d), []).extend(
                DriveRecord(r.op, r.offset_bytes, r.length_bytes, r.arrived_s, r.replied_s) for r in box[0].records)
    if keep_records:
        for d, box in zip(layout.disks, boxes, strict=True):
            rows = [[r.op, r.offset_bytes, r.length_bytes, r.arrived_s, r.replied_s, r.model_s] for r in box[0].records]
            (root / f"io-trace-{label.replace(' ', '-')}-{_disk_name(d)}.json").write_text(
                json.dumps({"time_scale": d.scale, "dropped": box[0].dropped, "io_trace": rows}))
    groups = {}
    for group in layout.workload.groups:
        result = results[group.name]
        groups[group.name] = {"tps": result.tps, "latency_ms": result.latency_ms,
                              "time_ms": group_time_ms(group, result), "transactions": result.transactions,
                              "failed": result.failed, "clients": group.clients, "metric": group.metric}
    disks = {_disk_name(d): attribute(box[0], index, elapsed, d.scale)
             for d, box, index in zip(layout.disks, boxes, indexes, strict=True)}
    echo(f"  {label}: " + ", ".join(f"{n} {g['time_ms'] or 0:.1f} ms" for n, g in groups.items())
         + f"; load {load_before[0]:.1f} -> {load_after[0]:.1f}")
    return {"seconds": round(elapsed, 2), "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in load_after], "groups": groups, "disks": disks}


def runs_of(w: Workload, cfg: PathConfig) -> int:
    """Measured runs a side for *w*: the suite's (``--runs``), or more where the workload asks for more
    (:attr:`~benchmarks.accuracy_workloads.Workload.runs`).

    >>> from benchmarks.accuracy_workloads import WORKLOADS
    >>> runs_of(WORKLOADS["temp-sorts"], PathConfig()), runs_of(WORKLOADS["temp-sorts"].quick(), PathConfig())
    (6, 2)
    """
    return max(cfg.runs_per_side, w.runs or 0)


def workload_header(w: Workload, cfg: PathConfig) -> dict[str, Any]:
    """What a workload's result says of the workload itself, before anything is measured: the same
    whether its path ran through (:func:`run_workload` adds the areas where the layout put them) or
    failed on the way (the suite's result then has no area)."""
    return {"workload": w.name, "shape": w.shape, "queue_depth": w.queue_depth, "seconds_per_run": w.seconds,
            "runs_per_side": runs_of(w, cfg), "areas": [],
            "groups": {g.name: {"clients": g.clients, "primary": g.primary, "metric": g.metric,
                                "database": g.database} for g in w.groups}}


def tracing_available() -> bool:
    """True when this advisor has ``collect --trace`` (the block layer's requests, replayed by the report)."""
    return importlib.util.find_spec("advisor.collect.trace") is not None


@dataclass
class Side:
    """One side's measured runs and what was collected around them."""

    runs: list[dict[str, Any]]
    first: Path  # snapshot before the runs
    second: Path  # snapshot after them
    traced: Path | None = None  # ``collect --interval --trace`` workload over the runs, when available
    path: HostPath | None = None  # the block layer's path to the drive on these runs (accuracy_host_path)


def measure_side(layout: Layout, chain: Chain, cfg: PathConfig, root: Path, side: str, echo: Echo) -> Side:
    """Warm up, collect, the measured runs, collect: without a trace (two snapshots) and, when the
    collector can, with one (``collect --interval --trace`` over the same runs)."""
    w = layout.workload
    run_groups(layout.server, w.groups, w.warmup_seconds, root)
    first, second = root / f"snapshot-{side}-1.json", root / f"snapshot-{side}-2.json"
    chain.collect(layout.server, first)
    traced = root / f"workload-{side}-traced.json" if tracing_available() else None
    count = runs_of(w, cfg)
    collector = _start_traced_collect(layout.server, chain, traced, w.seconds * count) \
        if traced else None
    records: dict[str, list[DriveRecord]] = {}
    runs = [measured_run(layout, w.seconds, root, echo, f"{side} run {i + 1}", cfg.keep_records, records)
            for i in range(count)]
    if collector is not None:
        _, err = collector.communicate(timeout=300)
        if collector.returncode not in (0, 4):
            echo(f"  collect --trace failed (exit {collector.returncode}): {err.strip().splitlines()[-1:]}")
            traced = None
    chain.collect(layout.server, second)
    path = side_path(traced, records, {_disk_name(d): d.overhead for d in layout.disks}) if traced is not None else None
    if path is not None:
        echo(f"  the block layer's path to the drive: {path.to_drive_ms:.2f} ms there, {path.from_drive_ms:.2f} ms "
             f"back, over {path.requests:,} requests; {path.seen_ms:.2f} ms beyond the drive's own calibration "
             f"(--path-ms)")
    return Side(runs, first, second, traced, path)


def _start_traced_collect(server: EmbeddedServer, chain: Chain, output: Path, seconds: int) -> subprocess.Popen[str]:
    """``advisor collect --interval SECONDS --trace`` in the background, started as the runs start."""
    args = ["collect", "--dsn", server.dsn(), "--interval", str(seconds), "--trace", "-o", str(output)]
    chain.echo("$ advisor " + " ".join(args[:1] + ["--dsn", "'...'"] + args[3:]) + " &")
    chain.commands.append("advisor " + " ".join(args))
    proc = subprocess.Popen([sys.executable, "-m", "advisor", *args], cwd=chain.workdir, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(2.0)  # its first snapshot and the tracer's start, before the load begins
    return proc


def disk_arguments(layout: Layout, chain: Chain, cfg: PathConfig, root: Path, echo: Echo) -> list[str]:
    """The emulated drive's own model (``--preset``), or ``--disk`` with ``bench --quick`` profiles.

    The preset keeps the bench's own error (issue 40 saw a 7200 rpm drive estimated at 6296 rpm)
    out of the model's; the bench follows the tutorial to the letter (at time scale 1 only:
    faster, the bench measures the emulator's pipe more than the drive).
    """
    if not cfg.advise_from_bench or cfg.time_scale != 1:
        return ["--preset", cfg.preset]
    profiles = []
    for disk in layout.disks:
        profile = root / f"bench-{_disk_name(disk)}.json"
        chain.bench(disk.device, profile)
        profiles.append(str(profile))
    echo("  advising with the bench profiles (time scale 1)")
    return ["--disk", *profiles]


def apply(layout: Layout, chain: Chain, plan: dict[str, Any], inputs: list[str], disk_args: list[str],
          root: Path, stack: ExitStack, echo: Echo, anyway: bool = False) -> dict[str, Any]:
    """The plan applied as a DBA would on this fully partitioned disk in use: its own stages
    (:mod:`accuracy_apply`), then each area's files checked inside their planned partition.
    A plan over several disks cannot be staged: directories on the existing partitions instead.
    *anyway*: the report does not advise the plan, so its scripts are written with ``--scripts-anyway``."""
    disks = sorted({str(p.get("disk")) for p in plan.get("partitions", [])})
    if len(disks) != 1:
        return apply_directories(layout, plan, root, echo, f"the plan spans {len(disks)} disks; --in-place stages one")
    mount_root = root / "planned"
    staged, scripts = staged_plan(chain, inputs, disk_args, root, mount_root, plan, anyway)
    moved = sum(p.stat().st_size for paths in _relation_files(layout).values() for p in paths if p.exists())
    record = apply_staged(layout, staged, scripts, root, mount_root, stack, echo, moved)
    record["files_checked"] = check_placed(staged, {**_relation_files(layout), **temp_dirs(layout)})
    return record


def run_workload(w: Workload, cfg: PathConfig, root: Path, stack: ExitStack, echo: Echo) -> dict[str, Any]:
    """The whole path for *w*; returns the raw results (runs, reports' figures) for the comparison."""
    chain = Chain(root, echo)
    echo(f"== {w.name}: {w.shape}")
    layout = build_bad_layout(w, cfg, root, stack, echo)
    out = workload_header(w, cfg) | {"areas": [_area_dict(a, layout) for a in w.areas]}
    # the round trip each emulated drive calibrated idle and takes off every request (its arrivals back-dated, its
    # replies sent early): its clock sees only the path beyond it (docs/accuracy.md, after run 64)
    out["emulator_path"] = {_disk_name(d): None if d.overhead is None else
                            {"inbound": list(d.overhead.inbound), "outbound": list(d.overhead.outbound)}
                            for d in layout.disks}
    before = measure_side(layout, chain, cfg, root, "before", echo)
    out["before"] = before.runs
    disk_args = disk_arguments(layout, chain, cfg, root, echo)
    report = advise(chain, before, disk_args, root, "planned", out, "report", cfg.tell_path)
    plan = report.get("plan")
    untraced = report_plain(root, "report")
    if plan and plan.get("not_worth_it") and not cfg.apply_anyway and out.get("report_untraced") \
            and untraced.get("plan") and not untraced["plan"].get("not_worth_it"):
        # The traced report's replay refused the plan; the same advisor without a trace gives one, which
        # is what a user without --trace carries out: measure it, so the aggregate model is judged too.
        # Applying anyway (the default) carries out the traced plan instead: the prediction the replay made.
        out["applied_from"] = f"the report without a trace (the traced one: {plan['not_worth_it']})"
        echo(f"  applying {out['applied_from']}")
        plan = untraced["plan"]
    if not plan or (plan.get("not_worth_it") and not cfg.apply_anyway):
        out["skipped_after"] = "the report has no plan to apply" if not plan else plan["not_worth_it"]
        echo(f"  not applied: {out['skipped_after']}")
        return out
    if plan.get("not_worth_it"):
        # "no move" is a prediction too (a gain under the threshold, or none the replay can state): measured
        # like any other, it is judged like any other
        out["applied_anyway"] = plan["not_worth_it"]
        echo(f"  applied though the report advises no move, to measure its prediction: {out['applied_anyway']}")
    # the plan is staged by the same report: a traced one is told the same path (its replay chose the placements)
    inputs = (["--snapshot", str(before.first), str(before.second)] if before.traced is None or out.get("applied_from")
              else ["--workload", str(before.traced), *path_arguments(before.path if cfg.tell_path else None)])
    try:
        out["apply"] = apply(layout, chain, plan, inputs, disk_args, root, stack, echo,
                             anyway=bool(out.get("applied_anyway")))
    except AdvisorError as exc:  # one line in the JSON; the measurements before stay
        out["error"] = f"apply: {exc}"
        echo(f"  not applied: {exc}")
        return out
    out["applied_scripts"] = out["apply"]["scripts"]
    after = measure_side(layout, chain, cfg, root, "after", echo)
    out["after"] = after.runs
    advise(chain, after, disk_args, root, "planned-after", out, "report_after", cfg.tell_path)
    if before.traced is not None and after.traced is not None and not cfg.advise_from_bench:
        # the before trace replayed where the files went: the replay's error split (accuracy_as_applied)
        try:
            told = before.path.seen_ms if before.path is not None and cfg.tell_path else 0.0
            out["as_applied"] = figures(as_applied(before.traced, after.traced, cfg.preset, cfg.time_scale, told))
        except AdvisorError as exc:  # one line in the JSON; the run's figures stay
            out["as_applied_error"] = exc.one_line()
    out["commands"] = chain.commands
    return out


def advise(chain: Chain, side: Side, disk_args: list[str], root: Path, mount_root: str, out: dict[str, Any],
           key: str, tell_path: bool = False) -> dict[str, Any]:
    """The report on one side: from the traced workload when there is one (its plan, aggregate and
    replay), and from the two snapshots (the aggregate model without a trace) either way. The path to the
    drive measured on the side's runs is recorded (``host_path``), and told to the traced report with
    *tell_path* (``--path-ms``).

    Returns the report whose plan is carried out: the traced one when it exists."""
    plain = chain.report(side.first, side.second, disk_args, root / f"{key}.json", root / mount_root, render=False)
    out[key] = report_figures(plain)
    if side.traced is None:
        return plain
    path = root / f"{key}-traced.json"
    chain.advisor("report", "--workload", str(side.traced), *disk_args,
                  *path_arguments(side.path if tell_path else None),
                  "--mount-root", str(root / mount_root), "--format", "json", "-o", str(path))
    if side.path is not None:
        out.setdefault("host_path", {})[key] = path_record(side.path, tell_path)
    traced: dict[str, Any] = json.loads(path.read_text())
    out[key + "_untraced"] = out[key]
    out[key] = report_figures(traced)
    return traced


def _area_dict(area: AreaSpec, layout: Layout) -> dict[str, Any]:
    part = layout.partitions[area.disk][area.partition]
    disk_bytes = layout.disks[area.disk].size_bytes
    return {"name": area.name, "disk": area.disk, "partition": area.partition, "temp": area.temp,
            "zone": [round(part.start_bytes / disk_bytes, 3),
                     round((part.start_bytes + part.size_bytes) / disk_bytes, 3)]}


def report_plain(root: Path, key: str) -> dict[str, Any]:
    """The report written from the two snapshots (no trace) for *key*."""
    data: dict[str, Any] = json.loads((root / f"{key}.json").read_text())
    return data


def report_figures(report: dict[str, Any]) -> dict[str, Any]:
    """What the comparison needs of a report: plan gain and service times, findings, area classes."""
    plan = report.get("plan") or {}
    return {
        "findings": [{"code": f["code"], "subject": f["subject"], "predicted_gain": f.get("predicted_gain")}
                     for f in report.get("findings", [])],
        "plan": {k: plan.get(k) for k in ("predicted_before_ms", "predicted_after_ms", "predicted_gain",
                                          "service_times", "not_worth_it", "placements")} if plan else None,
        "replay": list(report.get("replay", [])),
        "areas": [{k: a.get(k) for k in ("name", "kind", "area_class", "iops", "read_iops", "write_iops", "mb_s",
                                         "db_read_iops", "disk_read_share", "zone_start", "zone_end")}
                  for a in report.get("areas", [])],
        "warnings": list(report.get("warnings", [])),
    }
