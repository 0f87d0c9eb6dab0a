"""`advisor audit`: per disk, where each partition and database area sits and how hot it is.

Input is a live server (``--dsn``: one snapshot, cumulative IO shares) or saved snapshots
(``--snapshot A.json [B.json]``: one gives cumulative shares, two give IO per second; take
them with ``advisor collect --interval N --keep-snapshots DIR``). The page is a list of
sections; the disk maps are the first. Another section (findings) is added by appending its JSON under a new key and its
renderables to ``sections`` in :func:`audit`.
"""

from __future__ import annotations

from pathlib import Path

import typer

from advisor.cli.common import OutputFormat, emit, file_console, stdout_console
from advisor.cli.reporting import DEFAULT_PRESET
from advisor.errors import BadInput
from advisor.model import AuditReport, Snapshot, Workload
from advisor.model.jsonio import dumps


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


def audit_workload(snapshots: list[Snapshot]) -> Workload:
    """Rates of the pair (resets accepted as warnings, another server refused), or of one snapshot
    since the server started; both through :mod:`advisor.rates.workload`."""
    from advisor.rates.workload import diff, since_start

    last = snapshots[-1]
    if last.layout is None:
        runs = "; ".join(f"{r.name}: {r.status} {r.reason or ''}".strip() for r in last.runs if r.name == "host")
        raise BadInput(f"the snapshot has no host layout ({runs or 'host collector did not run'})",
                       hint="collect on the database host")
    if len(snapshots) == 1:
        return since_start(last)
    return diff(snapshots[0], last, allow_reset=True, always_refuse=("identity",))


def build_audit(snapshots: list[Snapshot]) -> AuditReport:
    """Disk maps of the last snapshot (heat from the pair when there are two) and the engine's
    findings for the layout as it is (default drive preset)."""
    from advisor.cli.reporting import load_models
    from advisor.engine.advise import audit_findings
    from advisor.engine.audit_map import build_audit_maps

    workload = audit_workload(snapshots)
    models, _ = load_models(None, None, None)  # notes: see AUDIT_MODEL
    maps = build_audit_maps(workload, cumulative=len(snapshots) == 1)
    return AuditReport(snapshots[-1].server, snapshots[-1].taken_at, maps, tuple(audit_findings(workload, models)))


def audit(
    extra: list[Path] = typer.Argument(None, help="Second snapshot (after --snapshot A.json)."),
    snapshot: list[Path] = typer.Option(None, "--snapshot", "-s", help="Snapshot file(s) from advisor collect."),
    dsn: str = typer.Option(None, "--dsn", help="Collect from this server now (run on the database host)."),
    dbms: str = typer.Option("postgres", "--dbms", help="Collector to use with --dsn."),
    output_format: OutputFormat = typer.Option(OutputFormat.terminal, "--format", "-f", help="terminal or json."),
    output: Path = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
) -> None:
    """Map each disk from outer to inner edge: partitions and database areas, coloured by IO."""
    from rich.text import Text

    from advisor.model import load_snapshot
    from advisor.render.diskmap import render_disk_maps
    from advisor.render.terminal import findings_section

    files = [*(snapshot or []), *(extra or [])]
    if bool(files) == bool(dsn):
        raise BadInput("give either --dsn or --snapshot FILE [FILE]")
    if len(files) > 2:
        raise BadInput("at most two snapshots (A and B) can be compared")
    if output_format not in (OutputFormat.terminal, OutputFormat.json):
        raise BadInput(f"--format {output_format.value} is not offered by audit; use terminal or json")
    snapshots = [load_snapshot(f) for f in files] if files else [_live_snapshot(dsn, dbms)]
    result = build_audit(snapshots)
    if output_format is OutputFormat.json:
        emit(dumps(result), output)
        return
    console = stdout_console() if output is None else file_console()
    model = Text(AUDIT_MODEL, style="dim")
    sections = [*render_disk_maps(result.maps, console.width), model, *findings_section(result.findings)]
    if output is not None:
        for section in sections:
            console.print(section)
        emit(console.export_text(), output)
        return
    for section in sections:
        console.print(section)
    said = {m.disk.reason for m in result.maps.maps if not m.disk.placement_known and m.disk.reason}
    for warning in result.maps.warnings:
        if not any(reason in warning for reason in said):  # the map and PLACEMENT_UNKNOWN said it
            console.print(f"note: {warning}", markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``audit`` to the root app."""
    app.command(name="audit")(audit)
