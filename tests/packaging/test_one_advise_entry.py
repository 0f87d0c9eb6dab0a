"""One entry makes a report: ``advise(AdviceRequest)``; no caller builds or finishes one itself.

A report finished in one caller and not in another (coverage, assumed sizes, the model
basis) is how ``fleet show`` came to print less than ``advisor report`` about the same
window. This walks every module outside the engine with ``ast`` and fails on: an import of
the engine's internals from :mod:`advisor.engine.advise` (``analyse``, ``make_plan``, ...:
only the request, the entry and the models it names may be imported); a ``Report(...)``
built anywhere but the engine and the document model (which reads old documents into the
current fields); and the engine's ``advise`` called with anything but one request.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.imports import REPO, advisor_modules

PUBLIC = frozenset({"AdviceRequest", "advise", "Models"})
"""What a caller outside the engine may import from advisor.engine.advise."""
BUILDERS = ("advisor/engine/", "advisor/model/")
"""Where a ``Report`` may be constructed: the engine makes it, the model reads old documents into it."""


def _relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def entry_breaches(modules: list[tuple[Path, str]]) -> list[str]:
    """``file:line: what`` of every import of the engine's internals, ``Report(...)`` and ``advise(a, b, ...)``
    in *modules* (a file and the path it stands for, relative to the tree)."""
    found: list[str] = []
    for path, relative in modules:
        inside = relative.startswith("advisor/engine/")
        tree = ast.parse(path.read_text(), relative)
        entry = any(isinstance(n, ast.ImportFrom) and n.module == "advisor.engine.advise"
                    and any(a.name == "advise" for a in n.names) for n in ast.walk(tree))  # not a function of its own
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "advisor.engine.advise" and not inside:
                found += [f"{relative}:{node.lineno}: imports {a.name}" for a in node.names if a.name not in PUBLIC]
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name | ast.Attribute):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if name == "Report" and not relative.startswith(BUILDERS):
                found.append(f"{relative}:{node.lineno}: builds a Report")
            if name == "advise" and entry and not inside and (len(node.args) != 1 or node.keywords):
                found.append(f"{relative}:{node.lineno}: advise() with arguments, not one request")
    return found


def _every_caller() -> list[tuple[Path, str]]:
    more = [p for folder in ("collectors", "benchmarks", "scripts") for p in sorted((REPO / folder).rglob("*.py"))]
    return [(p, _relative(p)) for p in [*advisor_modules(), *more]]


def test_no_module_builds_or_finishes_a_report_outside_the_engine() -> None:
    assert entry_breaches(_every_caller()) == []


def test_the_rule_sees_a_breach(tmp_path: Path) -> None:
    """The walk finds each kind of breach (it would pass vacuously otherwise)."""
    bad = tmp_path / "probe.py"
    bad.write_text("from advisor.engine.advise import analyse, advise\n"
                   "from advisor.model import Report\n"
                   "def f(w, m):\n"
                   "    return advise(w, m), Report()\n")
    found = entry_breaches([(bad, "advisor/repo/probe.py")])
    assert [f.split(": ", 1)[1] for f in found] == ["imports analyse", "advise() with arguments, not one request",
                                                    "builds a Report"]
