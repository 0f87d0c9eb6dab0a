"""The advisor commands the demo runs, exactly as a DBA would type them.

Each step runs ``advisor <command>`` in a child process (the same entry point as the shell)
and is echoed as ``$ advisor ...`` so the demo doubles as a transcript of the manual steps
in docs/tutorial.md. Applying the plan executes the plan's own scripts: the PostgreSQL
script through psql (statement blocks marked "connected to database X" go to that
database) and, when the plan moves WAL, its shell script as the server account.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.demo.embedded import EmbeddedServer, as_server_user, owned_dir
from advisor.disk.emulator.system import stop_process
from advisor.errors import AdvisorError, ExitCode

_DB_MARKER = re.compile(r"^--\s*run the next statements connected to database\s+(.+?)\s*$", re.M | re.I)
_WARNING = "advisor: warning: "  # how advisor starts its warning lines on stderr
_LOCATION = re.compile(r"LOCATION\s+'((?:[^']|'')*)'", re.I)
FIRST_SNAPSHOT_TIMEOUT_S = 600.0  # a snapshot of the demo's server takes seconds; a loaded host, minutes
FIRST_SNAPSHOT_POLL_S = 0.05
COLLECT_STOP_GRACE_S = 30.0  # a collect stopped by SIGTERM ends its trace and removes its instance in a second


@dataclass
class Chain:
    """Runs advisor commands in *workdir*, echoing each one through *echo*."""

    workdir: Path
    echo: Callable[[str], None]
    commands: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    rendered: str = ""

    def advisor(self, *args: str, ok_codes: Sequence[int] = (0,), label: str | None = None) -> str:
        """Run ``advisor *args``; returns stdout. Fails with the command's own error line."""
        shown = "advisor " + " ".join(_shell_word(a) for a in args)
        self.echo(f"$ {shown}")
        self.commands.append(shown)
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True,
                              cwd=self.workdir, timeout=900, check=False)
        self.timings[label or args[0]] = self.timings.get(label or args[0], 0.0) + time.monotonic() - start
        if done.returncode not in ok_codes:
            last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
            raise AdvisorError(f"'{shown}' failed: {last}")
        for line in done.stderr.splitlines():
            if "warning" in line:
                self.echo(f"  {line}")
        return done.stdout

    def collect(self, server: EmbeddedServer, output: Path) -> None:
        """One snapshot (a failing host collector is a warning, exit 4)."""
        self.advisor("collect", "--dsn", server.dsn(), "-o", str(output), ok_codes=(0, int(ExitCode.PARTIAL)))

    @contextlib.contextmanager
    def collect_traced(self, server: EmbeddedServer, output: Path, seconds: float, keep: Path,
                       warnings: list[str]) -> Iterator[None]:
        """``advisor collect --interval SECONDS --trace`` running while the block runs.

        The collect runs in the background as a DBA would start it (``&``); the block begins
        once the collect has taken its first snapshot and started its trace, which it signals
        by writing ``snapshot-a.json`` into *keep* (``--keep-snapshots``: written atomically
        then, before its wait). The block's end waits for the second snapshot. A collect that
        ends before writing it is reported with its own error line; one that writes nothing
        within :data:`FIRST_SNAPSHOT_TIMEOUT_S` is stopped. *warnings* receives the collect's
        warnings (why there is no trace, among others) once it is done.
        """
        args = ["collect", "--dsn", server.dsn(), "--interval", f"{seconds:g}", "--trace",
                "--keep-snapshots", str(keep), "-o", str(output)]
        shown = "advisor " + " ".join(_shell_word(a) for a in args)
        self.echo(f"$ {shown} &")
        self.commands.append(shown)
        first = keep / "snapshot-a.json"
        first.unlink(missing_ok=True)  # one of an earlier run is no signal
        start = time.monotonic()
        with tempfile.TemporaryFile("w+", encoding="utf-8") as said:
            proc = subprocess.Popen([sys.executable, "-m", "advisor", *args], cwd=self.workdir, text=True,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=said)
            try:
                _wait_for_file(first, proc, FIRST_SNAPSHOT_TIMEOUT_S, shown)
                yield
                proc.wait(timeout=seconds + 600)
            finally:  # SIGTERM first: a traced collect removes its tracefs instance, a SIGKILLed one cannot
                stop_process(proc, grace_s=0.0, term_grace_s=COLLECT_STOP_GRACE_S)
            said.seek(0)
            lines = said.read().splitlines()
        self.timings["collect --trace"] = self.timings.get("collect --trace", 0.0) + time.monotonic() - start
        if proc.returncode not in (0, int(ExitCode.PARTIAL)):
            raise AdvisorError(f"'{shown}' failed: {lines[-1] if lines else f'exit {proc.returncode}'}")
        for line in lines:
            if line.startswith(_WARNING):
                self.echo(f"  {line}")
                warnings.append(line.removeprefix(_WARNING))

    def bench(self, target: str, output: Path, extra: Sequence[str] = ()) -> None:
        """``advisor bench TARGET --quick`` (read-only on the device)."""
        self.advisor("bench", target, "--quick", *extra, "-o", str(output), "--format", "json")

    def report(self, first: Path, second: Path, disk_args: Sequence[str], output: Path,
               mount_root: Path, *, render: bool = True) -> dict[str, Any]:
        """``advisor report`` on the snapshot pair (``--disk FILE`` or ``--preset NAME``); returns the JSON."""
        return self.report_on(["--snapshot", str(first), str(second)], disk_args, output, mount_root, render=render)

    def report_on(self, inputs: Sequence[str], disk_args: Sequence[str], output: Path,
                  mount_root: Path, *, render: bool = True) -> dict[str, Any]:
        """``advisor report`` on *inputs* (``--snapshot A B`` or ``--workload W``); returns the JSON."""
        common = [*inputs, *disk_args, "--mount-root", str(mount_root)]
        self.advisor("report", *common, "--format", "json", "-o", str(output))
        data: dict[str, Any] = json.loads(output.read_text())
        if render:
            self.rendered = self.advisor("report", *common, "--format", "terminal", label="render")
        return data


