"""Walk docs/tutorial.md section 2 on a real PostgreSQL: every command the page shows runs.

The commands are read from the page itself (fenced blocks and inline code spans, in page
order) and run in a shell with ``advisor``, ``psql``, ``pgbench`` and ``pg_ctl`` on the PATH
and libpq's ``PG*`` variables pointing at a throw-away server. Only what is specific to a
machine is replaced (:data:`PARAMETERS`): the DSN's host, the mount root, the scratch file's
directory and the durations. A command that cannot run on a CI machine is listed in
:data:`SKIPPED` with the reason; any other command of the page that the walk did not run
fails the test, so a new example cannot be added without being executed.

Each command's output is checked for its structure (table headers, key lines, files
written), not its numbers, which differ per machine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs.mdpage import Block, blocks, inline_commands, section, shell_lines, strip_comment
from tests.helpers.pg import PgServer, available_versions, running_postgres

pytestmark = [pytest.mark.pg, pytest.mark.root, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
SECTION = "## 2. Step by step on your own instance"

SKIPPED = {
    "advisor bench /dev/sdb --quick -o disk.json": (
        "names a whole real drive; a CI machine has one virtual disk whose device refuses "
        "O_DIRECT (the device bench itself runs on loop devices in tests/bench/)"
    ),
}
"""Commands of the section not run, and why.

Section 1 of the page is one command, ``make demo`` (``advisor demo``): tests/demo/test_demo.py
runs it as root on the emulated disk (``--quick``) and checks its story and clean-up.
"""


@dataclass
class Ran:
    """One command as run: the page's text, the text after parameters, and its result."""

    shown: str
    command: str
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        """Both streams: what a line says matters here, not which stream it took."""
        return self.stdout + self.stderr


def parameters(server: PgServer, work: Path) -> list[tuple[str, str]]:
    """Page text → this machine: the server's address, temp dirs, short durations."""
    dsn = server.dsn_for("app", "advisor")
    return [
        ("host=/var/run/postgresql", f"host=127.0.0.1 port={server.port}"),
        ("--dsn ...", f'--dsn "{dsn}"'),
        ("/srv/advisor", str(work / "mnt")),
        ("/srv/pg/", f"{work}/"),
        ("-T 600", "-T 8"),
        ("--interval 600", "--interval 3"),
        ("--size 1G --quick", "--size 1G --quick --budget-per-test 0.5"),  # the verdict, not its precision
    ]


def _relation_path(server: PgServer) -> str:
    row = server.psql(
        "SELECT current_setting('data_directory') || '/' || pg_relation_filepath('pgbench_accounts')", "app"
    )
    return row.strip()


@pytest.fixture
def walk_server() -> Iterator[tuple[PgServer, Path]]:
    """The newest server, a database ``app`` with pgbench tables, the role of privileges-postgres.md.

    The work directory is world-searchable (not pytest's 0700 tmp) because ``move_wal.sh``
    restarts the server as its own account, without the capability the helper gives it.
    """
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries on this machine")
    work = Path(tempfile.mkdtemp(prefix="advisor-tutorial-", dir="/tmp"))
    work.chmod(0o755)
    try:
        with running_postgres(max(versions), work) as server:
            server.psql(f"ALTER SYSTEM SET port = {server.port}")  # pg_ctl start in move_wal.sh
            server.psql("CREATE ROLE advisor LOGIN; GRANT pg_monitor TO advisor; CREATE DATABASE app")
            subprocess.run(
                [str(server.pgbench_path), "-i", "-q", "-s", "5", "-d", server.dsn_for("app")],
                check=True, capture_output=True, timeout=300,
            )
            yield server, work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _environment(server: PgServer, work: Path) -> dict[str, str]:
    bindir = work / "bin"
    bindir.mkdir(exist_ok=True)
    wrapper = bindir / "advisor"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m advisor "$@"\n')
    wrapper.chmod(0o755)
    tools = {str(server.pgbench_path.parent), str(server.bindir)}
    env = dict(os.environ)
    env.update(
        PATH=os.pathsep.join([str(bindir), *sorted(tools), env.get("PATH", "")]),
        PGHOST="127.0.0.1", PGPORT=str(server.port), PGUSER="postgres", PGDATABASE="postgres",
        PYTHONPATH=str(REPO), ADVISOR_SQL_DIR=str(REPO / "sql"), COLUMNS="80",
    )
    return env


def _run(shown: str, command: str, cwd: Path, env: dict[str, str]) -> Ran:
    """Run through bash with output in files: move_wal.sh's server keeps a pipe open forever."""
    out, err = cwd / ".out", cwd / ".err"
    with out.open("w") as stdout, err.open("w") as stderr:
        done = subprocess.run(
            ["bash", "-c", "set -eu\n" + command], cwd=cwd, env=env, stdout=stdout, stderr=stderr, timeout=600
        )
    return Ran(shown, command, done.returncode, out.read_text(), err.read_text())


def _page_items(text: str) -> list[Block | str]:
    """Fenced blocks and inline commands of *text* in the order a reader meets them."""
    positions: list[tuple[int, Block | str]] = []
    for block in blocks(text):
        positions.append((text.index(block.text), block))
    prose = re.sub(r"```.*?```", lambda m: " " * len(m.group(0)), text, flags=re.S)
    flat = prose.replace("\n", " ")
    for span in inline_commands(text):
        positions.append((flat.index(f"`{span}`"), span))
    return [item for _, item in sorted(positions, key=lambda p: p[0])]


