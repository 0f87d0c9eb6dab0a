"""Nothing decides from the words of a warning or a note: the typed fields say it.

Rewording a message must never change a verdict (``Report.no_plan``, ``Report.model_basis``,
``Report.outcome``, ``Workload.resets`` carry what code decides by). This walks every module
with ``ast`` and fails on a ``startswith`` whose text is a warning or a note: a name bound by
iterating over ``...warnings``/``...notes``, a name that says it is one (``note``,
``warning``), or a test against the words the engine writes (``"No "``, ``MODEL_NOTE``,
``RESET_RULES``). The modules that parse inputs are exempt: the collectors read what a
server or a report prints, and :mod:`advisor.model.upgrade` reads documents written before
the fields were typed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PARSERS = {"advisor/model/upgrade.py"}
"""Modules that turn text written by others (or by older versions) into typed fields."""
TEXT_SOURCE = re.compile(r"warning|note", re.IGNORECASE)
ENGINE_WORDS = re.compile(r"^No |MODEL_NOTE|RESET_RULES")


def _bindings(tree: ast.AST) -> dict[str, str]:
    """Name -> the source of what it iterates over, for every comprehension and ``for`` target."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.comprehension | ast.For):
            pairs.append((node.target, node.iter))
        for target, source in pairs:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    bound[name.id] = ast.unparse(source)
    return bound


def prefix_decisions(root: Path) -> list[str]:
    """``file:line: code`` of every ``startswith`` on a warning or note outside the parsers under *root*."""
    found: list[tuple[str, int, str]] = []
    for path in sorted((root / "advisor").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative in PARSERS or "/collectors/" in f"/{relative}":
            continue
        tree = ast.parse(path.read_text(), relative)
        bound = _bindings(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "startswith"):
                continue
            receiver = node.func.value
            text = ast.unparse(receiver)
            source = bound.get(receiver.id, "") if isinstance(receiver, ast.Name) else ""
            argument = " ".join(a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else ast.unparse(a)
                                for a in node.args)
            if TEXT_SOURCE.search(text) or TEXT_SOURCE.search(source) or ENGINE_WORDS.search(argument):
                found.append((relative, node.lineno, ast.unparse(node)))
    return [f"{relative}:{line}: {code}" for relative, line, code in sorted(found)]


def test_no_decision_reads_a_warning_or_a_note() -> None:
    assert prefix_decisions(REPO) == []


def test_the_walk_finds_a_prefix_decision(tmp_path: Path) -> None:
    """The check can fail: each way a decision from words was written is found."""
    module = tmp_path / "advisor" / "m.py"
    module.parent.mkdir()
    module.write_text(
        "def f(report, notes, note, rules):\n"
        "    a = [w for w in report.warnings if w.startswith('No ')]\n"
        "    b = any(n.startswith(rules) for n in notes)\n"
        "    c = note.startswith('x')\n"
        "    d = report.name.startswith(MODEL_NOTE)\n"
        "    e = report.name.startswith('pg_')\n"  # a name, not a message: allowed
        "    return a, b, c, d, e\n")
    assert [line.split(": ", 1)[0] for line in prefix_decisions(tmp_path)] == [
        "advisor/m.py:2", "advisor/m.py:3", "advisor/m.py:4", "advisor/m.py:5"]
