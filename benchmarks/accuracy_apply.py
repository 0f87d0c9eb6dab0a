"""The plan applied as a DBA applies it on a disk that is fully partitioned and in use: its own stages.

``advisor report --in-place --spare DIR --scripts DIR`` writes the stages of the plan (the
tutorial's "Apply on the disk you have"); they run here in the order the report lists them,
each script as the tutorial runs it: stage 1 moves every area of the disk to a spare
directory on the host (not on an emulated disk), stage 2 remakes the disk's partition table
and file systems as planned, stage 3 runs the plan's own scripts (``postgres.sql``,
``move_wal.sh``, ``postgres_drop_old.sql``). The planned partitions then exist at the planned
zones with their own ext4, so the re-advice judges the layout the plan meant, not an
approximation of it.

Two cheap checks follow: every table has its row count from before, and every file of each
area lies inside the partition its placement names (FIEMAP, :func:`advisor.storage.locate`).
A failure raises :class:`ApplyFailed` with one line. The layout's partitions become the
planned ones, so the extent indexes and temp ranges of the measurement follow them.

A plan over more than one disk cannot be staged (``--in-place`` stages one disk): it is
applied as the demo does, each planned partition a directory on the existing partition
that overlaps its zone most, and the record says so.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.demo.chain import Chain, apply_plan, tablespace_locations
from advisor.demo.embedded import SERVER_USER, EmbeddedServer, as_server_user, owned_dir
from advisor.demo.layout import Area, mount_planned, unmount
from advisor.disk.emulator.system import mount_table
from advisor.errors import AdvisorError
from advisor.storage.locate import locate
from advisor.storage.nodes import remove_made_nodes

if TYPE_CHECKING:
    from benchmarks.accuracy_path import Layout

Echo = Callable[[str], None]
STAGED = "staged in place (advisor report --in-place --spare DIR: stage 1 to the spare, stage 2 repartitions, " \
         "stage 3 the plan's own scripts)"
_SCRIPT_TIMEOUT_S = 1800
_NEW_WAL = re.compile(r"^NEW_WAL=(.*)$", re.M)
_TABLES = ("SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
           "WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1")


class ApplyFailed(AdvisorError):
    """The plan could not be applied or did not produce its layout (one line: why)."""


def row_counts(server: EmbeddedServer, databases: Sequence[str]) -> dict[str, int]:
    """``database.schema.table`` → rows, for every user table of *databases* (one query per database)."""
    counts: dict[str, int] = {}
    for database in databases:
        tables = [t for t in server.psql(_TABLES, dbname=database).splitlines() if t]
        if not tables:
            continue
        query = " UNION ALL ".join(f"SELECT '{t}' || '|' || count(*) FROM {t}" for t in tables)
        for line in server.psql(query, dbname=database, timeout=1800).splitlines():
            name, _, rows = line.rpartition("|")
            counts[f"{database}.{name}"] = int(rows)
    return counts


def _script_argv(server: EmbeddedServer, path: Path) -> tuple[list[str], dict[str, str]]:
    """How the tutorial runs *path*: SQL with psql as a superuser, the stage-1 check and the WAL moves as
    the server's account, the rest (stage 2) as root with ``OWNER`` set."""
    env = server.env()
    if path.suffix == ".sql":
        return [str(server.tool("psql")), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", server.dsn(), "-f",
                str(path)], env
    if path.name.endswith("move_wal.sh") or path.name == "stage1-check.sh":
        return as_server_user(["sh", str(path)]), env
    return ["sh", str(path)], {**env, "OWNER": SERVER_USER}


def _prepare(path: Path) -> None:
    """What the scripts' headers ask of the DBA first: each LOCATION and pg_wal's new parent directory
    exist and belong to the server's account (the planned partitions are mounted by then)."""
    text = path.read_text()
    if path.name.endswith(".sql"):
        for location in tablespace_locations(text):
            if not location.parent.is_dir():
                raise ApplyFailed(f"{path.name} puts a tablespace in {location}, whose partition is not mounted")
            owned_dir(location)
    wal = _NEW_WAL.search(text) if path.name.endswith("move_wal.sh") else None
    if wal is not None:
        owned_dir(Path(wal.group(1).strip().strip("'\"")).parent)


