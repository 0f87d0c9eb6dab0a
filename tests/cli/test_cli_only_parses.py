"""cli/ parses options, calls the stages and renders: the decisions live below it.

Which physics judges which disk is :mod:`advisor.engine.disk_models`; whether a snapshot is
read since the server started or diffed with another is :mod:`advisor.engine.audit_map`'s
(and :mod:`advisor.rates.workload`'s); sampling a counter over time is :mod:`advisor.storage` or
:mod:`advisor.collect`. A command module that grows one of these back fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import advisor.cli

CLI = Path(advisor.cli.__file__).parent


def _names(tree: ast.Module) -> set[str]:
    """Every name a module uses, attributes also with their object (``time.sleep`` gives
    ``time``, ``sleep`` and ``time.sleep``), imported names also with their module."""
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
            if isinstance(node.value, ast.Name):
                used.add(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                used.update((alias.asname or alias.name, f"{(node.module or '').rsplit('.', 1)[-1]}.{alias.name}"))
        elif isinstance(node, ast.Import):
            used.update(alias.asname or alias.name.rsplit(".", 1)[-1] for alias in node.names)
    return used


def _functions(tree: ast.Module) -> set[str]:
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


BELOW_CLI = {
    "ModelPhysics": "building disk physics (advisor.engine.disk_models)",
    "since_start": "choosing since-start or diff (advisor.engine.audit_map.audit_workload)",
    "time.sleep": "sampling over time (advisor.storage.diskstats.sample_rates, advisor.collect)",
    "diskstats.sample": "reading diskstats twice (advisor.storage.diskstats.sample_rates)",
    "diskstats.diskstats_rates": "diskstats to rates (advisor.storage.diskstats.sample_rates)",
}
"""Names a command module has no use for, and where the work they stand for lives."""

DEFINED_BELOW = {"load_models", "_profile_physics", "audit_workload", "build_audit", "sample_rates"}
"""Functions defined below cli/ that no command module defines again."""


def test_no_command_module_does_the_work_of_a_stage() -> None:
    modules = sorted(CLI.glob("*.py"))
    assert len(modules) > 10
    found = []
    for path in modules:
        tree = ast.parse(path.read_text(), str(path))
        found += [f"{path.name}: {name} ({why})" for name, why in BELOW_CLI.items() if name in _names(tree)]
        found += [f"{path.name}: defines {name}" for name in DEFINED_BELOW & _functions(tree)]
    assert found == []


def test_the_scan_sees_a_sampling_loop() -> None:
    loop = ast.parse("import time\nfrom advisor.storage import diskstats\n"
                     "def f():\n    a = diskstats.sample(None)\n    time.sleep(1)\n")
    assert {"time.sleep", "diskstats.sample"} <= _names(loop)
    assert "time.sleep" in _names(ast.parse("from time import sleep\n"))
    assert "load_models" in _functions(ast.parse("def load_models(): pass\n"))
