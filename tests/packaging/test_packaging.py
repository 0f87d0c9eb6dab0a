"""The wheel ships every SQL file under advisor/sql, and the editable install resolves them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_editable_install_resolves_sql() -> None:
    root = resources.files("advisor.sql")
    assert root.joinpath("postgres").is_dir()
    assert any(entry.name.endswith(".sql") for entry in root.joinpath("postgres").iterdir())


@pytest.mark.slow
def test_wheel_contains_every_sql_file(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(REPO)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"advisor/sql/{p.relative_to(REPO / 'sql').as_posix()}" for p in (REPO / "sql").rglob("*.sql")}
    assert expected and expected <= names, sorted(expected - names)[:5]
    assert not any(name.startswith("sql/") for name in names), "SQL must live inside the advisor package"
