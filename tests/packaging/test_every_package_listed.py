"""Every package under advisor/ is listed in pyproject.toml: the list is by hand, and a package
left out is missing from the wheel (so a command that imports it fails outside the source tree)."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_package_is_in_the_wheel_list() -> None:
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(REPO).parts) for init in (REPO / "advisor").rglob("__init__.py")
             if "collectors" not in init.parent.relative_to(REPO).parts}
    assert found - listed == set(), "packages missing from [tool.setuptools] packages"
    assert {"advisor.samples", "advisor.sizes"} <= listed
