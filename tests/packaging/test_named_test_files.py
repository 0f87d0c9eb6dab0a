"""Every test file pyproject.toml names exists: a comment that sends a reader to a missing file misleads."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_pyproject_names_only_test_files_that_exist() -> None:
    named = set(re.findall(r"tests/[\w/]+\.py", (REPO / "pyproject.toml").read_text()))
    assert named and sorted(n for n in named if not (REPO / n).is_file()) == []
