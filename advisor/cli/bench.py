"""`advisor bench`: measure a disk, partition or scratch file zone by zone into a DiskProfile."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.common import OutputFormat, emit, finite
from advisor.errors import BadInput
from advisor.units import DISK_MB, DRIVE_RPM_RANGE

if TYPE_CHECKING:
    from advisor.bench.engines import Engine
    from advisor.bench.suite import BenchOptions
    from advisor.model.disk import DiskProfile


def _progress() -> contextlib.AbstractContextManager[Callable[[str, int, int], None]]:
    """A rich progress bar per test on stderr; in a log or pipe, one line as each test starts."""
    from advisor.cli.phases import phases

    return phases(lambda test, total: f"advisor: bench: {test} ({total} runs)", width=8)


def _write_outputs(profile: DiskProfile, output: Path | None, fmt: OutputFormat, plot: Path | None) -> None:
    from advisor.model import save
    from advisor.model.jsonio import dumps
    from advisor.render.disk_profile import render
    from advisor.render.zone_plot import write_plot

    if output is not None:
        save(profile, output)
        typer.echo(f"wrote {output}", err=True)
    if plot is not None:
        write_plot(profile, plot)
        typer.echo(f"wrote {plot}", err=True)
    if fmt not in (OutputFormat.terminal, OutputFormat.json):
        raise BadInput(f"--format {fmt.value} is not offered by bench", hint="use terminal or json")
    emit(fmt, None, terminal=lambda console: render(profile, console), json=lambda: dumps(profile))


def bench(
    target: str | None = typer.Argument(None, help="Device, partition or existing file to read (read-only)."),
    scratch_file: str | None = typer.Option(None, "--scratch-file", help="Create this file, bench it, remove it."),
    size: str = typer.Option("2G", "--size", help="Size of the scratch file (e.g. 512M, 2G)."),
    reuse_scratch: bool = typer.Option(False, "--reuse-scratch", help="Allow an existing scratch file to be used."),
    fill: bool = typer.Option(False, "--fill", help="Rewrite all of a reused scratch file first (fallocated, sparse)."),
    tests: str = typer.Option("all", "--tests", help="Comma list of zones,band,stroke,cross,qd,commit; smr (opt-in)."),
    engine: str = typer.Option("auto", "--engine", help="auto (fio when installed), builtin or fio."),
    quick: bool = typer.Option(False, "--quick", help="About a minute in all instead of up to ten."),
    budget_per_test: float | None = typer.Option(None, "--budget-per-test", callback=finite, help="Seconds per test."),
    zone_points: int = typer.Option(20, "--zones", help="Number of evenly spaced zone points."),
    runs: int = typer.Option(3, "--runs", help="Runs per test (3 or more give stability warnings)."),
    rpm: int | None = typer.Option(None, "--rpm", min=DRIVE_RPM_RANGE[0], max=DRIVE_RPM_RANGE[1],
                                   help="Rotation speed, if known (else estimated)."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the DiskProfile JSON here."),
    fmt: OutputFormat = typer.Option(OutputFormat.terminal, "--format", help="terminal or json on stdout."),
    plot: Path | None = typer.Option(None, "--plot", help="Write the zone curve as FILE.svg or FILE.png."),
) -> None:
    """Measure zones, band/full-stroke/cross-surface IOPS, queue depths and commit rate."""
    from advisor.bench.engines import pick_engine
    from advisor.bench.suite import ALL_TESTS, FULL_BUDGET_S, QUICK_BUDGET_S, BenchOptions, parse_tests
    from advisor.signals import interrupted_code, interruptible

    if (target is None) == (scratch_file is None):
        raise BadInput("name exactly one target: a device/file argument or --scratch-file PATH")
    if fill and not reuse_scratch:
        raise BadInput("--fill rewrites an existing scratch file: use it with --scratch-file PATH --reuse-scratch")
    explicit = tests.strip().lower() != "all"
    selected = parse_tests(tests) if explicit else ALL_TESTS
    if runs < 1 or zone_points < 2:
        raise BadInput("--runs must be at least 1 and --zones at least 2")
    budget = budget_per_test if budget_per_test is not None else (QUICK_BUDGET_S if quick else FULL_BUDGET_S)
    if budget <= 0:
        raise BadInput("--budget-per-test must be positive")
    options = BenchOptions(tests=selected, budget_per_test_s=budget, runs=runs, zone_points=zone_points)
    chosen = pick_engine(engine)
    with interruptible() as guard:
        try:
            writes: list[str] = [test for test in ("commit", "smr") if explicit and test in selected]
            _run(target, (scratch_file, size, reuse_scratch, fill), writes, chosen, options, rpm, (output, fmt, plot))
        except _PartialKept:
            raise typer.Exit(interrupted_code(guard.received)) from None
        except KeyboardInterrupt:  # while the scratch file was being written: it is removed
            typer.echo("advisor: interrupted before any measurement; nothing written", err=True)
            raise typer.Exit(interrupted_code(guard.received)) from None


class _PartialKept(KeyboardInterrupt):
    """Interrupted during the run, after the partial profile was written."""


def _run(target: str | None, scratch: tuple[str | None, str, bool, bool], writes: list[str], chosen: Engine,
         options: BenchOptions, rpm: int | None, outputs: tuple[Path | None, OutputFormat, Path | None]) -> None:
    """Resolve the target, run, write; on a signal write the partial profile and exit 130/143."""
    from advisor.bench.runner import BenchRun
    from advisor.bench.target import create_scratch, open_target, release
    from advisor.units import parse_size

    output, fmt, plot = outputs
    scratch_file, size, reuse, fill = scratch
    if scratch_file is not None:
        resolved = create_scratch(scratch_file, parse_size(size), reuse, _fill_reporter(), fill=fill)
    else:
        assert target is not None
        resolved = open_target(target, want_write=bool(writes), write_test="/".join(writes) or "commit")
    try:
        run = BenchRun(resolved, chosen, options, rpm)
        try:
            with _progress() as progress:
                profile = run.run(progress)
        except KeyboardInterrupt:
            run.stop.set()
            _write_outputs(run.profile(complete=False), output, fmt, None)
            typer.echo("advisor: interrupted; partial profile kept (complete=false)", err=True)
            raise _PartialKept from None
    finally:
        release(resolved)
    _write_outputs(profile, output, fmt, plot)
    typer.echo(f"advisor: {bench_summary(profile)}", err=True)


def bench_summary(profile: DiskProfile) -> str:
    """The bench in a line: what was measured, the verdict, how many warnings."""
    outer, inner = (profile.zones[0].bytes_per_s, profile.zones[-1].bytes_per_s) if profile.zones else (0.0, 0.0)
    zones = f"zones {outer / DISK_MB:.0f} -> {inner / DISK_MB:.0f} MB/s, " if profile.zones else ""
    qd1 = f"QD1 {profile.qd_iops[1]:.0f} IOPS, " if 1 in profile.qd_iops else ""
    commits = f"commits {profile.commit_per_s:.0f}/s, " if profile.commit_per_s is not None else ""
    return (f"bench of {profile.target}: {zones}{qd1}{commits}classified {profile.classification}, "
            f"{len(profile.warnings)} warnings" + ("" if profile.complete else " (incomplete)"))


def _fill_reporter() -> Callable[[int, int], None] | None:
    """Say on stderr that the scratch file is being written (it can take a while), every 10 %."""
    state = {"last": -1}

    def report(done: int, total: int) -> None:
        percent = done * 100 // total
        if percent // 10 != state["last"]:
            state["last"] = percent // 10
            typer.echo(f"advisor: writing scratch file: {percent}%", err=True)

    return report


def register(app: typer.Typer) -> None:
    """Add ``advisor bench`` to the root app."""
    app.command(name="bench")(bench)
