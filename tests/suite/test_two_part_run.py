"""`make pytest` runs the suite in two parts (tests/README.md): every test falls in exactly one.

The first part runs on pytest-xdist workers, the second, the tests marked ``alone``, in one
process: they time reads on the emulated HDD against the host's clock. If the recipe lost a
part, or a test marked ``alone`` ran beside a worker, the suite would pass while measuring
the host instead of the disk, so both are checked here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pytest_lines(makefile: str) -> list[str]:
    """The pytest command lines of the Makefile's ``pytest`` recipe."""
    recipe = re.search(r"^pytest:.*?\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe, "the Makefile has no pytest recipe"
    return [command for command in re.split(r"[;\n]", recipe.group(1)) if "bin/pytest" in command]


def _parts(makefile: str) -> tuple[list[str], list[str]]:
    lines = _pytest_lines(makefile)
    shared = [line for line in lines if '-m "not alone"' in line and "-n " in line]
    alone = [line for line in lines if re.search(r"-m alone\b", line) and "-p no:xdist" in line and "-n " not in line]
    return shared, alone


def test_the_recipe_runs_both_parts_and_alone_in_one_process() -> None:
    shared, alone = _parts((ROOT / "Makefile").read_text())
    assert shared and alone, "make pytest must run `-m \"not alone\" -n N` and `-m alone -p no:xdist`"


def test_the_recipe_check_sees_a_lost_part() -> None:
    one_part = "pytest: venv\n\tsync\n\t$(VENV)/bin/pytest -n 2 --durations=25\n"
    shared, alone = _parts(one_part)
    assert not shared and not alone
    beside = 'pytest: venv\n\t$(VENV)/bin/pytest -m "not alone" -n 2; \\\n\t$(VENV)/bin/pytest -m alone -n 2\n'
    assert _parts(beside)[1] == []


def test_a_test_marked_alone_does_not_run_beside_a_worker() -> None:
    target = "tests/emulator/test_emulator_plumbing.py::test_constant_latency_is_what_a_reader_sees"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-P", "-m", "pytest", "-n", "1", "-q", "-rs", "-p", "no:cacheprovider",
                           target], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "skipped" in done.stdout and "marked alone" in done.stdout, done.stdout[-2000:]