def walk(server: PgServer, work: Path) -> tuple[list[Ran], set[str]]:
    """Run every command of the section; return the runs and the commands shown on the page."""
    text = section("tutorial.md", SECTION)
    subs = [*parameters(server, work), ("advisor where PATH", f"advisor where {_relation_path(server)}")]
    env = _environment(server, work)
    cwd = work / "walk"
    cwd.mkdir()
    runs: list[Ran] = []
    shown: set[str] = set()

    def apply(command: str) -> str:
        for old, new in subs:
            command = command.replace(old, new)
        return command

    for item in _page_items(text):
        if isinstance(item, str):
            commands = [item]
        else:
            lines = shell_lines(item)
            if any(re.search(r"\bdo$|^done\b|^\w+=", line) for line in lines):
                shown.update(lines)
                if not any(line in SKIPPED for line in lines):
                    runs.append(_run(item.text, apply(item.text), cwd, env))
                continue
            commands = lines
        for command in commands:
            shown.add(command)
            if strip_comment(command) in SKIPPED or command in SKIPPED:
                continue
            runs.append(_run(command, apply(command), cwd, env))
    return runs, shown


def _one(runs: list[Ran], pattern: str) -> Ran:
    matches = [run for run in runs if re.search(pattern, run.shown)]
    assert matches, f"the walk ran no command matching {pattern!r}"
    return matches[0]


def _header(output: str, *columns: str) -> None:
    """A table header line holding *columns* in that order (the numbers below differ per host)."""
    pattern = r"\s+".join(map(re.escape, columns))
    assert re.search(pattern, output), f"no table header {columns} in:\n{output[:2000]}"


def test_the_tutorial_walks_on_a_real_server(walk_server: tuple[PgServer, Path]) -> None:
    server, work = walk_server
    runs, shown = walk(server, work)
    cwd = work / "walk"

    failed = [f"{run.command}\n-> rc {run.returncode}\n{run.stdout[-1500:]}\n{run.stderr[-1500:]}"
              for run in runs if run.returncode != 0]
    assert not failed, "commands of docs/tutorial.md failed:\n" + "\n\n".join(failed)
    ran = {run.shown for run in runs} | {line for run in runs for line in shell_lines(Block("", 0, run.shown))}
    not_run = {command for command in shown if command not in ran and strip_comment(command) not in SKIPPED}
    assert not not_run, f"commands shown but neither run nor listed in SKIPPED: {not_run}"
    assert len(runs) >= 15, "the page parse lost commands"

    assert server.psql("SHOW track_io_timing").strip() == "on"
    for name in ("a", "b", "c", "d"):
        collect = _one(runs, rf"collect .* -o {name}\.json")
        assert f"wrote {name}.json" in collect.output
        assert re.search(r"\d+ databases, \d+ files", collect.output), collect.output
        assert json.loads((cwd / f"{name}.json").read_text())["files"]
    workload = _one(runs, r"^advisor workload a\.json b\.json +#")
    assert "Per tablespace" in workload.output and "Per file" in workload.output
    _header(workload.output, "tablespace", "kind", "files")
    assert "pgbench_accounts" in workload.output
    assert (cwd / "w.json").is_file() and (cwd / "snaps").is_dir()
    audit = _one(runs, r"^advisor audit")
    assert "Findings" in audit.output
    _header(audit.output, "partition / area", "outer 0", "inner 1", "zone")
    where = _one(runs, r"^advisor where")
    assert "where the bytes are" in where.output
    _header(where.output, "path", "disk", "part", "zone")

    bench = _one(runs, r"^advisor bench --scratch-file")
    verdict = re.search(r"classification: ([\w-]+)", bench.output)
    assert verdict, bench.output
    assert json.loads((cwd / "disk.json").read_text())
    assert not list(work.glob("advisor.scratch*")), "the bench left its scratch file behind"
    assert "class-7200-desktop" in _one(runs, r"^advisor disk presets").output

    measured = _one(runs, r"--disk disk\.json")
    assert "plan:" in measured.output
    assert "<html" in (cwd / "report.html").read_text().lower()
    terminal = _one(runs, r"--preset class-7200-desktop --mount-root \S+$")
    box = re.search(r"plan: (.*)", terminal.output)
    assert box, terminal.output
    if box.group(1).startswith("none") or "no change worth making" in terminal.output:
        # The honest answer on a cached virtual disk: the reason is said, not just "none".
        assert re.search(r"No plan: |no change worth making", terminal.output), terminal.output
    else:
        assert re.search(r"\d+ ms -> [\d.]+ ms", box.group(1)), box.group(1)

    sql = (cwd / "plan" / "postgres.sql").read_text()
    assert "\\connect" in sql
    created = server.psql("SELECT spcname FROM pg_tablespace ORDER BY 1").split()
    planned = re.findall(r'CREATE TABLESPACE "([^"]+)"', sql)
    assert planned and set(planned) <= set(created), (planned, created)
    moved = server.psql(
        "SELECT coalesce(t.spcname, 'pg_default') FROM pg_class c LEFT JOIN pg_tablespace t "
        "ON t.oid = c.reltablespace WHERE c.relname = 'pgbench_accounts'", "app"
    ).strip()
    assert moved in planned, f"pgbench_accounts is in {moved}, the plan made {planned}"
    if (cwd / "plan" / "move_wal.sh").is_file():
        wal = server.datadir / "pg_wal"
        assert wal.is_symlink() and str(work / "mnt") in os.readlink(wal)
    again = _one(runs, r"^advisor workload c\.json d\.json")
    assert moved in again.output, "the new tablespace does not carry the load after the move"
    assert "plan:" in _one(runs, r"^advisor report --snapshot c\.json d\.json").output
    new_disks = _one(runs, r"^advisor plan --workload w\.json")
    assert "plan:" in new_disks.output
    assert (cwd / "plan2").is_dir() or "no scripts written" in new_disks.output, new_disks.output
