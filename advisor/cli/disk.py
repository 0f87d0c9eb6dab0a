"""`advisor disk presets|show|simulate|fit` (and `emulate`): the HDD model on the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer

from advisor.cli.common import OutputFormat, emit
from advisor.errors import BadInput

disk_app = typer.Typer(help="HDD physics model: presets, predictions, simulation, fitting.", no_args_is_help=True)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_FORMAT = typer.Option(OutputFormat.terminal, "--format", help="terminal or json.")


def parse_size(text: str) -> int:
    """``4k``, ``1M``, ``10G`` (binary units) or a byte count → bytes."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*", text, flags=re.IGNORECASE)
    if not match or float(match.group(1)) <= 0:
        raise BadInput(f"cannot read size {text!r}", hint="use e.g. 4k, 1M, 10G or a byte count")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def parse_band(text: str) -> tuple[float, float]:
    """``LO:HI`` as fractions of the disk (``0:0.01``) or percentages (``0%:1%``)."""
    parts = text.split(":")
    try:
        lo, hi = (float(p.rstrip("%")) / (100.0 if p.endswith("%") else 1.0) for p in parts)
    except ValueError:
        raise BadInput(f"cannot read band {text!r}", hint="use LO:HI fractions, e.g. 0:0.01 or 99%:100%") from None
    if not 0.0 <= lo < hi <= 1.0:
        raise BadInput(f"band {text!r} must satisfy 0 ≤ LO < HI ≤ 1")
    return lo, hi


def _dump(data: Any, output: Path | None = None) -> None:
    emit(json.dumps(data, indent=2, sort_keys=False), output)


def _model_arg(preset: str | None, spec: Path | None) -> str:
    if (preset is None) == (spec is None):
        raise BadInput("name exactly one drive: a preset or --spec FILE")
    return str(spec) if spec is not None else str(preset)


@disk_app.command(name="presets")
def presets_cmd(fmt: OutputFormat = _FORMAT) -> None:
    """List the drive presets with their class and description."""
    from advisor.disk.presets import list_presets

    infos = list_presets()
    if fmt == OutputFormat.json:
        _dump(
            [
                {"name": p.name, "class": p.drive_class, "description": p.description, "sources": p.sources}
                for p in infos
            ]
        )
        return
    from advisor.cli.disk_render import presets_table

    presets_table(infos)


@disk_app.command(name="show")
def show_cmd(
    preset: str = typer.Argument(None, help="Preset name (see `advisor disk presets`)."),
    spec: Path = typer.Option(None, "--spec", help="A drive.toml describing your own drive."),
    bs: str = typer.Option("8k", "--bs", help="Block size of the random-IO predictions."),
    fmt: OutputFormat = _FORMAT,
) -> None:
    """Zone curve, seek curve and headline predictions of one drive."""
    from advisor.disk.overview import describe
    from advisor.disk.presets import get_spec

    drive = get_spec(_model_arg(preset, spec))
    data = {
        "name": drive.name,
        "class": drive.drive_class,
        "description": drive.description,
        **describe(drive.model, parse_size(bs)),
        "sources": drive.sources,
    }
    if fmt == OutputFormat.json:
        _dump(data)
        return
    from advisor.cli.disk_render import show_tables

    show_tables(data)


