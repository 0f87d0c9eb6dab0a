"""Renderers only format: they import nothing that computes rates or advice, and print the rows
they are given as they are given."""

from __future__ import annotations

import ast
from pathlib import Path

from rich.console import Console

import advisor.render
from advisor.rates.areas import RateTotals, TablespaceRates
from advisor.render.rates import tablespace_table

COMPUTING = ("advisor.engine", "advisor.rates.workload", "advisor.rates.io_share", "advisor.rates.segments",
             "advisor.rates.areas", "advisor.rates.counters", "advisor.rates", "advisor.collect", "advisor.storage")
"""Packages and modules that compute (counters to rates, sums, advice) or read the machine."""


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """Lines inside ``if TYPE_CHECKING:`` blocks: imports for annotations, never run."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def runtime_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import a module runs, at its top or inside a function."""
    tree = ast.parse(path.read_text(), str(path))
    skip = _type_checking_lines(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom) or node.lineno in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.module and node.level == 0:
                found.append((node.lineno, node.module))
        else:
            found.extend((node.lineno, alias.name) for alias in node.names)
    return sorted(found)


def test_no_renderer_imports_what_computes() -> None:
    root = Path(advisor.render.__file__).parent
    modules = sorted(root.rglob("*.py"))
    assert len(modules) > 5
    offending = [f"{path.relative_to(root)}:{line} imports {module}" for path in modules
                 for line, module in runtime_imports(path)
                 if any(module == banned or module.startswith(banned + ".") for banned in COMPUTING)]
    assert offending == []


def test_the_scan_sees_imports_inside_functions_and_skips_type_checking(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from advisor.engine.areas import Area\n"
                      "def f():\n    from advisor.rates.areas import tablespace_rates\n    return tablespace_rates\n")
    assert runtime_imports(module) == [(1, "typing"), (5, "advisor.rates.areas")]


def _totals(read: float, write: float | None, size: int | None, lower: bool = False) -> RateTotals:
    return RateTotals(files=3, size_bytes=size or 0, files_size_unknown=0 if size is not None else 1,
                      read_iops=read, read_mb_s=read / 100, write_iops=write, write_mb_s=None if write is None
                      else write / 100, files_writes_unknown=0 if write is not None else 3, syncs_per_s=None,
                      random_share=None, lower_bound=lower)


def test_the_tablespace_table_prints_the_rows_it_is_given_in_their_order() -> None:
    rows = [TablespaceRates("small", "data", _totals(1.0, None, None)),  # not sorted: render must not sort
            TablespaceRates("big", "data", _totals(900.0, 12.5, 1 << 30, lower=True))]
    console = Console(width=100, record=True, color_system=None)
    console.print(tablespace_table(rows, 60.0))
    lines = [line.split() for line in console.export_text().splitlines() if line.strip().startswith(("small", "big"))]
    assert lines == [["small", "data", "3", "?", "1.0", "-", "0.01", "-"],
                     ["big", "data", "3", "1,024.0", "900.0*", "12.5", "9.00", "0.12"]]
