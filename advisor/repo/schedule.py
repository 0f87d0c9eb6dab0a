"""Units that run ``advisor collect --push`` on a schedule as an unprivileged user.

A systemd service + timer (``Persistent=true``: a run missed while the machine was off
happens at boot) or one ``/etc/cron.d`` line. No password ever goes into a unit or a cron
file, where every local user may read it: a DSN with a password is refused and libpq finds
the password in a passfile (``PGPASSFILE``) or the connection in a service file
(``PGSERVICEFILE`` / ``service=``). The spool lives in the service's state directory, so a
sample taken while the repository is down is pushed on the next run.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from advisor.errors import BadInput, redact
from advisor.repo.retention import parse_duration

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass(frozen=True)
class Schedule:
    """What to run, how often, as whom."""

    dsn: str
    repo: str
    every_s: int
    user: str
    name: str
    advisor: str  # absolute path of the advisor executable
    dbms: str = "postgres"
    passfile: str | None = None
    servicefile: str | None = None
    spool: str = "/var/lib/advisor/spool"


def make_schedule(dsn: str, repo: str, every: str, user: str, name: str, advisor: str, dbms: str,
                  passfile: str | None, servicefile: str | None) -> Schedule:
    """Check the inputs (no password, no root, a sane name) and build the schedule."""
    for label, text in (("--dsn", dsn), ("--push", repo)):
        if redact(text) != text:
            raise BadInput(f"{label} contains a password; a unit or cron file is readable by every local user",
                           hint="put it in a passfile (--passfile) or a service file (--service-file)")
    if user in ("root", "0"):
        raise BadInput("--user root: run the collector as an unprivileged user", hint="e.g. --user advisor")
    if not _NAME.match(name) or not _NAME.match(user):
        raise BadInput(f"--name {name!r} / --user {user!r}: use letters, digits, '.', '_' or '-'")
    seconds = int(parse_duration(every, "--every", minutes_m=True).total_seconds())
    if seconds < 60:
        raise BadInput(f"--every {every}: at least one minute between samples")
    return Schedule(dsn, repo, seconds, user, name, advisor, dbms, passfile, servicefile)


def _command(s: Schedule) -> list[str]:
    argv = [s.advisor, "collect", "--dbms", s.dbms, "--push", s.repo]
    if s.dsn:
        argv[2:2] = ["--dsn", s.dsn]
    return argv


def _environment(s: Schedule) -> list[tuple[str, str]]:
    env = [("ADVISOR_SPOOL", s.spool)]
    if s.passfile:
        env.append(("PGPASSFILE", s.passfile))
    if s.servicefile:
        env.append(("PGSERVICEFILE", s.servicefile))
    return env


def _systemd_quote(word: str) -> str:
    """A word for ExecStart: double-quoted when needed, with systemd's % specifiers escaped."""
    escaped = word.replace("%", "%%")
    if re.fullmatch(r"[A-Za-z0-9_./:=,@+-]+", escaped):
        return escaped
    return '"' + escaped.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_units(s: Schedule) -> dict[str, str]:
    """``advisor-collect-<name>.service`` and ``.timer``."""
    unit = f"advisor-collect-{s.name}"
    env = "".join(f"Environment={_systemd_quote(f'{k}={v}')}\n" for k, v in _environment(s))
    service = (
        "[Unit]\n"
        f"Description=advisor: sample {s.name} and push it to the fleet repository\n"
        "Wants=network-online.target\nAfter=network-online.target\n\n"
        "[Service]\nType=oneshot\n"
        f"User={s.user}\nGroup={s.user}\n"
        "StateDirectory=advisor/spool\nStateDirectoryMode=0700\n"
        f"{env}"
        f"ExecStart={' '.join(_systemd_quote(w) for w in _command(s))}\n"
        "# exit 3: the repository was unreachable; the sample waits in the spool for the next run\n"
        "NoNewPrivileges=yes\nPrivateTmp=yes\nProtectSystem=strict\nProtectHome=read-only\n"
    )
    timer = (
        "[Unit]\n"
        f"Description=advisor: sample {s.name} every {s.every_s // 60} min\n\n"
        "[Timer]\n"
        f"OnBootSec=2min\nOnUnitActiveSec={s.every_s}s\nAccuracySec=30s\nPersistent=true\n\n"
        "[Install]\nWantedBy=timers.target\n"
    )
    return {f"{unit}.service": service, f"{unit}.timer": timer}


def cron_line(s: Schedule) -> str:
    """One ``/etc/cron.d`` line (with the user field); minutes dividing an hour or hours a day."""
    minutes = s.every_s // 60
    if s.every_s % 60:
        raise BadInput("--every: cron runs on whole minutes")
    if minutes < 60 and 60 % minutes == 0:
        when = f"*/{minutes} * * * *" if minutes > 1 else "* * * * *"
    elif minutes % 60 == 0 and 24 % (minutes // 60) == 0:
        when = f"0 */{minutes // 60} * * *"
    else:
        raise BadInput(f"--every {minutes}m cannot be written as a cron schedule",
                       hint="use a divisor of 60 minutes or of 24 hours, or --timer systemd")
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in _environment(s))
    command = " ".join(shlex.quote(w) for w in _command(s)).replace("%", "\\%")  # cron turns % into newlines
    return f"{when} {s.user} {env} {command}\n"


def install(files: dict[str, str], directory: Path) -> list[Path]:
    """Write the unit or cron files into *directory* (atomic, mode 0644); return their paths."""
    from advisor.jsonio import write_atomic

    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"cannot create {directory}: {exc.strerror}") from None
    written = []
    for name, text in files.items():
        target = directory / name
        try:
            write_atomic(target, text)
            target.chmod(0o644)
        except OSError as exc:
            raise BadInput(f"cannot write {target}: {exc.strerror}") from None
        written.append(target)
    return written
