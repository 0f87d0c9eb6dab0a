"""`advisor schedule`: a systemd timer + service (or a cron line) that collects and pushes.

Prints the files; ``--install`` writes them (``/etc/systemd/system`` or ``/etc/cron.d``, or
``--directory``). Exit codes: 0 printed or written; 2 no ``--dsn`` or ``--push``; 6 a password
in a DSN, an empty DSN, a control character in any value, root as the user, a bad name or
interval, or a directory that cannot be written. The ``systemctl`` advice is printed only when
the units went into a directory systemd reads.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import typer

from advisor.errors import BadInput

DEFAULT_DIRS = {"systemd": Path("/etc/systemd/system"), "cron": Path("/etc/cron.d")}
SYSTEMD_DIRS = (Path("/etc/systemd/system"), Path("/run/systemd/system"), Path("/usr/lib/systemd/system"),
                Path("/lib/systemd/system"), Path("/usr/local/lib/systemd/system"))
"""Where systemd looks for system units: ``systemctl enable`` finds units written there only."""


def _advisor_path() -> str:
    found = shutil.which("advisor")
    return found or str(Path(sys.executable).with_name("advisor"))


def schedule(
    dsn: str = typer.Option(..., "--dsn", help="The database to sample (no password: use --passfile or a service)."),
    push: str = typer.Option(..., "--push", help="libpq DSN of the fleet repository (no password either)."),
    every: str = typer.Option("15m", "--every", help="Interval between samples (15m, 1h, ...)."),
    user: str = typer.Option("advisor", "--user", help="Unprivileged account the collector runs as."),
    name: str = typer.Option("default", "--name", help="Names the units: advisor-collect-<name>."),
    dbms: str = typer.Option("postgres", "--dbms", help="postgres or oracle."),
    passfile: str | None = typer.Option(None, "--passfile", help="PGPASSFILE for the service (mode 0600)."),
    service_file: str | None = typer.Option(None, "--service-file", help="PGSERVICEFILE for the service."),
    timer: str = typer.Option("systemd", "--timer", help="systemd (service + timer) or cron."),
    install: bool = typer.Option(False, "--install", help="Write the files instead of printing them."),
    directory: Path | None = typer.Option(None, "--directory", help="With --install: write here instead."),
) -> None:
    """Print (or --install) what runs `advisor collect --push` every --every as --user."""
    from advisor.repo import schedule as sched

    if timer not in DEFAULT_DIRS:
        raise BadInput(f"--timer {timer!r}: use systemd or cron")
    if dbms not in ("postgres", "oracle"):
        raise BadInput(f"--dbms {dbms!r}: use postgres or oracle")
    if timer == "cron" and "." in name:
        raise BadInput(f"--name {name!r}: cron ignores files in /etc/cron.d whose names hold a '.'",
                       hint="use letters, digits, '_' or '-'")
    plan = sched.make_schedule(dsn, push, every, user, name, _advisor_path(), dbms, passfile, service_file)
    files = sched.systemd_units(plan) if timer == "systemd" else {f"advisor-collect-{name}": sched.cron_line(plan)}
    if not install:
        for file_name, text in files.items():
            typer.echo(f"# {file_name}\n{text}")
        return
    written = sched.install(files, directory or DEFAULT_DIRS[timer])
    for path in written:
        typer.echo(f"wrote {path}", err=True)
    target = (directory or DEFAULT_DIRS[timer]).resolve()
    if timer == "systemd" and target not in {d.resolve() for d in SYSTEMD_DIRS}:
        typer.echo(f"advisor: {target} is not a directory systemd reads units from; copy the files to "
                   f"{DEFAULT_DIRS['systemd']} before enabling the timer", err=True)
    elif timer == "systemd":
        typer.echo(f"advisor: now run: systemctl daemon-reload && systemctl enable --now advisor-collect-{name}.timer",
                   err=True)


def register(app: typer.Typer) -> None:
    """Add ``schedule`` to the root app."""
    app.command(name="schedule")(schedule)
