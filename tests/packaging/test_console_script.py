"""The installed ``advisor`` console script starts the same CLI as ``python -m advisor``.

Every other test runs ``python -P -m advisor`` (tests/helpers/cli.py, which says why); this one
checks the entry point that ``pip install`` writes, the way a user starts the tool.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers.cli import advisor_env, run_advisor

SCRIPT = Path(sys.executable).with_name("advisor")


def test_the_console_script_is_installed_and_answers_as_the_module_does() -> None:
    assert SCRIPT.is_file(), f"{SCRIPT} is missing: the package is not installed (make venv installs it)"
    script = subprocess.run([str(SCRIPT), "--version"], capture_output=True, text=True, timeout=120,
                            env=advisor_env(), stdin=subprocess.DEVNULL, check=False)
    module = run_advisor("--version")
    assert script.returncode == module.returncode == 0, script.stderr + module.stderr
    assert script.stdout == module.stdout and script.stdout.startswith("advisor ")
    bad = subprocess.run([str(SCRIPT), "report", "--workload", "/nonexistent/w.json"], capture_output=True,
                         text=True, timeout=120, env=advisor_env(), stdin=subprocess.DEVNULL, check=False)
    assert bad.returncode == 6 and bad.stderr.startswith("advisor: error: "), bad.stderr
