"""The module maps in ``advisor/engine/__init__.py`` and ``advisor/render/__init__.py`` stay whole.

Each names every module and subpackage of its package (as ``name`` or ``name/`` in double backquotes), so a
module added fails here until the map says where it belongs.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ADVISOR = Path(__file__).resolve().parents[2] / "advisor"


@pytest.mark.parametrize("package", ["engine", "render"])
def test_the_map_names_every_module(package: str) -> None:
    folder = ADVISOR / package
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    named = set(re.findall(r"``(\w+)/?``", doc))
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    modules |= {p.parent.name for p in folder.glob("*/__init__.py")}
    assert modules - named == set(), "modules the map does not name"
    folders = set(re.findall(r"``(\w+)/``", doc))
    assert {f for f in folders if not (folder / f / "__init__.py").is_file()} == set(), "subpackages that are not there"
