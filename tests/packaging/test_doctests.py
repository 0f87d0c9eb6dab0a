"""The collectors' doctests are collected through advisor/collectors (a symlink to collectors/)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_collector_module_with_examples_has_its_doctests_collected() -> None:
    with_examples = sorted(
        str(path.relative_to(REPO)).replace("collectors/", "advisor/collectors/", 1)
        for path in (REPO / "collectors").rglob("*.py")
        if ">>>" in path.read_text(encoding="utf-8")
    )
    assert with_examples, "no doctest in collectors/ at all: this test would prove nothing"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "advisor/collectors"],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    collected = {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}
    assert set(with_examples) <= collected, sorted(set(with_examples) - collected)