def _run_script(server: EmbeddedServer, path: Path, log: Path, echo: Echo) -> None:
    _prepare(path)
    argv, env = _script_argv(server, path)
    echo(f"$ {'psql -f' if path.suffix == '.sql' else 'sh'} {path.name}")
    with log.open("a") as out:
        out.write(f"== {path.name}\n")
        out.flush()
        done = subprocess.run(argv, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              timeout=_SCRIPT_TIMEOUT_S, check=False)
    if done.returncode != 0:
        tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-2:])
        raise ApplyFailed(f"{path.name} failed (exit {done.returncode}): {tail}")


def _mounted_below(root: Path) -> list[str]:
    return [mountpoint for _, mountpoint, _ in mount_table() if mountpoint.startswith(str(root) + "/")]


def _release(server: EmbeddedServer, mount_root: Path, nodes: Sequence[str]) -> None:
    """At the end: the server stopped (its files are on the planned partitions), those unmounted."""
    server.stop("fast")
    if server.postmaster_pid() is not None:
        server.stop("immediate")
    for mountpoint in reversed(_mounted_below(mount_root)):
        unmount(Path(mountpoint))
    remove_made_nodes(nodes)


def staged_plan(chain: Chain, inputs: Sequence[str], disk_args: Sequence[str], root: Path, mount_root: Path,
                chosen: dict[str, Any], anyway: bool = False) -> tuple[dict[str, Any], Path]:
    """The same report with ``--in-place --spare`` and its scripts written; its plan must be *chosen*'s.
    *anyway*: a plan the report does not advise, whose scripts only ``--scripts-anyway`` writes."""
    spare, scripts = owned_dir(root / "spare"), root / "plan"
    output = root / "report-in-place.json"
    chain.advisor("report", *inputs, *disk_args, "--mount-root", str(mount_root), "--in-place", "--spare",
                  str(spare), "--scripts", str(scripts), *(["--scripts-anyway"] if anyway else []),
                  "--format", "json", "-o", str(output))
    plan: dict[str, Any] = (json.loads(output.read_text()).get("plan") or {})
    if not plan.get("stages"):
        raise ApplyFailed(f"the --in-place report has no stages ({plan.get('not_worth_it') or 'no plan'})")
    if plan.get("placements") != chosen.get("placements"):
        raise ApplyFailed("the --in-place report placed the areas otherwise than the report it stages")
    return plan, scripts


def apply_staged(layout: Layout, plan: dict[str, Any], scripts: Path, root: Path, mount_root: Path,
                 stack: ExitStack, echo: Echo, moved_bytes: int) -> dict[str, Any]:
    """Run every stage's scripts in order; check rows; the layout's partitions become the planned ones.

    Returns the record of the apply: path, seconds per stage and in all, the space each stage
    needs (the stages' own figures: the spare's includes 10 % of room), *moved_bytes* (the areas'
    files on the disk before, each copied to the spare and back), the scripts run."""
    staged_disk = plan["partitions"][0]["disk"]
    found = [(i, d) for i, d in enumerate(layout.disks) if Path(d.device).name == staged_disk]
    if not found:
        raise ApplyFailed(f"the plan stages {staged_disk}, which is none of the emulated disks")
    disk_index, disk = found[0]
    name = Path(disk.device).name
    planned = sorted((p for p in plan["partitions"] if p["disk"] == name), key=lambda p: int(p["start_bytes"]))
    nodes = [f"{disk.device}p{p['number']}" for p in planned]
    stack.callback(_release, layout.server, mount_root, nodes)
    layout.server.restart({"debug_io_direct": ""})  # the copies read through the page cache, as a DBA's would
    rows_before = row_counts(layout.server, layout.workload.databases)
    log, ran, stages = root / "apply.log", [], []
    started = time.monotonic()
    for stage in plan["stages"]:
        stage_started = time.monotonic()
        for script in stage["scripts"]:
            if not script.endswith(".txt"):  # the sfdisk table is stage 2's input
                _run_script(layout.server, scripts / script, log, echo)
                ran.append(script)
        stages.append({"number": stage["number"], "title": stage["title"], "needs_bytes": stage["needs_bytes"],
                       "where": stage["needs_where"], "seconds": round(time.monotonic() - stage_started, 1)})
    seconds = round(time.monotonic() - started, 1)
    rows_after = row_counts(layout.server, layout.workload.databases)  # still through the page cache
    layout.server.psql("CHECKPOINT")
    layout.server.restart({"debug_io_direct": "data"})
    layout.partitions[disk_index] = {
        str(p["label"]): Area(str(p["label"]), mount_root / str(p["label"]), node, int(p["start_bytes"]),
                              int(p["size_bytes"])) for p, node in zip(planned, nodes, strict=True)}
    changed = sorted(t for t in rows_before.keys() | rows_after.keys() if rows_before.get(t) != rows_after.get(t))
    if changed:
        raise ApplyFailed(f"row counts changed by the apply: {', '.join(changed[:3])}"
                          f" ({rows_before.get(changed[0])} -> {rows_after.get(changed[0])} rows)")
    echo(f"  applied in {seconds:.0f} s: " + "; ".join(
        f"stage {s['number']} {s['seconds']:.0f} s" for s in stages) + f"; {len(rows_after)} tables' rows unchanged")
    return {"path": STAGED, "seconds": seconds, "stages": stages,
            "moved_bytes": moved_bytes, "scripts": ran,
            "tables_checked": len(rows_after)}


