"""`advisor collectors`: the installed collector plugins, what they offer, whether they load.

Built-in collectors register through the same ``advisor.collectors`` entry points as
third-party ones, so this is also how a plugin author checks an installation. "offers" lists
the capabilities the plugin really implements (collect, connect, observe, history, report),
checked against the Protocols of :mod:`advisor.collect.registry`. A plugin that fails to
import is listed as failed with its error; the command still exits 0.
"""

from __future__ import annotations

import typer

from advisor.cli.common import OutputFormat, emit, require_format


def collectors(
    output_format: OutputFormat = typer.Option(OutputFormat.terminal, "--format", "-f", help="terminal or json."),
) -> None:
    """List collector plugins: name, dbms, what they offer, distribution, version, status."""
    from advisor.collect.registry import discover
    from advisor.render.collectors import collectors_json, collectors_table

    require_format(output_format, "collectors", (OutputFormat.terminal, OutputFormat.json))
    plugins = discover()
    emit(output_format, None, terminal=lambda console: collectors_table(plugins, console),
         json=lambda: collectors_json(plugins))


def register(app: typer.Typer) -> None:
    """Add ``collectors`` to the root app."""
    app.command(name="collectors")(collectors)
