"""`advisor where PATH...`: which disk, partition and zone each file's bytes occupy.

Exit code 0 when every path was read, 6 (BAD_INPUT) when at least one could not be (missing,
permission denied, not a file, no FIEMAP); the others are still reported. A path on tmpfs,
overlay, NFS and the like is not an error: it is reported with ``placement_known=false``
and the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.common import MAX_INTERVAL_S, OutputFormat, emit, finite, require_format
from advisor.errors import ExitCode
from advisor.model import DiskStatRate
from advisor.render.safe import shown

if TYPE_CHECKING:
    from rich.console import Console


def where(
    paths: list[Path] = typer.Argument(..., help="Files or directories (directories: union of their files)."),
    output_format: OutputFormat = typer.Option(OutputFormat.terminal, "--format", "-f",
                                               help="terminal or json."),
    extents: bool = typer.Option(False, "--extents", help="List every extent with its disk byte offset."),
    interval: float = typer.Option(0.0, "--interval", "-i", min=0.0, max=MAX_INTERVAL_S, callback=finite,
                                   help="Also sample /proc/diskstats this many seconds apart (iostat -x)."),
    no_sync: bool = typer.Option(False, "--no-sync",
                                 help="Do not flush dirty pages before mapping (faster; fresh files may "
                                      "show no position)."),
) -> None:
    """Show where each path's bytes lie on its disk (0 = outer edge, 1 = inner edge)."""
    require_format(output_format, "where", (OutputFormat.terminal, OutputFormat.json))
    from advisor.storage import diskstats
    from advisor.storage.locate import Locator

    locator = Locator(keep_extents=extents, sync=not no_sync)
    locations = locator.locate_many([str(p) for p in paths])
    rates: list[DiskStatRate] = []
    if interval > 0:
        rates = diskstats.sample_rates(set(locator.devices) | set(locator.partitions), interval)

    from advisor.render.locations import (
        Notes,
        devices_table,
        location_row,
        locations_table,
        rates_table,
    )

    def document() -> str:
        rows = [location_row(loc, extents) for loc in locations]
        whole: object = {"locations": rows, "diskstats": [_rate_row(r) for r in rates]} if interval > 0 else rows
        return json.dumps(whole, indent=2)

    def terminal(console: Console) -> None:
        notes = Notes()
        tables = [locations_table(locations, notes, extents, console.width)]
        if locator.devices:
            tables.append(devices_table(sorted(locator.devices.values(), key=lambda d: d.name), notes))
        if rates:
            tables.append(rates_table(rates, interval))
        for table in tables:
            console.print(table)
            console.print()
        for line in notes.lines():
            console.print(line, markup=False, highlight=False)

    emit(output_format, None, terminal=terminal, json=document)
    if locator.failed_paths:
        for loc in locations:
            if loc.path in locator.failed_paths:
                typer.echo(f"advisor: {shown(loc.path)}: {shown(loc.reason)}", err=True)
        raise typer.Exit(int(ExitCode.BAD_INPUT))


def _rate_row(rate: DiskStatRate) -> dict[str, object]:
    from dataclasses import asdict

    return asdict(rate)


def register(app: typer.Typer) -> None:
    """Add ``where`` to the root app."""
    app.command(name="where")(where)