@disk_app.command(name="simulate")
def simulate_cmd(
    preset: str = typer.Option(None, "--preset", help="Drive preset name."),
    spec: Path = typer.Option(None, "--spec", help="A drive.toml describing your own drive."),
    pattern: str = typer.Option("randread", "--pattern", help="randread, read, write or randwrite."),
    band: str = typer.Option("0:1", "--band", help="LBA band LO:HI as fractions (0 = outer edge)."),
    qd: int = typer.Option(1, "--qd", help="Queue depth of the stream."),
    bs: str = typer.Option("8k", "--bs", help="Block size (4k, 1M...)."),
    ios: int = typer.Option(10000, "--ios", help="Number of IOs to simulate."),
    streams: list[str] = typer.Option([], "--stream", help="More streams: PATTERN:LO:HI[:QD[:BS]]."),
    flush_every: int = typer.Option(0, "--flush-every", help="Flush after every N writes (0 = never)."),
    seed: int = typer.Option(0, "--seed", help="Random seed (results are deterministic per seed)."),
    fmt: OutputFormat = _FORMAT,
) -> None:
    """Simulate one or more IO streams on one drive."""
    from advisor.disk.presets import get_model
    from advisor.disk.simulate import PATTERNS, StreamSpec, simulate

    model = get_model(_model_arg(preset, spec))
    specs = [(pattern, parse_band(band), qd, parse_size(bs))]
    for text in streams:
        parts = text.split(":")
        if len(parts) < 3 or len(parts) > 5:
            raise BadInput(f"cannot read --stream {text!r}", hint="use PATTERN:LO:HI[:QD[:BS]]")
        depth = int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else qd
        if len(parts) > 3 and not parts[3].isdigit():
            raise BadInput(f"--stream {text!r}: queue depth must be a whole number")
        specs.append(
            (
                parts[0],
                parse_band(f"{parts[1]}:{parts[2]}"),
                depth,
                parse_size(parts[4]) if len(parts) > 4 else parse_size(bs),
            )
        )
    for name, *_ in specs:
        if name not in PATTERNS:
            raise BadInput(f"unknown pattern {name!r}", hint=f"use one of {', '.join(PATTERNS)}")
    if qd < 1 or ios < 1:
        raise BadInput("--qd and --ios must be at least 1")
    run = simulate(
        model,
        [
            StreamSpec(p, b, block, d, flush_every=flush_every or None)  # type: ignore[arg-type]
            for p, b, d, block in specs
        ],
        ios=ios,
        seed=seed,
    )
    from advisor.cli.disk_render import simulation_dict

    data = simulation_dict(model.name, run, seed)
    if fmt == OutputFormat.json:
        _dump(data)
        return
    from advisor.cli.disk_render import simulation_table

    simulation_table(data)


@disk_app.command(name="fit")
def fit_cmd(
    profile_path: Path = typer.Argument(..., help="disk.json written by `advisor bench`."),
    base: str = typer.Option(None, "--base", help="Preset (or drive.toml) to start from; default by rpm."),
    output: Path = typer.Option(None, "-o", "--output", help="Write the fitted drive.toml here."),
    fmt: OutputFormat = _FORMAT,
) -> None:
    """Fit the physical model to a measured disk profile; print residuals."""
    from advisor.disk.fit import fit_profile
    from advisor.disk.presets import get_model
    from advisor.disk.spec import to_toml
    from advisor.jsonio import read_document
    from advisor.model import DISK_PROFILE_FORMAT_VERSION, DiskProfile

    profile = read_document(profile_path, "disk-profile", DiskProfile, DISK_PROFILE_FORMAT_VERSION)
    result = fit_profile(profile, get_model(base) if base else None)
    fitted = ("r_od_mb_s", "rho", "seek_track_ms", "seek_avg_ms", "seek_full_ms", "overhead_ms", "rpm")
    sources = dict.fromkeys(fitted, f"fitted to {profile_path.name} ({profile.measured_at})")
    toml_text = to_toml(result.model, f"fitted to {profile.target}", sources)
    if output is not None:
        emit(toml_text, output)
    from advisor.cli.disk_render import fit_dict, fit_table

    data = fit_dict(result, toml_text)
    if fmt == OutputFormat.json:
        _dump(data)
    else:
        fit_table(data, show_toml=output is None)


def register(app: typer.Typer) -> None:
    """Add `advisor disk ...` to the root app."""
    from advisor.cli import disk_emulate

    disk_emulate.register(disk_app)
    app.add_typer(disk_app, name="disk")
