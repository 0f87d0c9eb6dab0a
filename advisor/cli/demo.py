"""`advisor demo`: a bad layout, the advice, the plan applied, and the measured difference.

As root with loop devices and FUSE the demo runs on an emulated 7200 rpm disk and measures;
otherwise (or with ``--simulated``) it predicts on the disk model from a real workload and
says SIMULATED. Everything it starts is stopped and removed at the end, on error, and on
Ctrl-C/SIGTERM. Exit codes: 0 done; 4 done, but the before/after comparison was not valid
(the host's share of the time changed more than the gain, even after a retry: the summary
says so and claims no gain); 7 PostgreSQL 18 binaries missing; 10 device trouble;
130 Ctrl-C, 143 SIGTERM, 129 SIGHUP. See docs/demo.md.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import typer

from advisor.cli.common import OutputFormat, emit, finite
from advisor.errors import BadInput, ExitCode


def emulation_possible() -> str | None:
    """None when the emulated disk can run here, else why not."""
    if os.geteuid() != 0:
        return "not root"
    if not Path("/dev/fuse").exists():
        return "no /dev/fuse"
    if shutil.which("losetup") is None or not Path("/dev/loop-control").exists():
        return "no loop devices"
    return None


def demo(
    quick: bool = typer.Option(False, "--quick", help="Shorter runs on a smaller table (about a minute)."),
    simulated: bool = typer.Option(False, "--simulated", help="Skip the emulated disk: predict on the model only."),
    preset: str = typer.Option("class-7200-desktop", "--preset", help="Drive preset to emulate or simulate."),
    seconds: int | None = typer.Option(None, "--seconds", min=2, help="Seconds of each measured pgbench run."),
    time_scale: float | None = typer.Option(None, "--time-scale", min=0.1, callback=finite,
                                            help="Run the emulated disk this many times faster than the drive."),
    workdir: Path | None = typer.Option(None, "--workdir", help="Parent of the demo's temporary directory."),
    output_format: OutputFormat = typer.Option(OutputFormat.terminal, "--format", "-f",
                                               help="terminal, or json (the summary on stdout)."),
    summary_json: Path | None = typer.Option(None, "--summary-json", help="Also write the JSON summary here."),
) -> None:
    """Show the whole story on a real PostgreSQL 18: bad layout, advice, plan applied, measured gain."""
    from advisor.cli.common import stderr_console
    from advisor.demo.cleanup import claim, cleanup_stale, leftovers
    from advisor.demo.scenario import DemoConfig, elapsed_since, run_emulated
    from advisor.demo.simulated import run_simulated
    from advisor.demo.summary import DemoSummary, render_text
    from advisor.model.jsonio import write_atomic
    from advisor.signals import interruptible

    if output_format not in (OutputFormat.terminal, OutputFormat.json):
        raise BadInput("--format: use terminal or json")
    if workdir is not None and not workdir.is_dir():
        raise BadInput(f"--workdir {workdir} is not a directory")
    from advisor.disk.presets import get_model

    get_model(preset)  # an unknown preset is a one-line error before anything starts
    console = stderr_console()

    def echo(text: str) -> None:
        console.print(text, markup=False, highlight=False)

    config = DemoConfig.for_run(quick, preset, seconds, time_scale)
    why_not = "--simulated" if simulated else emulation_possible()
    if why_not is not None:
        echo(f"advisor demo: SIMULATED run ({why_not}): the disk model predicts, nothing is measured on a disk")
    start = time.monotonic()
    for stale in cleanup_stale(workdir or Path(tempfile.gettempdir())):
        echo(f"advisor demo: removed what a killed demo left in {stale}")
    root = Path(tempfile.mkdtemp(prefix="advisor-demo-", dir=workdir)).resolve()
    claim(root)
    summary: DemoSummary | None = None
    with interruptible():
        try:
            with ExitStack() as stack:
                run = run_emulated if why_not is None else run_simulated
                summary = run(config, root, stack, echo)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    assert summary is not None
    summary.leftovers = leftovers(root)
    summary.elapsed_s = elapsed_since(start)
    if summary_json is not None:
        write_atomic(summary_json, summary.to_json())
    final = summary
    emit(output_format, None, json=final.to_json,
         terminal=lambda console: console.print(render_text(final), markup=False, highlight=False, soft_wrap=True,
                                                end=""))
    if not summary.measurement_valid:
        raise typer.Exit(int(ExitCode.PARTIAL))


def register(app: typer.Typer) -> None:
    """Add ``demo`` to the root app."""
    app.command(name="demo")(demo)
