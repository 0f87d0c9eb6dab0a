"""A command line that names a command assembles only that command's module (advisor.cli.needed).

Each command module registers the one top-level command it is named after; the app built from
one module must then answer that command exactly as the app built from all of them does, and a
process that runs one command must not import the other modules (each import made every
command start later).
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest
import typer.main
from typer.testing import CliRunner

from advisor.cli import COMMAND_MODULES, build_app, needed
from tests.helpers.cli import advisor_env


def test_each_module_registers_the_command_named_after_it() -> None:
    for name in COMMAND_MODULES:
        assert sorted(typer.main.get_group(build_app((name,))).commands) == [name]


@pytest.mark.parametrize("name", COMMAND_MODULES)
def test_one_module_answers_its_command_as_the_whole_app(name: str) -> None:
    runner = CliRunner()
    alone = runner.invoke(build_app((name,)), [name, "--help"], env={"COLUMNS": "100"})
    whole = runner.invoke(build_app(), [name, "--help"], env={"COLUMNS": "100"})
    assert alone.exit_code == whole.exit_code == 0
    assert alone.output == whole.output and f"advisor {name}" in alone.output


def test_help_version_and_a_mistyped_name_get_every_command() -> None:
    for argv in ([], ["--help"], ["--version"], ["reprot"], ["--help", "report"]):
        assert needed(argv) == COMMAND_MODULES
    assert needed(["report", "--workload", "w.json"]) == ("report",)


def test_a_command_imports_no_other_command_module() -> None:
    probe = ("import sys; sys.argv = ['advisor', 'sql', 'list']\n"
             "from advisor.cli import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('advisor.cli.')), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, text=True, timeout=120,
                          env=advisor_env(), check=False)
    loaded = ast.literal_eval(done.stderr.strip().splitlines()[-1])
    commands = {f"advisor.cli.{name}" for name in COMMAND_MODULES}
    assert commands & set(loaded) == {"advisor.cli.sql"}, loaded
    assert done.stdout.strip(), "sql list printed nothing"
