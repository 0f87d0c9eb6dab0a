"""`advisor audit`: per disk, where each partition and database area sits and how hot it is.

Input is a live server (``--dsn``: one snapshot, cumulative IO shares) or saved snapshots
(``--snapshot A.json [B.json]``: one gives cumulative shares, two give IO per second; take
them with ``advisor collect --interval N --keep-snapshots DIR``). The page is a list of
sections; the disk maps are the first. Which workload is judged and the report itself are the
engine's (:func:`advisor.engine.audit_map.build_audit`); another section is added by appending
its JSON under a new key and its renderables to ``sections`` in :func:`audit`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.common import OutputFormat, emit, require_format
from advisor.engine.disk_models import DEFAULT_PRESET
from advisor.errors import BadInput
from advisor.model import Snapshot
from advisor.model.jsonio import dumps

if TYPE_CHECKING:
    from rich.console import Console


def _live_snapshot(dsn: str, dbms: str) -> Snapshot:
    """One snapshot through the same plugins as ``advisor collect`` (database, then host)."""
    from advisor.collect.sampling import close_quietly, find_plugins, take_snapshot

    plugins = find_plugins(dbms)
    conn = plugins.database.connect(dsn, {})
    try:
        return take_snapshot(plugins, conn, {})
    finally:
        close_quietly(plugins, conn)


AUDIT_MODEL = (f"disk model: the {DEFAULT_PRESET} preset for every disk, the default (audit takes no "
               "--disk or --preset; `advisor report --disk/--preset` judges with another)")
"""Which model the findings assumed and why, printed above them."""


def audit(
    extra: list[Path] = typer.Argument(None, help="Second snapshot (after --snapshot A.json)."),
    snapshot: list[Path] = typer.Option(None, "--snapshot", "-s", help="Snapshot file(s) from advisor collect."),
    dsn: str = typer.Option(None, "--dsn", help="Collect from this server now (run on the database host)."),
    dbms: str = typer.Option("postgres", "--dbms", help="Collector to use with --dsn."),
    output_format: OutputFormat = typer.Option(OutputFormat.terminal, "--format", "-f",
                                               help="terminal, json or html."),
    output: Path = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
) -> None:
    """Map each disk from outer to inner edge: partitions and database areas, coloured by IO."""
    from rich.text import Text

    from advisor.engine.audit_map import build_audit
    from advisor.engine.disk_models import load_models
    from advisor.model import load_snapshot
    from advisor.render.diskmap import render_disk_maps
    from advisor.render.terminal import findings_section

    files = [*(snapshot or []), *(extra or [])]
    if bool(files) == bool(dsn):
        raise BadInput("give either --dsn or --snapshot FILE [FILE]")
    if len(files) > 2:
        raise BadInput("at most two snapshots (A and B) can be compared")
    require_format(output_format, "audit", (OutputFormat.terminal, OutputFormat.json, OutputFormat.html))
    snapshots = [load_snapshot(f) for f in files] if files else [_live_snapshot(dsn, dbms)]
    models = load_models(None, None, None)  # the basis: AUDIT_MODEL
    result = build_audit(snapshots, models)

    def terminal(console: Console) -> None:
        model = Text(AUDIT_MODEL, style="dim")
        for section in [*render_disk_maps(result.maps, console.width), model, *findings_section(result.findings)]:
            console.print(section)
        if output is not None:
            return  # the notes go to the terminal only; a file holds the maps and findings
        said = {m.disk.reason for m in result.maps.maps if not m.disk.placement_known and m.disk.reason}
        for warning in result.maps.warnings:
            if not any(reason in warning for reason in said):  # the map and PLACEMENT_UNKNOWN said it
                console.print(f"note: {warning}", markup=False, highlight=False)

    def html() -> str:
        from advisor.render.audit_html import render_audit_html

        return render_audit_html(result, AUDIT_MODEL)

    emit(output_format, output, terminal=terminal, json=lambda: dumps(result), html=html)


def register(app: typer.Typer) -> None:
    """Add ``audit`` to the root app."""
    app.command(name="audit")(audit)
