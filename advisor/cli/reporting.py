"""Shared by ``advisor report`` and ``advisor plan``: disk models from options, output, scripts.

Heavy imports (numpy through the disk model, rich) happen inside the functions so
``advisor --help`` stays fast.
"""

from __future__ import annotations

import datetime as dt
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.common import OutputFormat, emit, file_console, stdout_console
from advisor.errors import AdvisorError, BadInput
from advisor.render.safe import shown

if TYPE_CHECKING:
    from advisor.disk.model import DiskModel
    from advisor.disk.physics import DiskPhysics
    from advisor.engine.advise import Models
    from advisor.engine.planner import PlanOptions
    from advisor.model import DiskProfile, Report, Workload

DEFAULT_PRESET = "class-7200-desktop"


def load_models(disk: list[Path] | None, preset: str | None, spec: Path | None) -> tuple[Models, list[str]]:
    """Physics for the advice: measured profiles (fitted), a preset, or a drive spec file.

    A measured profile applies to the disk it was measured on (its ``device``); the preset or
    spec (default: a 7200 rpm desktop class) applies to every other disk.
    """
    from advisor.disk.physics import ModelPhysics
    from advisor.disk.presets import get_model
    from advisor.engine.advise import Models

    notes: list[str] = []
    if preset and spec:
        raise BadInput("give either --preset or --spec, not both")
    if spec is not None:
        base = get_model(str(spec))
        basis = f"the drive spec {spec} (--spec)"
    elif preset:
        base = get_model(preset)
        basis = f"the {preset} preset (--preset)"
    else:
        base = get_model(DEFAULT_PRESET)
        basis = f"the {DEFAULT_PRESET} preset, the default: no --disk, --preset or --spec given"
    default: DiskPhysics = ModelPhysics(base)
    per_disk: dict[str, DiskPhysics] = {}
    profiles: dict[str, DiskProfile] = {}
    for path in disk or []:
        profile, physics = _profile_physics(path, base if (preset or spec) else None)
        name = posixpath.basename(profile.device or profile.target) or profile.target
        per_disk[name] = physics
        profiles[name] = profile
        if len(disk or []) == 1 and not preset and not spec:
            default = physics
    if profiles:
        measured = ", ".join(f"{name} measured by advisor bench ({_fit_kind(p)})" for name, p in profiles.items())
        basis = measured + ("" if len(profiles) == 1 and not (preset or spec) else f"; other disks: {basis}")
    notes.append(MODEL_NOTE + basis)
    return Models(default=default, per_disk=per_disk, profiles=profiles), notes


MODEL_NOTE = "disk model: "
"""Start of the note that says which model the advice assumed and why; it goes into the report
(every format shows it with the summary), not to stderr."""


def target_model_note(notes: list[str]) -> list[str]:
    """With ``--target`` the model note also says the inventory's devices bring their own models."""
    return [f"{n} for today's disks; the --target inventory's devices by their own profile, preset or spec"
            if n.startswith(MODEL_NOTE) else n for n in notes]


def _fit_kind(profile: DiskProfile) -> str:
    return "solid state, no zones" if profile.classification == "solid-state" else "model fitted to the profile"


def _profile_physics(path: Path, base: DiskModel | None) -> tuple[DiskProfile, DiskPhysics]:
    from advisor.disk.fit import fit_profile
    from advisor.disk.physics import ModelPhysics
    from advisor.model import load_disk_profile

    profile = load_disk_profile(path)
    if profile.classification == "solid-state":
        from advisor.disk.presets import get_model

        # no zones or seeks to fit: the model only carries the size; SOLID_STATE stops the zone plan
        flat = (base or get_model(DEFAULT_PRESET)).with_changes(name=f"solid-state {profile.target}")
        return profile, ModelPhysics(flat, solid_state=True)
    try:
        fitted = fit_profile(profile, base)
    except AdvisorError:
        raise
    except (ValueError, ArithmeticError) as exc:
        raise BadInput(f"{path}: cannot fit a disk model to this profile ({exc})") from None
    return profile, ModelPhysics(fitted.model)


def with_target(options: PlanOptions, inventory_path: Path, knapsack: bool = False) -> PlanOptions:
    """Plan options for a tiered plan onto the inventory at *inventory_path* (its headroom wins)."""
    from dataclasses import replace

    from advisor.disk.media.build import build_device_model
    from advisor.model.inventory import load_inventory

    inventory = load_inventory(inventory_path)
    target = tuple(build_device_model(d, inventory_path.parent) for d in inventory.devices)
    return replace(options, target=target, headroom=inventory.headroom, new_disks=True, knapsack=knapsack)


def output_report(report: Report, fmt: OutputFormat, output: Path | None, workload: Workload | None = None,
                  verbose: bool = False, title: str = "advisor report") -> None:
    """Render *report* in *fmt* to stdout or atomically to *output* (*workload* adds the current disk map;
    *verbose* lists every warning on the terminal instead of one line per kind)."""
    if fmt is OutputFormat.terminal:
        from advisor.engine.audit_map import build_audit_maps
        from advisor.render.terminal import render_terminal

        has_disks = workload is not None and workload.layout is not None and bool(workload.layout.devices)
        maps = build_audit_maps(workload) if workload is not None and has_disks else None
        if output is None:
            render_terminal(report, stdout_console(), maps, verbose, title)
            return
        console = file_console()
        render_terminal(report, console, maps, verbose, title)
        emit(console.export_text(), output)
        return
    if fmt is OutputFormat.json:
        from advisor.render.json import render_json

        emit(render_json(report), output)
    elif fmt is OutputFormat.markdown:
        from advisor.render.markdown import render_markdown

        emit(render_markdown(report), output)
    else:
        from advisor.render.html import render_html

        emit(render_html(report), output)


def advise_and_output(
    work: Workload, models: Models, options: PlanOptions, notes: list[str],
    fmt: OutputFormat, output: Path | None, scripts: Path | None, verbose: bool = False,
    assumed: frozenset[str] = frozenset(), scripts_anyway: bool = False, cache_kept: bool = True,
    title: str = "advisor report",
) -> None:
    """The common tail of ``report`` and ``plan``: advise, say the model notes, render, write scripts.

    *assumed* names the areas whose size ``--assume-size`` gave: the report marks them.
    *cache_kept* is ``--cache``: plan by the reads a disk served (kept) or by all (lost).
    """
    from advisor.engine.advise import advise
    from advisor.sizes.need import mark_assumed

    result = mark_assumed(advise(work, models, options, cache_kept, generated_at=dt.datetime.now(dt.UTC)), assumed)
    if work.coverage:  # a report import: say how much of the report's stated IO it accounts for
        from dataclasses import replace

        result = replace(result, coverage=work.coverage)
    basis = tuple(n for n in notes if n.startswith(MODEL_NOTE))
    if basis:
        from dataclasses import replace

        result = replace(result, warnings=(*basis, *result.warnings))
    for note in notes:
        if not note.startswith(MODEL_NOTE):  # that one is in the report itself, in every format
            typer.echo(f"advisor: note: {shown(note)}", err=True)
    output_report(result, fmt, output, work, verbose, title)
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
        why = next((w for w in report.warnings if w.startswith("No ")), "No plan.")
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
        if script.language == "shell":
            target.chmod(0o755)
    typer.echo(f"advisor: wrote {len(plan.scripts)} scripts to {directory}", err=True)
