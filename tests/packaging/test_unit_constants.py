"""Every size constant comes from advisor/units.py: one definition, one meaning.

Two modules that each define ``MIB = 1 << 20`` agree today; a third that writes
``MB = 10**6`` beside them does not, and nothing says so. This walk over advisor/ and
collectors/ finds module- and class-level names bound to a size written out in digits
(``1 << 20``, ``1024 * 1024``, ``1_048_576``, ``16 * (64 << 20)``, ``10**6`` for a name
that holds bytes) anywhere but units.py; they import from units.py instead
(``CACHE_BYTES = 16 * MIB``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "advisor" / "units.py"
SIZE_NAMES = ("BYTES", "MB", "MIB", "KB", "KIB", "GB", "GIB", "TB", "TIB", "MEGABYTE", "ALIGN")


def _literal_only(node: ast.expr) -> bool:
    """Numbers and arithmetic on numbers only (``float(...)`` allowed): a figure written out, not built from a name."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant):
            if not isinstance(sub.value, int | float) or isinstance(sub.value, bool):
                return False
        elif isinstance(sub, ast.Name):
            if sub.id not in ("float", "int"):
                return False
        elif not isinstance(sub, ast.BinOp | ast.UnaryOp | ast.Call | ast.operator | ast.unaryop | ast.expr_context):
            return False
    return True


def _power_of_1024(value: object, least: int) -> bool:
    """*value* is 1024^k for some k >= *least*."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1024**least:
        return False
    while value % 1024 == 0:
        value //= 1024
    return value == 1


def _binary_size(node: ast.expr) -> bool:
    """A binary unit in digits: ``n << 10k``, ``n * 1024``, or a literal 1,048,576 (1024^2) and up."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.LShift) and isinstance(sub.right, ast.Constant) \
                and isinstance(sub.right.value, int) and sub.right.value >= 10 and sub.right.value % 10 == 0:
            return True
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mult) and any(
                isinstance(side, ast.Constant) and _power_of_1024(side.value, 1) for side in (sub.left, sub.right)):
            return True
        if isinstance(sub, ast.Constant) and _power_of_1024(sub.value, 2):
            return True
    return False


def _names(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def size_constants(source: str) -> list[tuple[int, str]]:
    """(line, name) of each module- or class-level size constant written out in digits."""
    found = []
    bodies = [ast.parse(source).body]
    while bodies:
        for stmt in bodies.pop():
            if isinstance(stmt, ast.ClassDef):
                bodies.append(stmt.body)
                continue
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            else:
                continue
            if not _literal_only(value):
                continue
            for name in (n for t in targets for n in _names(t)):
                try:
                    figure = abs(float(eval(compile(ast.Expression(value), "<constant>", "eval"))))  # noqa: S307
                except (ArithmeticError, ValueError):
                    continue
                sized = any(name.upper().endswith(word) or f"{word}_" in name.upper() for word in SIZE_NAMES)
                decimal = figure >= 10**6 and figure % 10**6 == 0  # 10**6, 1e6, 300e6: megabytes as vendors count
                if _binary_size(value) or (sized and decimal):
                    found.append((stmt.lineno, name))
    return found


def test_no_size_constant_outside_units() -> None:
    offenders = [f"{path.relative_to(ROOT)}:{line} {name}"
                 for folder in ("advisor", "collectors") for path in sorted((ROOT / folder).rglob("*.py"))
                 if path != UNITS for line, name in size_constants(path.read_text())]
    assert offenders == [], "define sizes in advisor/units.py and import them: " + ", ".join(offenders)


@pytest.mark.parametrize("line", [
    "MIB = 1 << 20", "MB = float(1 << 20)", "MEGABYTE = 1024 * 1024", "ALIGN = 1_048_576",
    "CACHE_SAFE_BAND_BYTES = 16 * (64 << 20)", "DISK_MB = 10**6", "X: int = 4096 * 1024",
    "class Spec:\n    cache_bytes: int = 16 * 1024 * 1024", "BUS_BYTES_PER_S = 300e6", "CHUNK = 1 << 30",
])
def test_the_walk_finds_a_size_written_out(line: str) -> None:
    assert size_constants(line), line


@pytest.mark.parametrize("line", [
    "from advisor.units import MIB\nCACHE_BYTES = 16 * MIB", "TIMEOUT_S = 30.0", "MAX_ROWS = 5000",
    "US_PER_S = 10**6", "STREAM_MB_S_DECIMAL = 150.0", "BLOCK_BYTES = 8192", "MAX_DEVICES = 1024",
    "def f():\n    size = 1 << 20\n    return size",
])
def test_the_walk_leaves_other_figures(line: str) -> None:
    assert size_constants(line) == [], line


def _decimal_giga(node: ast.expr) -> bool:
    """``1e9``, ``1_000_000_000`` or ``10**9`` written out."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return ast.unparse(node).replace(" ", "") == "10**9"
    value = node.value if isinstance(node, ast.Constant) else None
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 10**9


def gigabytes_in_digits(root: Path) -> list[str]:
    """``file:line`` of each division by 10^9 that is not nanoseconds to seconds (``..._ns / 1e9``)."""
    found = []
    for path in sorted((root / "advisor").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _decimal_giga(node.right) \
                    and "ns" not in ast.unparse(node.left):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_decimal_gigabytes_come_from_units() -> None:
    """A capacity printed as GB divides by ``units.DISK_GB``, not by a 1e9 written again in each module."""
    assert gigabytes_in_digits(ROOT) == []
