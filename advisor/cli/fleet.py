"""`advisor fleet report|show`: rank every instance of the repository; drill into one.

Exit codes: 0 written; 3 cannot connect; 5 a grant is missing (reports need
advisor_reader); 6 bad option, unknown instance, or not an advisor repository; 7 the
repository is newer than this advisor.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from advisor.cli.common import OutputFormat, emit, finite

if TYPE_CHECKING:
    from advisor.fleet.instances import FleetReport

fleet_app = typer.Typer(help="Rank the instances of a fleet repository by predicted time saved.",
                        no_args_is_help=True)

REPO = typer.Option(..., "--repo", help="libpq DSN of the repository (a role in advisor_reader is enough).")
SINCE = typer.Option("7d", "--since", help="How far back from --until (15min, 12h, 7d, 2w, 6mo).")
UNTIL = typer.Option(None, "--until", help="End of the period (ISO 8601; default now).")
WINDOWS = typer.Option(2, "--windows", min=0, max=24, help="Busiest snapshot intervals to advise.")
PRESET = typer.Option(None, "--preset", help="Drive preset (default class-7200-desktop).")
SPEC = typer.Option(None, "--spec", help="Drive spec file instead of a preset.")
FORCE = typer.Option(False, "--force", help="Plan even instances that are not IO bound.")
MIN_GAIN = typer.Option(5.0, "--min-gain", min=0.0, max=100.0, callback=finite,
                        help="Predicted gain, in %, below which a plan is 'no change worth making' "
                             "(not ranked as a saving).")
FORMAT = typer.Option(OutputFormat.terminal, "--format", "-f", help="Output format.")
OUTPUT = typer.Option(None, "--output", "-o", help="Write here (atomically).")


def _window(since: str, until: str | None) -> tuple[dt.datetime, dt.datetime]:
    from advisor.errors import BadInput
    from advisor.model.validate import EARLIEST, LATEST
    from advisor.repo.retention import parse_duration

    end = dt.datetime.now(dt.UTC)
    if until:
        try:
            end = dt.datetime.fromisoformat(until)
        except ValueError:
            raise BadInput(f"--until {until!r}: give an ISO 8601 time such as 2026-11-20T00:00:00+00:00") from None
        if end.tzinfo is None:
            end = end.replace(tzinfo=dt.UTC)
        if not EARLIEST <= end < LATEST:
            raise BadInput(f"--until {until!r}: give a time between 1970-01-01 and 2199-12-31")
    return end - parse_duration(since, "--since"), end


def _open(repo: str) -> Any:
    import psycopg

    from advisor.repo.connection import connect, translate
    from advisor.repo.schema import check_version

    conn = connect(repo)
    try:
        check_version(conn)
        conn.rollback()
    except psycopg.Error as exc:
        conn.close()
        raise translate(exc, "reading the repository") from None
    except BaseException:
        conn.close()
        raise
    return conn


def warn_skipped(result: FleetReport) -> None:
    """Name on stderr every repository row the ranking left out (json keeps them as ``skipped``)."""
    for item in result.instances:
        for why in item.skipped:
            kind = "workload" if why.startswith("repository workload") else "snapshot"
            typer.echo(f"advisor: warning: skipped a {kind} row: {why}", err=True)


def output_fleet(result: FleetReport, fmt: OutputFormat, output: Path | None, limit: int | None) -> None:
    """Render the ranking in *fmt* to stdout or atomically to *output*."""
    from advisor.render import fleet_ranking as render

    emit(fmt, output, terminal=lambda console: render.render_terminal(result, console, limit),
         json=lambda: render.render_json(result), markdown=lambda: render.render_markdown(result, limit),
         html=lambda: render.render_html(result, limit))


@fleet_app.command("report")
def report(
    repo: str = REPO, since: str = SINCE, until: str | None = UNTIL, windows: int = WINDOWS,
    preset: str | None = PRESET, spec: Path | None = SPEC, force: bool = FORCE, min_gain: float = MIN_GAIN,
    limit: int = typer.Option(50, "--limit", min=0, help="Rows in terminal/markdown/html (0: all)."),
    detail: int = typer.Option(3, "--detail", min=0, max=50,
                               help="First instances also advised over the whole period as one interval "
                               "(with --preset/--spec/--force)."),
    fmt: OutputFormat = FORMAT, output: Path | None = OUTPUT,
) -> None:
    """Every instance ranked by its interval summaries; the first --detail also advised over the whole period.

    Snapshots and stored workloads (AWR/Statspack imports, collect --interval) are both evidence.
    The summaries are made with the default drive models and gate: --preset, --spec and --force
    apply to the detail (stderr says so).
    """
    from advisor.engine.disk_models import load_models
    from advisor.fleet.rank import rank_fleet

    start, end = _window(since, until)
    models = load_models(None, preset, spec)
    with _open(repo) as conn:
        result = rank_fleet(conn, models, since=start, until=end, windows=windows, min_gain=min_gain / 100,
                            detail=detail, shown=None if fmt is OutputFormat.json or not limit else limit,
                            force=force, asked=f"preset:{preset}" if preset else f"spec:{spec}" if spec else None,
                            warn=lambda line: typer.echo(f"advisor: warning: {line}", err=True))
    if not result.instances:
        typer.echo(f"advisor: no snapshots or workloads in the repository between {result.since} and "
                   f"{result.until}", err=True)
    for warning in result.warnings:
        typer.echo(f"advisor: warning: {warning}", err=True)
    warn_skipped(result)
    output_fleet(result, fmt, output, limit or None)


@fleet_app.command("show")
def show(
    instance: str = typer.Argument(..., help="Instance id, host, database name or host/name."),
    repo: str = REPO, since: str = SINCE, until: str | None = UNTIL, windows: int = WINDOWS,
    window: str = typer.Option("period", "--window", help="Which window's full report to show: period, busiest 1..."),
    preset: str | None = PRESET, spec: Path | None = SPEC, force: bool = FORCE, min_gain: float = MIN_GAIN,
    fmt: OutputFormat = FORMAT, output: Path | None = OUTPUT,
) -> None:
    """One instance: its windows, rates per tablespace, and the full report of one window."""
    from advisor.engine.disk_models import load_models
    from advisor.fleet.show import shown_instance
    from advisor.fleet.window import Judging
    from advisor.render import fleet_instance as render

    start, end = _window(since, until)
    models = load_models(None, preset, spec)
    with _open(repo) as conn:
        shown = shown_instance(conn, instance, models, start, end, windows, window, Judging(force, min_gain / 100),
                               warn_skipped)
    emit(fmt, output, terminal=lambda console: render.render_terminal(shown, console),
         json=lambda: render.render_json(shown), markdown=lambda: render.render_markdown(shown),
         html=lambda: render.render_html(shown))


def register(app: typer.Typer) -> None:
    """Add ``fleet`` to the root app."""
    app.add_typer(fleet_app, name="fleet")
