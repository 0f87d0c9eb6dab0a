"""Shared by ``advisor report`` and ``advisor plan``: output, scripts, the target inventory.

Which physics judges which disk is the engine's (:mod:`advisor.engine.disk_models`); its
``load_models`` is reachable from here for the commands that call it.

Heavy imports (numpy through the disk model, rich) happen inside the functions so
``advisor --help`` stays fast.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.common import OutputFormat, emit
from advisor.engine.disk_models import DEFAULT_PRESET as DEFAULT_PRESET  # plan, audit
from advisor.engine.disk_models import load_models as load_models  # report, plan, fleet
from advisor.render.safe import shown

if TYPE_CHECKING:
    from rich.console import Console

    from advisor.engine.advise import Models
    from advisor.engine.planner import PlanOptions
    from advisor.model import Report, Workload


def target_model_basis(models: Models) -> Models:
    """With ``--target`` the model basis also says the inventory's devices bring their own models."""
    from dataclasses import replace

    return replace(models, basis=f"{models.basis} for today's disks; the --target inventory's devices by their "
                   "own profile, preset or spec")


def with_target(options: PlanOptions, inventory_path: Path, knapsack: bool = False) -> PlanOptions:
    """Plan options for a tiered plan onto the inventory at *inventory_path* (its headroom wins)."""
    from dataclasses import replace

    from advisor.disk.media.build import build_device_model
    from advisor.model.inventory import load_inventory

    inventory = load_inventory(inventory_path)
    target = tuple(build_device_model(d, inventory_path.parent) for d in inventory.devices)
    return replace(options, target=target, headroom=inventory.headroom, new_disks=True, knapsack=knapsack)


def output_report(report: Report, fmt: OutputFormat, output: Path | None, workload: Workload | None = None,
                  verbose: bool = False, title: str = "advisor report", cache_kept: bool = True) -> None:
    """Render *report* in *fmt* to stdout or atomically to *output* (*workload* adds the current disk map,
    from the rates the report's tables show: *cache_kept* as the report was advised; *verbose* lists every
    warning on the terminal instead of one line per kind)."""
    from advisor.render.html import render_html
    from advisor.render.json import render_json
    from advisor.render.markdown import render_markdown

    def terminal(console: Console) -> None:
        from advisor.engine.audit_map import build_audit_maps
        from advisor.render.terminal import render_terminal

        has_disks = workload is not None and workload.layout is not None and bool(workload.layout.devices)
        maps = build_audit_maps(workload, cache_kept=cache_kept) if workload is not None and has_disks else None
        render_terminal(report, console, maps, verbose, title)

    emit(fmt, output, terminal=terminal, json=lambda: render_json(report), markdown=lambda: render_markdown(report),
         html=lambda: render_html(report))


def advise_and_output(
    work: Workload, models: Models, options: PlanOptions, notes: list[str],
    fmt: OutputFormat, output: Path | None, scripts: Path | None, verbose: bool = False,
    assumed: frozenset[str] = frozenset(), scripts_anyway: bool = False, cache_kept: bool = True,
    title: str = "advisor report",
) -> None:
    """The common tail of ``report`` and ``plan``: advise, say the model notes, render, write scripts.

    *assumed* names the areas whose size ``--assume-size`` gave: the report marks them.
    *cache_kept* is ``--cache``: plan by the reads a disk served (kept) or by all (lost).
    The engine finishes the report (:func:`advisor.engine.advise.advise`); this only shows it.
    """
    from advisor.engine.advise import AdviceRequest, advise

    result = advise(AdviceRequest(work, models, options, cache_kept, generated_at=dt.datetime.now(dt.UTC),
                                  assumed_sizes=assumed))
    for note in notes:  # the model basis is in the report itself, in every format
        typer.echo(f"advisor: note: {shown(note)}", err=True)
    output_report(result, fmt, output, work, verbose, title, cache_kept)
    write_scripts(result, scripts, scripts_anyway)


def write_scripts(report: Report, directory: Path | None, anyway: bool = False) -> None:
    """Write each script of the plan into *directory* (atomic files; shell scripts executable).

    A plan not worth carrying out (``not_worth_it``) writes nothing unless *anyway*; every
    case that writes nothing says why on stderr.
    """
    plan = report.plan
    if directory is None:
        if plan is not None and plan.scripts and not plan.not_worth_it:
            typer.echo(f"advisor: note: the plan has {len(plan.scripts)} scripts; --scripts DIR writes them", err=True)
        return
    if plan is None or not plan.scripts:
        why = report.no_plan.words if plan is None and report.no_plan is not None else "No plan."
        typer.echo(f"advisor: no scripts written: {why}", err=True)
        return
    if plan.not_worth_it and not anyway:
        typer.echo(f"advisor: no change worth making ({plan.not_worth_it}): no scripts written "
                   "(--scripts-anyway writes them)", err=True)
        return
    from advisor.model.jsonio import write_atomic

    directory.mkdir(parents=True, exist_ok=True)
    for script in plan.scripts:
        target = directory / script.name
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, script.text)
        # readable by the account that runs it (often not the one that wrote it: postgres, oracle)
        target.chmod(0o755 if script.language == "shell" else 0o644)
    typer.echo(f"advisor: wrote {len(plan.scripts)} scripts to {directory}", err=True)
