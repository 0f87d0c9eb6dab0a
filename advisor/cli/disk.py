"""`advisor disk presets|show|simulate|fit` (and `emulate`): the HDD model on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from advisor.cli.common import OutputFormat, emit, write_output
from advisor.errors import BadInput

disk_app = typer.Typer(help="HDD physics model: presets, predictions, simulation, fitting.", no_args_is_help=True)
_FORMAT = typer.Option(OutputFormat.terminal, "--format", help="terminal or json.")


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False)


def _check_format(fmt: OutputFormat) -> None:
    if fmt not in (OutputFormat.terminal, OutputFormat.json):
        raise BadInput(f"--format {fmt.value} is not offered by advisor disk", hint="use terminal or json")


def _model_arg(preset: str | None, spec: Path | None) -> str:
    if (preset is None) == (spec is None):
        raise BadInput("name exactly one drive: a preset or --spec FILE")
    return str(spec) if spec is not None else str(preset)


@disk_app.command(name="presets")
def presets_cmd(fmt: OutputFormat = _FORMAT) -> None:
    """List the drive presets with their class and description."""
    from advisor.disk.presets import list_presets
    from advisor.render.disk_model import presets_table

    _check_format(fmt)
    infos = list_presets()
    emit(fmt, None, terminal=lambda console: presets_table(infos, console), json=lambda: _json(
        [{"name": p.name, "class": p.drive_class, "description": p.description, "sources": p.sources} for p in infos]))


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
    from advisor.units import parse_size

    drive = get_spec(_model_arg(preset, spec))
    data = {
        "name": drive.name,
        "class": drive.drive_class,
        "description": drive.description,
        **describe(drive.model, parse_size(bs)),
        "sources": drive.sources,
    }
    from advisor.render.disk_model import show_tables

    _check_format(fmt)
    emit(fmt, None, terminal=lambda console: show_tables(data, console), json=lambda: _json(data))


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
    from advisor.cli.disk_args import stream_specs
    from advisor.disk.presets import get_model
    from advisor.disk.simulate import simulate

    model = get_model(_model_arg(preset, spec))
    run = simulate(model, stream_specs(pattern, band, qd, bs, streams, flush_every), ios=ios, seed=seed)
    from advisor.render.disk_model import simulation_dict, simulation_table

    data = simulation_dict(model.name, run, seed)
    _check_format(fmt)
    emit(fmt, None, terminal=lambda console: simulation_table(data, console), json=lambda: _json(data))


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
    from advisor.model import load_disk_profile

    _check_format(fmt)
    profile = load_disk_profile(profile_path)
    result = fit_profile(profile, get_model(base) if base else None)
    fitted = ("r_od_mb_s_decimal", "rho", "seek_track_ms", "seek_avg_ms", "seek_full_ms", "overhead_ms", "rpm")
    sources = dict.fromkeys(fitted, f"fitted to {profile_path.name} ({profile.measured_at})")
    toml_text = to_toml(result.model, f"fitted to {profile.target}", sources)
    if output is not None:
        write_output(toml_text, output)
    from advisor.render.disk_model import fit_dict, fit_table

    data = fit_dict(result, toml_text)
    emit(fmt, None, terminal=lambda console: fit_table(data, output is None, console), json=lambda: _json(data))


def register(app: typer.Typer) -> None:
    """Add `advisor disk ...` to the root app."""
    from advisor.cli import disk_emulate

    disk_emulate.register(disk_app)
    app.add_typer(disk_app, name="disk")
