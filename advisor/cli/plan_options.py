"""The options ``plan`` and ``report`` share, declared once.

Both commands advise on a workload with the same engine, so the options that steer it
(models, headroom, scripts, gain threshold, inventory, output) mean the same in both. Each
is a function, as :func:`~advisor.cli.sizes_options.sizes_option` is, so each command gets its
own instance; where the two commands word a help text differently (``plan`` speaks of the
new target disks, ``report`` of today's), the caller passes its own text.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.common import OutputFormat, finite

if TYPE_CHECKING:
    from advisor.engine.planner import PlanOptions

SCRIPTS_ANYWAY_HELP = "With --scripts: write them even when the plan gains under --min-gain."
MIN_GAIN_HELP = "Predicted gain, in %, below which a plan is 'no change worth making' and writes no scripts."
KNAPSACK_HELP = "With --target: lay out the IO-density knapsack baseline instead of the searched plan (to compare)."


def disk_option(help_text: str) -> list[Path]:
    """``--disk``: measured profile(s) from ``advisor bench``."""
    value: list[Path] = typer.Option(None, "--disk", help=help_text)
    return value


def preset_option(help_text: str) -> str | None:
    """``--preset``: a drive preset name."""
    value: str | None = typer.Option(None, "--preset", help=help_text)
    return value


def spec_option(help_text: str) -> Path | None:
    """``--spec``: a drive spec file."""
    value: Path | None = typer.Option(None, "--spec", help=help_text)
    return value


def time_scale_option() -> float:
    """``--time-scale``: the preset or spec drive run on a clock S times fast (the emulated HDD)."""
    value: float = typer.Option(1.0, "--time-scale", min=0.001, callback=finite, help=(
        "The disk is `advisor disk emulate --scale S`: every time the preset or spec models is divided by S "
        "(gains unchanged; measured profiles are not scaled)."))
    return value


def path_option() -> float:
    """``--path-ms``: a request's time between the block layer and the drive, which a trace's replay adds."""
    value: float = typer.Option(0.0, "--path-ms", min=0.0, callback=finite, help=(
        "Milliseconds a request spends between the block layer and the drive, both ways, beyond the drive's own "
        "service: next to none on a SATA or SAS adapter (the default, 0), more behind a loop device, a virtual "
        "or network disk, or on a host whose CPUs are all busy. The replay of a traced workload serves its "
        "requests behind it; the aggregate model does not use it."))
    return value


def headroom_option(help_text: str) -> float:
    """``--headroom``: growth room per area, 0 to 10 (0.3 = 30 %)."""
    value: float = typer.Option(0.3, "--headroom", min=0.0, max=10.0, callback=finite, help=help_text)
    return value


def mount_root_option(help_text: str) -> str:
    """``--mount-root``: where the planned partitions mount."""
    value: str = typer.Option("/srv/advisor", "--mount-root", help=help_text)
    return value


def force_option() -> bool:
    """``--force``: plan even when the database is not IO bound."""
    value: bool = typer.Option(False, "--force", help="Plan even when the database is not IO bound.")
    return value


def format_option() -> OutputFormat:
    """``--format/-f``: terminal, json, markdown or html."""
    value: OutputFormat = typer.Option(OutputFormat.terminal, "--format", "-f", help="Output format.")
    return value


def output_option(help_text: str) -> Path | None:
    """``--output/-o``: the report file, written atomically."""
    value: Path | None = typer.Option(None, "--output", "-o", help=help_text)
    return value


def scripts_option(help_text: str) -> Path | None:
    """``--scripts``: the directory the plan's scripts go to."""
    value: Path | None = typer.Option(None, "--scripts", help=help_text)
    return value


def scripts_anyway_option() -> bool:
    """``--scripts-anyway``: scripts even for a plan under ``--min-gain``."""
    value: bool = typer.Option(False, "--scripts-anyway", help=SCRIPTS_ANYWAY_HELP)
    return value


def min_gain_option() -> float:
    """``--min-gain``: the predicted gain, in %, a plan must reach to be worth scripts."""
    value: float = typer.Option(5.0, "--min-gain", min=0.0, max=100.0, callback=finite, help=MIN_GAIN_HELP)
    return value


def target_option() -> Path | None:
    """``--target``: an inventory, for a tiered plan."""
    value: Path | None = typer.Option(None, "--target", help="Inventory of the target machine: a tiered plan.")
    return value


def knapsack_option() -> bool:
    """``--knapsack``: the tiered plan's IO-density baseline instead of the searched plan."""
    value: bool = typer.Option(False, "--knapsack", help=KNAPSACK_HELP)
    return value


def verbose_option() -> bool:
    """``--verbose/-v``: every warning."""
    value: bool = typer.Option(False, "--verbose", "-v", help="List every warning (terminal: one line per kind).")
    return value


def in_place_option() -> bool:
    """``--in-place``: stage the plan on the disk that holds the data (docs/plan.md#in-place)."""
    value: bool = typer.Option(False, "--in-place", help="Stage the plan on the disk that holds the data today: "
                               "steps through the disk's free space, or through --spare (scripts per step).")
    return value


def spare_option() -> str | None:
    """``--spare``: where a staged migration keeps the disk's areas meanwhile."""
    value: str | None = typer.Option(None, "--spare", help="With --in-place: a directory on another disk, or an "
                                     "empty device (/dev/sdX), with room for everything the disk holds for the "
                                     "database (else: the disk's own free space).")
    return value


def staged_options(options: PlanOptions, in_place: bool, spare: str | None) -> PlanOptions:
    """*options* for a staged migration: the spare's free space when this host can see it."""
    import os
    from dataclasses import replace

    from advisor.errors import BadInput

    if spare is not None and not in_place:
        raise BadInput("--spare goes with --in-place")
    if not in_place:
        return options
    if options.target:
        raise BadInput("--in-place stages today's disk; --target plans new devices: give one of them")
    free = None
    if spare is not None and os.path.isdir(spare):
        stat = os.statvfs(spare)
        free = stat.f_bavail * stat.f_frsize
    elif spare is not None and spare.startswith("/dev/") and os.path.exists(spare):
        with open(spare, "rb") as device:  # a spare device: its whole size (stage1-spare.sh formats it)
            free = device.seek(0, os.SEEK_END)
    return replace(options, in_place=True, new_disks=False, spare=spare, spare_free_bytes=free)
