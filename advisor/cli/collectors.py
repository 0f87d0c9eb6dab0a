"""`advisor collectors`: the installed collector plugins, what they offer, whether they load.

Built-in collectors register through the same ``advisor.collectors`` entry points as
third-party ones, so this is also how a plugin author checks an installation. "offers" lists
the capabilities the plugin really implements (collect, connect, observe, history, report),
checked against the Protocols of :mod:`advisor.collect.registry`. A plugin that fails to
import is listed as failed with its error; the command still exits 0.
"""

from __future__ import annotations

import json

import typer

from advisor.cli.common import OutputFormat, emit, stdout_console
from advisor.errors import BadInput


def collectors(
    output_format: OutputFormat = typer.Option(OutputFormat.terminal, "--format", "-f", help="terminal or json."),
) -> None:
    """List collector plugins: name, dbms, what they offer, distribution, version, status."""
    from advisor.collect.registry import discover

    if output_format not in (OutputFormat.terminal, OutputFormat.json):
        raise BadInput(f"--format {output_format.value} is not offered by collectors; use terminal or json")
    plugins = discover()
    if output_format is OutputFormat.json:
        rows = [
            {"name": p.name, "target": p.target, "dbms": p.dbms, "distribution": p.distribution,
             "version": p.version, "status": p.status, "error": p.error, "capabilities": list(p.capabilities)}
            for p in plugins
        ]
        emit(json.dumps(rows, indent=2), None)
        return
    from rich.table import Table

    table = Table(title="Collector plugins (entry point group advisor.collectors)", title_justify="left")
    for column in ("name", "dbms", "offers", "distribution", "version", "status", "entry point / error"):
        table.add_column(column)
    for p in plugins:
        table.add_row(p.name, p.dbms, " ".join(p.capabilities), p.distribution, p.version, p.status,
                      p.error or p.target)
    stdout_console().print(table)


def register(app: typer.Typer) -> None:
    """Add ``collectors`` to the root app."""
    app.command(name="collectors")(collectors)
