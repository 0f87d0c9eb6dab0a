"""Units that run ``advisor collect --push`` on a schedule as an unprivileged user.

A systemd service + timer (``Persistent=true``: a run missed while the machine was off
happens at boot) or one ``/etc/cron.d`` line. No password ever goes into a unit or a cron
file, where every local user may read it: a DSN with a password is refused and libpq finds
the password in a passfile (``PGPASSFILE``) or the connection in a service file
(``PGSERVICEFILE`` / ``service=``). The spool lives in the service's state directory, so a
sample taken while the repository is down is pushed on the next run.

Every value that goes into a unit or a cron line is checked first: a control character
(a newline would start a new ``ExecStartPre=`` or a new crontab line running as root) is
refused, never escaped. In ``ExecStart=`` systemd expands ``$VAR`` and ``%`` specifiers, so
``$`` is written ``$$`` and ``%`` is written ``%%``; ``Environment=`` values expand ``%`` only.
cron turns an unescaped ``%`` into a newline, so every ``%`` of the line is written ``\\%``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from advisor.errors import BadInput, redact

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_EVERY = re.compile(r"^\s*(\d{1,7})\s*(s|sec|m|min|h|d|w)\s*$")
_EVERY_S = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}
MIN_EVERY_S = 60
MAX_EVERY_S = 7 * 86400
"""Samples at least a minute and at most a week apart (the fleet's windows need regular samples)."""


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
    values = {"--dsn": dsn, "--push": repo, "--user": user, "--name": name, "--passfile": passfile or "",
              "--service-file": servicefile or "", "the advisor executable's path": advisor}
    for label, text in values.items():
        bad = _CONTROL.search(text)
        if bad:
            raise BadInput(f"{label} holds the control character U+{ord(bad.group(0)):04X}; a unit or cron line "
                           "cannot carry it", hint="give the value on one line, without control characters")
    if not dsn.strip():
        raise BadInput("--dsn is empty: name the database to sample",
                       hint="e.g. --dsn 'host=db1 dbname=shop user=advisor' or --dsn service=shop")
    if not repo.strip():
        raise BadInput("--push is empty: name the fleet repository", hint="e.g. --push 'host=repo dbname=fleet'")
    for label, text in (("--dsn", dsn), ("--push", repo)):
        if redact(text) != text:
            raise BadInput(f"{label} contains a password; a unit or cron file is readable by every local user",
                           hint="put it in a passfile (--passfile) or a service file (--service-file)")
    if user in ("root", "0"):
        raise BadInput("--user root: run the collector as an unprivileged user", hint="e.g. --user advisor")
    if not _NAME.match(name) or not _NAME.match(user):
        raise BadInput(f"--name {name!r} / --user {user!r}: use letters, digits, '.', '_' or '-'")
    seconds = parse_every(every)
    return Schedule(dsn, repo, seconds, user, name, advisor, dbms, passfile, servicefile)


def parse_every(text: str) -> int:
    """``--every`` in seconds: ``15m``/``15min``, ``2h``, ``1d``, ``90s``, ``1w``; a minute to a week.

    >>> parse_every("15m"), parse_every("15min"), parse_every("2h"), parse_every("1w")
    (900, 900, 7200, 604800)
    """
    match = _EVERY.match(text)
    if not match or int(match.group(1)) <= 0:
        raise BadInput(f"--every {text!r}: give a positive duration such as 15m, 2h or 1d")
    seconds = int(match.group(1)) * _EVERY_S[match.group(2)]
    if not MIN_EVERY_S <= seconds <= MAX_EVERY_S:
        raise BadInput(f"--every {text}: samples are taken from one minute to one week apart")
    return seconds


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


def _systemd_quote(word: str, *, expands_variables: bool = True) -> str:
    """A word for ExecStart (``$`` as ``$$``) or Environment=: quoted when needed, ``%`` as ``%%``."""
    escaped = word.replace("%", "%%")
    if expands_variables:
        escaped = escaped.replace("$", "$$")
    if re.fullmatch(r"[A-Za-z0-9_./:=,@+-]+", escaped):
        return escaped
    return '"' + escaped.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_units(s: Schedule) -> dict[str, str]:
    """``advisor-collect-<name>.service`` and ``.timer``."""
    unit = f"advisor-collect-{s.name}"
    env = "".join(f"Environment={_systemd_quote(f'{k}={v}', expands_variables=False)}\n" for k, v in _environment(s))
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
    command = " ".join(shlex.quote(w) for w in _command(s))
    return f"{when} {s.user} {env} {command}".replace("%", "\\%") + "\n"  # cron turns % into newlines


def install(files: dict[str, str], directory: Path) -> list[Path]:
    """Write the unit or cron files into *directory* (atomic, mode 0644); return their paths."""
    from advisor.model.jsonio import write_atomic

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
