"""`advisor collect`: one snapshot, a workload over an interval, or a workload from a report.

Exit codes: 0 written; 3 cannot connect; 4 written but a collector (e.g. host) failed;
5 a grant is missing; 6 bad arguments or report file; 7 server not supported; 9 counters
reset during ``--interval``. Nothing is written on failure (atomic output).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.cli.common import MAX_INTERVAL_S, MAX_STATEMENT_TIMEOUT_S, finite, write_output
from advisor.cli.sizes_options import sizes_option
from advisor.collect.context import CollectOptions
from advisor.collect.registry import ReadsHistory
from advisor.errors import BadInput, ExitCode, Unsupported
from advisor.render.safe import shown

if TYPE_CHECKING:
    from advisor.collect.sampling import LiveSession
    from advisor.model import CollectorRun, Snapshot


def _options(statement_timeout: float, thick: bool, diagnostics_pack: bool, statspack: str | None,
             awr: str | None) -> CollectOptions:
    options = CollectOptions(statement_timeout_s=statement_timeout, thick=thick, diagnostics_pack=diagnostics_pack)
    if statspack:
        options["statspack"] = statspack
    if awr:
        options["awr"] = awr
    return options


def check_dbms(dbms: str) -> None:
    """Refuse a ``--dbms`` no installed database collector answers to (the registry decides)."""
    from advisor.collect.sampling import dbms_choices

    choices = dbms_choices()
    if dbms not in choices:
        raise BadInput(f"--dbms {dbms!r}: use {' or '.join(choices) or 'an installed database collector'}",
                       hint="see `advisor collectors`")


def _from_report(path: Path, output: Path | None, strict: bool, sizes: Path | None) -> None:
    from advisor.cli.sizes_options import merged, warn_unknown
    from advisor.collect.registry import ReportReader, discover
    from advisor.model import refuse_shortfalls
    from advisor.model.jsonio import MAX_REPORT_FILE_BYTES, encode, read_regular_file

    # a FIFO or /dev/zero is refused before a byte is read; the reader chosen reads the whole file
    head = read_regular_file(path, MAX_REPORT_FILE_BYTES, "report", head=65536).decode("utf-8", errors="replace")
    for plugin in discover():
        reader = plugin.collector
        if isinstance(reader, ReportReader) and reader.can_read(head):
            work = merged(reader.read_report(str(path)), sizes)
            if strict:  # refused before anything is written
                refuse_shortfalls(work.coverage, str(path))
            for check in work.coverage:  # said now, as `workload` shows them later
                for gap in check.shortfalls:
                    typer.echo(f"advisor: warning: {shown(gap)}", err=True)
            warn_unknown(work)  # said now, refused by plan: a report states no sizes
            write_output(encode(work), output)
            return
    raise BadInput(f"{path} is not a report any installed reader understands (AWR or Statspack text/HTML)")


def collect(
    dsn: str = typer.Option("", "--dsn", help="libpq DSN or Oracle connect string; empty: PG* environment/pgpass."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the JSON document here (default stdout)."),
    dbms: str = typer.Option("postgres", "--dbms",
                             help="Database collector: postgres, oracle, or one `advisor collectors` lists."),
    interval: float = typer.Option(0.0, "--interval", "-i", min=0.0, max=MAX_INTERVAL_S, callback=finite,
                                   help="Take two snapshots this many seconds apart and write the workload."),
    keep_snapshots: Path | None = typer.Option(None, "--keep-snapshots",
                                               help="With --interval: also save snapshot-a.json (as soon as it is "
                                               "taken, before the wait) and snapshot-b.json."),
    allow_reset: bool = typer.Option(False, "--allow-reset",
                                     help="With --interval: warn instead of refusing when counters were reset."),
    statement_timeout: float = typer.Option(30.0, "--statement-timeout", min=0.1, max=MAX_STATEMENT_TIMEOUT_S,
                                            callback=finite, help="Per-statement limit (s)."),
    thick: bool = typer.Option(False, "--thick", help="Oracle: use the Oracle Client libraries."),
    diagnostics_pack: bool = typer.Option(False, "--diagnostics-pack",
                                          help="Oracle: the Diagnostics Pack is licensed (allows AWR views)."),
    statspack: str | None = typer.Option(None, "--statspack", metavar="BEGIN:END",
                                         help="Oracle: workload between two Statspack snapshots."),
    awr: str | None = typer.Option(None, "--awr", metavar="BEGIN:END",
                                   help="Oracle: workload between two AWR snapshots (needs --diagnostics-pack)."),
    from_report: Path | None = typer.Option(None, "--from-report",
                                            help="Read an AWR or Statspack report file instead of a database."),
    strict: bool = typer.Option(False, "--strict", help="With --from-report: refuse (exit 6) an import that "
                                "falls short of the report's own totals."),
    push: str | None = typer.Option(None, "--push", metavar="REPO",
                                    help="Also send the document to this fleet repository (libpq DSN); see push."),
    sizes: Path | None = sizes_option(),
    trace: bool = typer.Option(False, "--trace", help="With --interval (root, Linux): also record the block "
                               "layer's requests to the database's disks (docs/collect.md)."),
) -> None:
    """Sample a database: a snapshot, or (with --interval) the workload between two."""
    from advisor.cli.push import push_after

    output = push_after(push, output)
    if from_report is not None:
        _from_report(from_report, output, strict, sizes)
        return
    if sizes is not None:
        raise BadInput("--sizes goes with --from-report (or with plan/report)")
    check_dbms(dbms)
    if keep_snapshots is not None and interval <= 0:
        raise BadInput("--keep-snapshots needs --interval")
    if trace and interval <= 0:
        raise BadInput("--trace needs --interval: it records the requests of the interval")
    if (statspack or awr) and interval > 0:
        raise BadInput("--statspack/--awr read stored history; they do not combine with --interval")
    from advisor.cli.interval import say_preconditions
    from advisor.collect import sampling
    from advisor.model.jsonio import encode

    options = _options(statement_timeout, thick, diagnostics_pack, statspack, awr)
    plugins = sampling.find_plugins(dbms)
    with sampling.LiveSession(plugins, dsn or None, options) as session:
        if statspack or awr:
            if not isinstance(plugins.database, ReadsHistory):
                raise Unsupported(f"the {dbms} collector cannot read stored history (--statspack/--awr)")
            write_output(encode(plugins.database.history(session.conn, options)), output)
            return
        if interval <= 0:
            snapshot = sampling.take_snapshot(plugins, session.conn, options)
            say_preconditions(snapshot)
            write_output(encode(snapshot), output)
            typer.echo(f"advisor: {snapshot_summary(snapshot)}", err=True)
            failed = sampling.failed_runs(snapshot)
        else:
            failed = _interval(session, interval, output, keep_snapshots, allow_reset, trace)
    if failed:
        for run in failed:
            typer.echo(f"advisor: warning: collector {run.name} failed: {shown(run.reason)}", err=True)
        raise typer.Exit(int(ExitCode.PARTIAL))


def _interval(session: LiveSession, seconds: float, output: Path | None, keep: Path | None,
              allow_reset: bool, trace: bool) -> list[CollectorRun]:
    from contextlib import nullcontext

    from rich.status import Status

    from advisor.cli.common import progress_enabled, stderr_console
    from advisor.cli.interval import sample_interval
    from advisor.collect import sampling
    from advisor.model.jsonio import encode, write_atomic

    status: Status | nullcontext[None] = (
        stderr_console().status("advisor: starting") if progress_enabled() else nullcontext()
    )
    with status:

        def progress(step: str) -> None:
            if isinstance(status, Status):
                status.update(f"advisor: {step}")  # a spinner on a terminal
            else:
                typer.echo(f"advisor: {step}", err=True)  # plain lines in logs and pipes

        def keep_first(first: Snapshot) -> None:  # at once: the signal that the interval has begun
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                write_atomic(keep / "snapshot-a.json", encode(first))

        first, second, workload = sample_interval(session, seconds, progress, trace=trace, allow_reset=allow_reset,
                                                  tick_every_s=1.0 if isinstance(status, Status) else 60.0,
                                                  on_first=keep_first)
    if keep is not None:
        write_atomic(keep / "snapshot-b.json", encode(second))
    write_output(encode(workload), output)
    for warning in workload.warnings:
        typer.echo(f"advisor: warning: {shown(warning)}", err=True)
    typer.echo(f"advisor: {snapshot_summary(second)}; workload over {workload.interval_s:.0f} s: "
               f"{len(workload.rates)} files rated, {len(workload.warnings)} warnings", err=True)
    return sampling.failed_runs(first, second)


def snapshot_summary(snapshot: Snapshot) -> str:
    """What one snapshot holds, in a line: the last thing a collection prints."""
    server = snapshot.server
    containers = {f.container for f in snapshot.files if f.container}
    paths = snapshot.layout.locations if snapshot.layout else ()
    located = [loc for loc in paths if loc.placement_known]
    disks = {loc.disk for loc in located if loc.disk}
    unknown = next((loc.reason for loc in paths if not loc.placement_known and loc.reason), None)
    failed = [r.name for r in snapshot.runs if r.status == "failed"]
    return (f"{server.dbms} {server.version} {server.name}: {len(containers)} "
            f"{'databases' if server.dbms == 'postgres' else 'containers'}, {len(snapshot.files)} files, "
            f"{len(located)} of {len(paths)} paths located on {len(disks)} disks"
            + (f" (placement unknown: {unknown})" if unknown and not located else "")
            + f", {len(snapshot.warnings)} warnings"
            + (f", collectors failed: {', '.join(failed)}" if failed else ""))


def register(app: typer.Typer) -> None:
    """Add ``collect`` to the root app."""
    app.command(name="collect")(collect)