def _wait_for_file(path: Path, proc: subprocess.Popen[str], timeout_s: float, shown: str) -> None:
    """Return once *path* exists or *proc* has ended (its exit is checked after); raise when
    neither happens within *timeout_s*."""
    deadline = time.monotonic() + timeout_s
    while not path.exists() and proc.poll() is None:
        if time.monotonic() > deadline:
            raise AdvisorError(f"'{shown}' wrote no {path.name} within {timeout_s:g} s")
        time.sleep(FIRST_SNAPSHOT_POLL_S)


def _shell_word(text: str) -> str:
    return text if re.fullmatch(r"[\w@%+=:,./-]+", text) else "'" + text.replace("'", "'\\''") + "'"


def split_by_database(sql: str, default_db: str = "postgres") -> list[tuple[str, str]]:
    """(database, statements) blocks of a plan's PostgreSQL script.

    >>> split_by_database("CREATE TABLESPACE a LOCATION '/x';\\n-- run the next statements connected to "
    ...                   "database app\\nALTER TABLE ALL IN TABLESPACE a SET TABLESPACE b;\\n")
    ... # doctest: +NORMALIZE_WHITESPACE
    [('postgres', "CREATE TABLESPACE a LOCATION '/x';\\n"),
     ('app', 'ALTER TABLE ALL IN TABLESPACE a SET TABLESPACE b;\\n')]
    """
    blocks: list[tuple[str, str]] = []
    db, start = default_db, 0
    for match in _DB_MARKER.finditer(sql):
        blocks.append((db, sql[start:match.start()]))
        db, start = match.group(1).strip().strip('"'), match.end() + 1
    blocks.append((db, sql[start:]))
    return [(name, text) for name, text in blocks if _has_statement(text)]


def _has_statement(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith("--") for line in text.splitlines())


def tablespace_locations(sql: str) -> list[Path]:
    """Directories a script's CREATE TABLESPACE statements point at.

    >>> tablespace_locations("CREATE TABLESPACE \\"t\\" LOCATION '/mnt/o''k/t';")
    [PosixPath("/mnt/o'k/t")]
    """
    return [Path(m.group(1).replace("''", "'")) for m in _LOCATION.finditer(sql)]


def apply_plan(server: EmbeddedServer, scripts: Sequence[dict[str, Any]], log: Path,
               echo: Callable[[str], None]) -> list[str]:
    """Execute the plan's PostgreSQL script (and its WAL move, if any); returns what ran.

    As the script's header asks, each LOCATION directory is created empty and owned by the
    server account first (the planned partitions are already mounted).
    """
    applied: list[str] = []
    by_name = {str(s.get("name")): s for s in scripts}
    sql_script = by_name.get("postgres.sql")
    if sql_script is not None:
        text = str(sql_script["text"])
        for location in tablespace_locations(text):
            if not location.parent.is_dir():
                raise AdvisorError(f"the plan puts a tablespace in {location}, whose partition is not mounted")
            owned_dir(location)
        for database, block in split_by_database(text):
            echo(f"$ psql -d {database} -f postgres.sql   # {len(block.splitlines())} lines")
            server.psql(block, dbname=database, timeout=1800)
        applied.append("postgres.sql")
    wal_script = by_name.get("move_wal.sh")
    if wal_script is not None:
        path = log.parent / "move_wal.sh"
        path.write_text(str(wal_script["text"]))
        path.chmod(0o755)
        echo("$ sh move_wal.sh   # as the postgres user")
        with log.open("ab") as out:
            done = subprocess.run(as_server_user(["sh", str(path)]), env=server.env(), stdout=out, stderr=out,
                                  stdin=subprocess.DEVNULL, timeout=900, check=False)
        if done.returncode != 0:
            tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
            raise AdvisorError(f"move_wal.sh failed (exit {done.returncode}): {tail}")
        applied.append("move_wal.sh")
    return applied
