"""The project's modules and what each imports, read with ``ast``: the dependency rules'
tests (tests/packaging) walk the same list the same way."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ADVISOR = REPO / "advisor"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def advisor_modules() -> Iterator[Path]:
    """advisor's own modules; the collectors (a symlink to ../collectors) are checked apart."""
    for path in sorted(ADVISOR.rglob("*.py")):
        if "collectors" not in path.relative_to(ADVISOR).parts:
            yield path


def imported(path: Path) -> set[str]:
    """Every module *path* imports, with ``from a import b`` also counted as ``a.b``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            assert node.module is not None
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names
