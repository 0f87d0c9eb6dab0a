"""`advisor workload A.json B.json`: rates between two saved snapshots (or show a workload).

Exit codes: 0 shown; 6 a file is missing, corrupt or of another kind, or the snapshots are
out of order; 9 the counters were reset between them (``--allow-reset`` turns that into
warnings and marks the affected rates as lower bounds with ``*``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.common import OutputFormat, emit, require_format, write_output
from advisor.errors import BadInput
from advisor.render.safe import shown

if TYPE_CHECKING:
    from rich.console import Console

    from advisor.model import Workload


def workload(
    files: list[Path] = typer.Argument(..., help="Two snapshots (A then B), or one workload document."),
    output_format: OutputFormat = typer.Option(OutputFormat.terminal, "--format", "-f", help="terminal or json."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the JSON workload here."),
    sort: str = typer.Option("iops", "--sort", help="iops, mbs, size or name."),
    top: int = typer.Option(20, "--top", min=0, help="Files to list (0 = all)."),
    allow_reset: bool = typer.Option(False, "--allow-reset", help="Warn instead of refusing on counter resets."),
    strict: bool = typer.Option(False, "--strict", help="Refuse (exit 6) a report import that falls short of the "
                                "report's own totals."),
) -> None:
    """Show per-tablespace and per-file rates (IOPS, MB/s, IO size, latency)."""
    from advisor.model import load_snapshot, load_workload, refuse_shortfalls
    from advisor.model.jsonio import dumps
    from advisor.rates.workload import diff
    from advisor.render.rates import SORT_KEYS

    require_format(output_format, "workload", (OutputFormat.terminal, OutputFormat.json))
    if sort not in SORT_KEYS:
        raise BadInput(f"--sort {sort!r}: use one of {', '.join(SORT_KEYS)}")
    if len(files) == 2:
        result = diff(load_snapshot(files[0]), load_snapshot(files[1]), allow_reset=allow_reset)
    elif len(files) == 1:
        result = load_workload(files[0])
    else:
        raise BadInput(f"give two snapshots or one workload, not {len(files)} files")
    if strict:
        refuse_shortfalls(result.coverage, str(files[-1]))
    if output is not None:  # the workload document; what is printed follows --format
        write_output(dumps(result), output)
        if output_format is OutputFormat.json:
            return
    emit(output_format, None, terminal=lambda console: _print_terminal(console, result, sort, top),
         json=lambda: dumps(result))


def _print_terminal(console: Console, result: Workload, sort: str, top: int) -> None:
    """Compute what the page shows (per-tablespace rows, cached-read notes, the wait lines), then
    hand it to :func:`advisor.render.workload.render_workload`, which only draws."""
    from advisor.engine.cached_reads import estimate, notes
    from advisor.engine.trace_figures import trace_figures
    from advisor.rates.areas import tablespace_rates
    from advisor.rates.io_share import describe
    from advisor.render.workload import WorkloadPage, render_workload

    wait = result.wait
    counted = wait.counter_io_wait_share is not None or wait.sampled_io_wait_share is not None
    page = WorkloadPage(
        workload=result,
        tablespaces=tablespace_rates(result.rates),
        cache_notes=notes(estimate(result), result.read_evidence, result.interval_s, None),
        wait_lines=describe(wait) if counted or wait.io_wait_share is None else None,
        traces=trace_figures(result),
    )
    render_workload(console, page, sort, top)
    for warning in result.warnings:
        typer.echo(f"advisor: warning: {shown(warning)}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``workload`` to the root app."""
    app.command(name="workload")(workload)
