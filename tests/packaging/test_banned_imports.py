"""ruff's banned-api holds "advisor reaches its collectors only through the registry".

The rule lives in pyproject.toml ([tool.ruff.lint.flake8-tidy-imports.banned-api] and its
per-file-ignores). These tests hand ruff a module text under a path inside the tree (on stdin,
so nothing is written there) and check that it flags the import where the rule applies and
only there: a rule that silently stopped matching (a renamed key, a too-wide ignore) fails
here rather than letting an import through.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

IMPORTS = {
    "import": "import advisor.collectors.awr\n",
    "from-submodule": "from advisor.collectors.awr import read_report\n",
    "from-package": "from advisor.collectors import postgres\n",
    "from-advisor": "from advisor import collectors\n",
    "top-level folder": "from collectors.postgres import PostgresCollector\n",
}


def ruff_codes(text: str, path: str) -> list[str]:
    """The rule codes ruff reports for *text* as if it were the file *path* of this tree."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "TID251", "--output-format", "concise",
         "--stdin-filename", path, "-"],
        input=f"from __future__ import annotations\n\n{text}", text=True, capture_output=True, cwd=REPO, timeout=60,
    )
    assert done.returncode in (0, 1), done.stderr
    return [line.split()[1] for line in done.stdout.splitlines() if ": TID" in line]


@pytest.mark.parametrize("form", sorted(IMPORTS))
@pytest.mark.parametrize("path", ["advisor/engine/probe.py", "advisor/cli/probe.py", "advisor/collect/context.py"])
def test_advisor_importing_a_collector_is_flagged(form: str, path: str) -> None:
    assert ruff_codes(IMPORTS[form], path) == ["TID251"]


@pytest.mark.parametrize("path", ["advisor/collect/registry.py", "collectors/awr/probe.py",
                                  "tests/oracle/probe.py", "benchmarks/probe.py"])
def test_the_registry_collectors_and_tests_may_import_them(path: str) -> None:
    assert ruff_codes(IMPORTS["from-submodule"], path) == []


def test_the_tree_keeps_the_rule() -> None:
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "TID251", "advisor"],
                          text=True, capture_output=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
