"""Rules of the test tree itself, read from its source with ``ast`` (tests/README.md says why).

* No test module imports a conftest or another test module: what two test files share lives in
  tests/helpers/ (or a non-test module of the directory), and fixtures reach other directories as
  plugins. Importing a conftest loads it a second time under another name (two copies of its
  state, e.g. a set of versions that one copy fills and the other reports), and importing a test
  module makes pytest collect its tests twice or pulls its fixtures in by surprise.
* The CLI is started in one place, tests/helpers/cli.py (``run_advisor``/``start_advisor``): one
  rule for the interpreter, ``PYTHONPATH``, ``COLUMNS`` and timeouts.

Each rule is checked on the real tree and, so the check itself can be seen to fail, on a small
source that breaks it.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
RUNNER = TESTS / "helpers" / "cli.py"
OWN_RUNNERS = {
    TESTS / "docs" / "transcript.py": "puts a shell `advisor` on PATH: the pages' commands run through bash",
    TESTS / "docs" / "test_tutorial_walk.py": "puts a shell `advisor` on PATH: the tutorial runs through bash",
    TESTS / "packaging" / "test_console_script.py": "checks the installed console script itself",
}
"""Modules that may start the CLI themselves, and why (they run shell command lines as a page shows them)."""


def _is_test_module(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last == "conftest" or last.startswith("test_")


def forbidden_imports(source: str, package: str) -> list[str]:
    """Imports of a conftest or a test module in *source*, a module of *package* (``tests.engine``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _is_test_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if _is_test_module(module):
                found.append(module)
            found += [f"{module}.{alias.name}" for alias in node.names if _is_test_module(alias.name)]
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings or bare string statements (prose, not code)."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def own_cli_starts(source: str) -> list[int]:
    """Lines of *source* that build an advisor command by hand: ``[..., "-m", "advisor", ...]``,
    a string holding ``-m advisor``, or the console script (``....with_name("advisor")``)."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            words = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            if any(words[i:i + 2] == ["-m", "advisor"] for i in range(len(words) - 1)):
                lines.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            if "-m advisor" in node.value:
                lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "with_name":
            if [a.value for a in node.args if isinstance(a, ast.Constant)] == ["advisor"]:
                lines.append(node.lineno)
    return sorted(set(lines))


def _modules() -> list[Path]:
    return sorted(TESTS.rglob("*.py"))


def _package(path: Path) -> str:
    return ".".join(("tests", *path.parent.relative_to(TESTS).parts))


def test_no_module_imports_a_conftest_or_a_test_module() -> None:
    offenders = {str(path.relative_to(TESTS)): bad for path in _modules()
                 if (bad := forbidden_imports(path.read_text(encoding="utf-8"), _package(path)))}
    assert offenders == {}, "move what they share to tests/helpers/ (tests/README.md)"


def test_the_import_rule_sees_every_spelling() -> None:
    source = ("from tests.render.conftest import sample_workload\n"
              "from .conftest import x\n"
              "from . import test_other\n"
              "import tests.engine.test_scripts\n"
              "from tests.oracle.test_sizes_file import rows_11\n"
              "def later():\n    from tests.storage.conftest import is_root\n"
              "from tests.helpers.workloads import workload\n"
              "from .sizes_rows import row\n")
    assert forbidden_imports(source, "tests.engine") == [
        "tests.render.conftest", "tests.engine.conftest", "tests.engine.test_other", "tests.engine.test_scripts",
        "tests.oracle.test_sizes_file", "tests.storage.conftest"]


def test_only_the_helper_starts_the_cli() -> None:
    offenders = {str(path.relative_to(TESTS)): lines for path in _modules()
                 if path not in (RUNNER, Path(__file__).resolve()) and path not in OWN_RUNNERS
                 and (lines := own_cli_starts(path.read_text(encoding="utf-8")))}
    assert offenders == {}, "use tests.helpers.cli.run_advisor / start_advisor (tests/README.md)"
    assert own_cli_starts(RUNNER.read_text(encoding="utf-8")), "the helper itself must be recognised"


def test_the_cli_rule_sees_every_spelling() -> None:
    source = ('"""Runs python -m advisor, as a docstring may say."""\n'
              'import subprocess, sys\n'
              'from pathlib import Path\n'
              'subprocess.run([sys.executable, "-m", "advisor", "report"])\n'
              'ADVISOR = str(Path(sys.executable).with_name("advisor"))\n'
              'wrapper = f"exec {sys.executable} -m advisor \\"$@\\""\n'
              'subprocess.run([sys.executable, "-m", "pytest"])\n')
    assert own_cli_starts(source) == [4, 5, 6]
