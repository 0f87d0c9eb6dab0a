"""`advisor report`: collect (or read) a workload, map it, model the disks, advise, render.

Live: ``--dsn`` takes two snapshots ``--interval`` seconds apart through the collector
plugins, exactly as ``advisor collect --interval`` does (the same code,
:mod:`advisor.cli.interval`), with ``--trace`` the block layer's requests too. Offline: ``--snapshot A B ...``
(consecutive pairs are diffed; the last pair is advised) or ``--workload W.json``.
Exit codes: 0 report written; 3/5/7 connection, grant or server problems; 6 bad files or
options; 9 statistics reset inside the interval.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.cache_option import cache_kept, cache_option
from advisor.cli.common import MAX_INTERVAL_S, OutputFormat, finite
from advisor.cli.plan_options import (
    disk_option,
    force_option,
    format_option,
    headroom_option,
    in_place_option,
    knapsack_option,
    min_gain_option,
    mount_root_option,
    output_option,
    path_option,
    preset_option,
    scripts_anyway_option,
    scripts_option,
    spare_option,
    spec_option,
    staged_options,
    target_option,
    time_scale_option,
    verbose_option,
)
from advisor.cli.sizes_options import assume_option, sizes_option
from advisor.errors import BadInput

if TYPE_CHECKING:
    from advisor.model import Workload


def _live_workload(dsn: str, dbms: str, interval: float, allow_reset: bool, trace: bool) -> Workload:
    from advisor.cli.interval import sample_interval
    from advisor.collect import sampling
    from advisor.collect.context import CollectOptions

    plugins = sampling.find_plugins(dbms)
    with sampling.LiveSession(plugins, dsn or None, CollectOptions(statement_timeout_s=30.0)) as session:
        _, _, work = sample_interval(session, interval, lambda step: typer.echo(f"advisor: {step}", err=True),
                                     trace=trace, allow_reset=allow_reset)
    return work


def load_workload_input(snapshots: list[Path], workload: Path | None, allow_reset: bool) -> Workload:
    """The workload from ``--workload`` or from the last pair of ``--snapshot`` files."""
    from advisor.model import load_snapshot, load_workload
    from advisor.rates.workload import diff

    if workload is not None:
        if snapshots:
            raise BadInput("give either --workload or --snapshot, not both")
        return load_workload(workload)
    if len(snapshots) < 2:
        raise BadInput("--snapshot needs at least two snapshot files (A and B)")
    loaded = [load_snapshot(p) for p in snapshots]
    return diff(loaded[-2], loaded[-1], allow_reset=allow_reset)


def report(
    snapshot: list[Path] = typer.Option(None, "--snapshot", help="Snapshot files A B ... (offline)."),
    more: list[Path] = typer.Argument(None, help="Further snapshot files after --snapshot A.", show_default=False),
    workload: Path | None = typer.Option(None, "--workload", help="A workload file (offline)."),
    dsn: str | None = typer.Option(None, "--dsn", help="Sample this database live (libpq DSN / Oracle connect)."),
    dbms: str = typer.Option("postgres", "--dbms", help="Database collector for --dsn (see `advisor collectors`)."),
    interval: float = typer.Option(300.0, "--interval", min=1.0, max=MAX_INTERVAL_S, callback=finite,
                                   help="Seconds between the two live samples."),
    trace: bool = typer.Option(False, "--trace", help="With --dsn (root, Linux): also record the block layer's "
                               "requests over the interval and replay them (docs/report.md)."),
    disk: list[Path] = disk_option("Measured disk profile(s) from `advisor bench`."),
    preset: str | None = preset_option("Drive preset for disks without a profile."),
    spec: Path | None = spec_option("Drive spec file (drive.toml) instead of a preset."),
    time_scale: float = time_scale_option(),
    path_ms: float = path_option(),
    headroom: float = headroom_option("Growth room per area in the plan."),
    force: bool = force_option(),
    mount_root: str = mount_root_option("Where the planned partitions mount."),
    allow_reset: bool = typer.Option(False, "--allow-reset", help="Warn instead of refusing on counter resets."),
    fmt: OutputFormat = format_option(),
    output: Path | None = output_option("Write the report here (atomically)."),
    scripts: Path | None = scripts_option("Write the plan's scripts into this directory."),
    scripts_anyway: bool = scripts_anyway_option(),
    min_gain: float = min_gain_option(),
    target: Path | None = target_option(),
    knapsack: bool = knapsack_option(),
    verbose: bool = verbose_option(),
    strict: bool = typer.Option(False, "--strict", help="Refuse (exit 6) a workload imported from a report that "
                                "falls short of the report's own totals."),
    sizes: Path | None = sizes_option(),
    assume_size: str | None = assume_option(),
    in_place: bool = in_place_option(),
    spare: str | None = spare_option(),
    cache: str = cache_option(),
) -> None:
    """Findings, a placement plan with predicted gains, and the scripts to carry it out."""
    from advisor.cli.collect import check_dbms
    from advisor.cli.reporting import advise_and_output, load_models, target_model_basis, with_target
    from advisor.cli.sizes_options import sized_for_plan
    from advisor.engine.planner import PlanOptions

    kept = cache_kept(cache)
    files = list(snapshot or []) + (list(more or []) if snapshot else [])
    if more and not snapshot:
        raise BadInput(f"unexpected argument {str(more[0])!r} (snapshot files go after --snapshot)")
    if trace and dsn is None:
        raise BadInput("--trace goes with --dsn: it records the requests of the live interval "
                       "(a saved workload carries its trace: collect --interval N --trace)")
    if dsn is not None:
        if files or workload is not None:
            raise BadInput("give either --dsn or --snapshot/--workload, not both")
        check_dbms(dbms)
        work = _live_workload(dsn, dbms, interval, allow_reset, trace)
    else:
        if not files and workload is None:
            raise BadInput("nothing to report on: give --dsn, --snapshot A B or --workload FILE")
        work = load_workload_input(files, workload, allow_reset)
    if strict:
        from advisor.model import refuse_shortfalls

        refuse_shortfalls(work.coverage, str(workload or files[-1]))
    work, assumed, no_sizes = sized_for_plan(work, sizes, assume_size)
    models = load_models(disk, preset, spec, time_scale, path_ms)
    options = PlanOptions(headroom=headroom, dbms=work.server.dbms, mount_root=mount_root, force=force,
                          min_gain=min_gain / 100, no_plan=no_sizes)  # without sizes: findings, and that line
    if knapsack and target is None:
        raise BadInput("--knapsack goes with --target (it is the tiered plan's baseline)")
    if target is not None:
        options = with_target(options, target, knapsack)
        models = target_model_basis(models)
    options = staged_options(options, in_place, spare)
    advise_and_output(work, models, options, [], fmt, output, scripts, verbose, assumed, scripts_anyway, kept)


def register(app: typer.Typer) -> None:
    """Add ``report`` to the root app."""
    app.command(name="report")(report)
