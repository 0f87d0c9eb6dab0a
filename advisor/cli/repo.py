"""`advisor repo init|prune`: create or migrate the fleet repository; drop old months.

Exit codes: 0 done; 3 cannot connect; 5 not allowed (init needs a role that may create a
schema and roles, prune the owner); 6 bad option (``--keep 1m``: minutes or months?) or not
an advisor repository; 7 the repository is newer than this advisor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from advisor.repo.retention import PrunePlan

repo_app = typer.Typer(help="Create, migrate and prune the fleet repository (a PostgreSQL database).",
                       no_args_is_help=True)

DSN_HELP = "libpq DSN of the repository (sslmode etc. pass through; passwords belong in a passfile)."


@repo_app.command("init")
def init(dsn: str = typer.Option(..., "--dsn", help=DSN_HELP)) -> None:
    """Create the schema, or migrate it to this advisor's version (idempotent)."""
    import psycopg

    from advisor.errors import PrivilegeMissing
    from advisor.repo.connection import connect, translate
    from advisor.repo.schema import CURRENT_VERSION, INIT_HINT, init_privileges_missing, migrate

    with connect(dsn) as conn:
        try:
            done = migrate(conn)
        except psycopg.errors.InsufficientPrivilege as exc:
            conn.rollback()
            missing = init_privileges_missing(conn)
            error = translate(exc, "migrating the repository", hint=INIT_HINT)
            raise (PrivilegeMissing(f"{error.message}; {missing}", hint=INIT_HINT) if missing else error) from None
        except psycopg.Error as exc:
            raise translate(exc, "migrating the repository") from None
    for migration in done:
        typer.echo(f"applied migration {migration.version}: {migration.description}", err=True)
    typer.echo(f"repository at schema version {CURRENT_VERSION}" + ("" if done else " (already current)"), err=True)


@repo_app.command("summarize")
def summarize(dsn: str = typer.Option(..., "--dsn", help=DSN_HELP)) -> None:
    """Advise the intervals queued by pushes, and again those summarised by another engine version.

    Needs a role that may write summaries (the owner); pushes by such a role do it at once.
    """
    from advisor.fleet.summaries import default_summarizer, drain, requeue_stale
    from advisor.repo.connection import connect
    from advisor.repo.ingest import checked_connection

    summarizer = default_summarizer()
    with connect(dsn) as conn:
        checked_connection(conn)
        stale = requeue_stale(conn, summarizer)
        done = drain(conn, summarizer)
    for why in done.failed:
        typer.echo(f"advisor: warning: interval not summarised: {why}", err=True)
    typer.echo(f"summarised {done.arrivals} arrivals into {done.summaries} interval summaries"
               f" ({stale} queued again: made by another engine version or other models)", err=True)


@repo_app.command("prune")
def prune(
    dsn: str = typer.Option(..., "--dsn", help=DSN_HELP),
    keep: str = typer.Option("90d", "--keep", help="Keep this much history (90min, 12h, 90d, 2w, 6mo, 1y)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would be removed; remove nothing."),
) -> None:
    """Drop month partitions older than --keep; delete older rows of the month at the edge.

    What goes is printed before anything is removed; partitions whose bounds are not
    readable times are skipped and named.
    """
    from advisor.repo import retention
    from advisor.repo.connection import connect

    duration = retention.parse_duration(keep, "--keep")
    with connect(dsn) as conn:
        result = retention.prune(conn, duration, dry_run=dry_run,
                                 announce=lambda plan: _announce(plan, dry_run))
    if dry_run:
        return
    dropped = ", ".join(result.dropped) if result.dropped else "none"
    typer.echo(f"kept everything since {result.cutoff.isoformat(timespec='seconds')}; dropped partitions: "
               f"{dropped}; deleted {result.deleted_rows} older rows", err=True)


def _announce(plan: PrunePlan, dry_run: bool) -> None:
    """The plan on stderr, before anything is removed (a scheduled prune's log keeps it)."""
    for name, bound in plan.skipped:
        typer.echo(f"advisor: warning: partition {name} skipped: its bound ({bound}) is not a time advisor reads; "
                   f"DROP TABLE advisor.{name} by hand if it is not wanted", err=True)
    verb = "would remove" if dry_run else "removing"
    since = plan.cutoff.isoformat(timespec="seconds")
    if not plan.removes:
        typer.echo(f"advisor: nothing older than {since} to remove", err=True)
        return
    counts = ", ".join(f"{n} {table.replace('_', ' ')}" for table, n in plan.documents.items())
    span = (f" from {plan.oldest.isoformat(timespec='seconds')} to {plan.newest.isoformat(timespec='seconds')}"
            if plan.oldest and plan.newest else "")
    typer.echo(f"advisor: {verb} everything before {since}: {counts}{span}; partitions dropped whole: "
               f"{', '.join(plan.drop) or 'none'}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``repo`` to the root app."""
    app.add_typer(repo_app, name="repo")

