"""Terminal output written with ``-o FILE`` is FILE_WIDTH columns for every command that offers it.

Each command runs as a user runs it (a real process): ``report`` and ``plan`` on the AWR sample
that ships with advisor, ``audit`` on two snapshots ``advisor collect`` took of a real
PostgreSQL server, and ``fleet report`` / ``fleet show`` on a repository on that server holding
the sample's workload. The file must not follow ``COLUMNS`` (which shapes piped stdout), and
its widest line is FILE_WIDTH: ``fleet report`` once wrote 200 columns and ``fleet show``
refused the terminal format for a file.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.render.output import FILE_WIDTH
from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer, available_versions, running_postgres

UNTIL = "2026-11-21T00:00:00+00:00"
"""After the sample AWR report's interval (20 November 2026, 10:00 to 11:00)."""


def _advisor(*args: str, cwd: Path, columns: str | None = None) -> subprocess.CompletedProcess[str]:
    done = run_advisor(*args, cwd=cwd, env={"COLUMNS": columns, "ADVISOR_SPOOL": str(cwd / "spool")})
    assert done.returncode == 0, f"advisor {' '.join(args)}: {done.stderr}"
    return done


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries available")
    with running_postgres(max(versions), tmp_path_factory.mktemp("pg")) as pg:
        yield pg


@pytest.fixture(scope="module")
def commands(server: PgServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    """The working directory and, per command, its arguments that print the terminal format."""
    root = tmp_path_factory.mktemp("width")
    for sample in ("awr_12.1.0.2.html", "sizes12.txt"):
        _advisor("sample", sample, cwd=root)
    _advisor("collect", "--from-report", "awr_12.1.0.2.html", "--sizes", "sizes12.txt", "-o", "awr.json", cwd=root)
    server.psql("CREATE DATABASE fleet")
    repo = server.dsn_for("fleet")
    _advisor("repo", "init", "--dsn", repo, cwd=root)
    _advisor("push", "--repo", repo, "awr.json", cwd=root)
    for name in ("a.json", "b.json"):
        _advisor("collect", "--dsn", server.dsn, "-o", name, cwd=root)
    fleet = ["--repo", repo, "--since", "30d", "--until", UNTIL]
    return root, {
        "report": ["report", "--workload", "awr.json", "--sizes", "sizes12.txt", "--preset", "class-10k"],
        "plan": ["plan", "--workload", "awr.json", "--sizes", "sizes12.txt", "--preset", "class-10k"],
        "audit": ["audit", "-s", "a.json", "b.json"],
        "fleet report": ["fleet", "report", *fleet],
        "fleet show": ["fleet", "show", "ORCL", *fleet],
    }


FILLS = {"report", "plan", "audit"}
"""Commands whose output here is wide enough to show the width in the file itself (a report's box
spans it); the fleet tables of one instance are narrower than any width, so their file is held
equal to stdout drawn at FILE_WIDTH columns."""


@pytest.mark.parametrize("command", ["report", "plan", "audit", "fleet report", "fleet show"])
def test_terminal_output_to_a_file_is_file_width_for_every_command(
        commands: tuple[Path, dict[str, list[str]]], command: str) -> None:
    root, arguments = commands
    texts = []
    for columns in ("80", "200"):
        target = root / f"{command.replace(' ', '-')}-{columns}.txt"
        _advisor(*arguments[command], "-o", str(target), cwd=root, columns=columns)
        texts.append(target.read_text(encoding="utf-8"))
    assert texts[0] == texts[1], f"{command}: the file followed COLUMNS"
    piped = _advisor(*arguments[command], cwd=root, columns=str(FILE_WIDTH)).stdout
    assert piped.startswith(texts[0]), f"{command}: the file is not what stdout shows at {FILE_WIDTH} columns"
    widest = max(len(line.rstrip()) for line in texts[0].splitlines())
    assert widest == FILE_WIDTH if command in FILLS else widest <= FILE_WIDTH, f"{command}: widest line {widest}"
    narrow = _advisor(*arguments[command], cwd=root, columns="80").stdout
    assert max(len(line.rstrip()) for line in narrow.splitlines()) <= 80, "stdout still follows COLUMNS"