def check_placed(plan: dict[str, Any], files: dict[str, list[Path]]) -> int:
    """Every extent of every area's files (*files*: area → paths) inside the planned partition its
    placement names; returns the paths checked. A path without extents (an empty directory is
    located as its partition) must be on that partition."""
    parts = {str(p["label"]): p for p in plan["partitions"]}
    nodes = {label: f"{p['disk']}p{p['number']}" for label, p in parts.items()}
    checked = 0
    for placement in plan.get("placements") or []:
        area, part = str(placement["area"]), parts.get(str(placement["target"]))
        if part is None:
            raise ApplyFailed(f"{area}'s planned partition {placement['target']} is not in the plan")
        start, end = int(part["start_bytes"]), int(part["start_bytes"]) + int(part["size_bytes"])
        paths = files.get(area, [])
        for location in locate([str(p) for p in paths], keep_extents=True):
            if location.disk != part["disk"]:
                raise ApplyFailed(f"{area}: {location.path} is on {location.disk}, not on {part['disk']}")
            for extent in location.extent_list:
                if not start <= extent.disk_offset_bytes < extent.disk_offset_bytes + extent.length_bytes <= end:
                    raise ApplyFailed(f"{area}: {location.path} has bytes {extent.disk_offset_bytes}+"
                                      f"{extent.length_bytes} outside {part['label']} ({start}-{end})")
            if not location.extent_list and location.partition not in (None, nodes[part["label"]]):
                raise ApplyFailed(f"{area}: {location.path} is on {location.partition}, not on "
                                  f"{nodes[part['label']]} ({part['label']})")
            checked += 1
    return checked


def temp_dirs(layout: Layout) -> dict[str, list[Path]]:
    """Each temp area's directory now (temp files come and go: the directory is what stays)."""
    return {spec.name: _temp_dir(layout, spec.name) for spec in layout.workload.areas if spec.temp}


def _temp_dir(layout: Layout, area: str) -> list[Path]:
    """The first of ``temp_tablespaces`` (the plan's script renames the tablespace), located."""
    setting = layout.server.psql("SHOW temp_tablespaces", dbname=layout.workload.groups[0].database)
    first = setting.split(",")[0].strip().strip('"')
    location = layout.server.psql(f"SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE spcname = '{first}'") \
        if first else ""
    if not location:
        raise ApplyFailed(f"{area}: temp_tablespaces ({setting!r}) names no tablespace with a location after the apply")
    return [Path(location)]


def apply_directories(layout: Layout, plan: dict[str, Any], root: Path, echo: Echo, why: str) -> dict[str, Any]:
    """The demo's way, for what cannot be staged: each planned partition a directory on the existing
    partition that overlaps its zone most, then the plan's own scripts."""
    started = time.monotonic()
    planned_root = root / "planned"
    for disk, parts in zip(layout.disks, layout.partitions, strict=True):
        mine = [p for p in plan.get("partitions", []) if p.get("disk") == Path(disk.device).name]
        if mine:
            mapping = mount_planned(mine, parts, disk.size_bytes, planned_root)
            echo(f"  planned partitions on {Path(disk.device).name} -> existing: {mapping}")
    layout.server.restart({"debug_io_direct": ""})
    applied = apply_plan(layout.server, plan.get("scripts", []), root / "apply.log", echo)
    layout.server.psql("CHECKPOINT")
    layout.server.restart({"debug_io_direct": "data"})
    return {"path": f"directories on the existing partitions ({why})", "seconds": round(time.monotonic() - started, 1),
            "scripts": applied}
