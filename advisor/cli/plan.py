"""`advisor plan`: lay a workload out on new disks before a migration.

Reads a workload (from ``advisor collect --interval`` or an AWR/Statspack import), a disk
model (measured profile, preset or spec) and the number of disks, and prints the partitions
from the outer edge, which area goes where, the predicted service times and the scripts.
With ``--target inventory.toml`` the plan spans the inventory's devices (NVMe/SSD, HDD
zones, SMR, cloud volumes): which device and zone each area gets (docs/tiers.md).
Exit codes: 0 plan written (also when an area too big for any one device is left out: the
AREA_EXCEEDS_DEVICE finding says so); 6 bad files or options (including areas that do not fit,
an inventory too small, no area fitting any device, a device without a model or with a
profile that contradicts its medium, and file sizes unknown: an AWR/Statspack import needs
``--sizes`` or ``--assume-size``). A plan of 150 areas or more shows its phases on stderr
(a bar on a terminal, one line per phase otherwise).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.cache_option import cache_kept, cache_option
from advisor.cli.common import OutputFormat
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

    from advisor.engine.advise import Models
    from advisor.model import Workload


def plan(
    workload: Path = typer.Option(..., "--workload", help="Workload file to place."),
    disk: list[Path] = disk_option("Measured disk profile of the target disk."),
    preset: str | None = preset_option("Drive preset of the target disks."),
    spec: Path | None = spec_option("Drive spec file (drive.toml) of the target disks."),
    time_scale: float = time_scale_option(),
    path_ms: float = path_option(),
    disks: int = typer.Option(1, "--disks", min=1, max=64, help="Number of identical target disks (actuators)."),
    headroom: float = headroom_option("Growth room per area (0.3 = 30 %)."),
    dbms: str | None = typer.Option(None, "--dbms", help="Scripts for postgres or oracle (default: the workload's)."),
    mount_root: str = mount_root_option("Where the new partitions will mount."),
    device: str = typer.Option("/dev/sdX", "--device", help="Device name written into the sfdisk script."),
    force: bool = force_option(),
    fmt: OutputFormat = format_option(),
    output: Path | None = output_option("Write the plan report here (atomically)."),
    scripts: Path | None = scripts_option("Write the scripts into this directory."),
    scripts_anyway: bool = scripts_anyway_option(),
    min_gain: float = min_gain_option(),
    target: Path | None = target_option(),
    knapsack: bool = knapsack_option(),
    verbose: bool = verbose_option(),
    sizes: Path | None = sizes_option(),
    assume_size: str | None = assume_option(),
    in_place: bool = in_place_option(),
    spare: str | None = spare_option(),
    cache: str = cache_option(),
) -> None:
    """Partitions from the outer edge, area placement, predicted gain and scripts for new disks."""
    from advisor.cli.reporting import advise_and_output, load_models, with_target
    from advisor.cli.sizes_options import sized_for_plan
    from advisor.engine.planner import PlanOptions
    from advisor.model import load_workload

    kept = cache_kept(cache)
    if dbms is not None and dbms not in ("postgres", "oracle"):
        raise BadInput(f"--dbms {dbms!r}: use postgres or oracle")
    if disk and len(disk) > 1:
        raise BadInput("plan takes one --disk profile (the target disks are identical)")
    work = load_workload(workload)  # its layout, if any, gives today's positions for 'before'
    work, assumed, no_sizes = sized_for_plan(work, sizes, assume_size)
    if no_sizes is not None:
        raise BadInput(no_sizes)  # a plan on sizes nobody stated is not advice
    models = load_models(disk, preset, spec, time_scale, path_ms)
    notes: list[str] = []
    if disk:
        models = replace(models, default=next(iter(models.per_disk.values())), per_disk={})
    options = PlanOptions(disks=disks, headroom=headroom, dbms=dbms or work.server.dbms, mount_root=mount_root,
                          device=device, force=force, new_disks=True,
                          min_gain=min_gain / 100)
    if knapsack and target is None:
        raise BadInput("--knapsack goes with --target (it is the tiered plan's baseline)")
    if target is not None:
        options = with_target(options, target, knapsack)
        models, notes = _target_basis(models, work, bool(disk or preset or spec))
    options = staged_options(options, in_place, spare)
    with _phases() as progress:
        options = replace(options, progress=progress)
        advise_and_output(work, models, options, notes, fmt, output, scripts, verbose, assumed, scripts_anyway,
                          kept, title="advisor plan")


def _target_basis(models: Models, work: Workload, model_given: bool) -> tuple[Models, list[str]]:
    """With an inventory the devices bring their own models: the default preset models today's disks
    (the 'before' times) only, and only when today's layout is known (then a note says so)."""
    from advisor.cli.reporting import DEFAULT_PRESET

    today = work.layout is not None and bool(work.layout.devices)
    notes = [f"today's disks ('before') are modelled with the {DEFAULT_PRESET} preset "
             "(give --disk, --preset or --spec for them)"] if today and not model_given else []
    basis = ("each device of the --target inventory by its own profile, preset or spec"
             + (f"; today's disks: {models.basis}" if today else ""))
    return replace(models, basis=basis), notes


def _phases() -> contextlib.AbstractContextManager[Callable[[str, int, int], None]]:
    """Progress of a long plan on stderr: a rich bar on a terminal, else one line per phase.

    The engine reports only plans big enough to take seconds (advisor.engine.planner).
    """
    from advisor.cli.phases import phases

    return phases(lambda phase, total: f"advisor: planning: {phase}", transient=True)


def register(app: typer.Typer) -> None:
    """Add ``plan`` to the root app."""
    app.command(name="plan")(plan)
