"""``bench`` and ``inventory`` at 80 columns, through the real command line.

The other commands are checked in test_first_use.py. ``inventory`` without ``--check`` prints
a TOML document, whose long values (a device's note) cannot wrap without changing the file: it
is exempt. What a person reads, ``inventory --check`` and the bench's table and verdict, must
fit 80 columns with every name one types (a device, a preset, a test) whole.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor


def _advisor(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_advisor(*args, env={"COLUMNS": "80"}, cwd=cwd)


def _too_wide(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line.rstrip()) > 80]


def test_inventory_check_fits_80_columns_with_names_whole(tmp_path: Path) -> None:
    """``inventory --check`` printed one line per device with the model's whole source: 170 columns."""
    (tmp_path / "host.toml").write_text(
        '[[device]]\nname = "nvme-fast-tier-0"\nmedium = "nvme"\ncapacity = "960 GB"\npreset = "nvme-gen4"\n'
        '[[device]]\nname = "archive"\nmedium = "hdd"\ncapacity = "4 TB"\npreset = "seagate-constellation-es3-4tb"\n')
    done = _advisor("inventory", "--check", "host.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not _too_wide(done.stdout), done.stdout
    for typed in ("nvme-fast-tier-0:", "archive:", " nvme-gen4 ", " seagate-constellation-es3-4tb "):
        assert typed in done.stdout, f"{typed.strip()} cut or missing:\n{done.stdout}"
    assert "…" not in done.stdout
    assert "22k IOPS QD1" in " ".join(done.stdout.split()), "the model's source is wrapped, not dropped"


@pytest.mark.slow
def test_bench_terminal_output_fits_80_columns() -> None:
    """The real bench, quick, on a scratch file: its table, verdict and warnings within 80 columns."""
    # A path that fits the line (pytest's tmp_path under a worker is longer than 80 characters,
    # and a path longer than the line cannot be named whole on it).
    scratch_dir = Path(tempfile.mkdtemp(prefix="bench-", dir="/tmp"))
    try:
        _bench_at_80_columns(scratch_dir)
    finally:
        shutil.rmtree(scratch_dir, ignore_errors=True)


def _bench_at_80_columns(directory: Path) -> None:
    done = _advisor("bench", "--scratch-file", str(directory / "bench.scratch"), "--size", "64M", "--quick",
                    "--engine", "builtin", "--budget-per-test", "0.5", cwd=directory)
    assert done.returncode == 0, done.stderr
    assert not _too_wide(done.stdout), done.stdout
    assert "…" not in done.stdout, "a cell was cut"
    rows = [line for line in done.stdout.splitlines() if line.startswith("│")]
    for test in ("zones outer → inner", "band 1 % outer", "band 1 % inner", "full stroke QD1",
                 "cross-surface (2 workers)", "commit (write+fdatasync)"):
        assert any(row.startswith(f"│ {test} ") for row in rows), f"{test!r} not whole at 80 columns"
    title = " ".join(done.stdout.split("┏")[0].split())
    assert str(directory / "bench.scratch") in title, "the benched path is named whole"
    assert "classification:" in done.stdout
