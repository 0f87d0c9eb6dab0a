"""Input at fault exits 6 with one line, never 1: a NUL in a document's text, -o into a missing directory.

(Inventories' bare ``nan``/``inf`` capacities and deeply nested TOML are in
tests/tiers/test_inventory.py; an empty repository ``schema_version`` in tests/repo/test_schema_repair.py.)
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers.cli import refused, run_advisor


def one_line_6(done: subprocess.CompletedProcess[str], words: str) -> None:
    refused(done, 6, words)


def workload_file(tmp_path: Path) -> Path:
    from advisor.model import save
    from tests.helpers.workloads import AreaSpec, workload

    path = tmp_path / "w.json"
    save(workload([AreaSpec("orders", size_gb=10, read_iops=200, zone=(0.5, 0.6))]), path)
    return path


def test_a_nul_in_a_documents_text_is_bad_input(tmp_path: Path) -> None:
    path = workload_file(tmp_path)
    text = path.read_text()
    assert '"orders"' in text
    damaged = tmp_path / "nul.json"
    damaged.write_text(text.replace('"orders"', '"ord\\u0000ers"', 1))
    one_line_6(run_advisor("report", "--workload", str(damaged), "--preset", "class-7200-desktop"), "NUL character")
    literal = tmp_path / "backslash.json"  # the six characters \u0000 written as text are a name like any other
    literal.write_text(text.replace('"orders"', '"ord\\\\u0000ers"', 1))
    assert run_advisor("report", "--workload", str(literal), "--preset", "class-7200-desktop", "-f",
                       "json").returncode == 0


def test_output_into_a_missing_directory_is_bad_input(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such"
    one_line_6(run_advisor("inventory", "-o", str(missing / "inv.toml")), "does not exist")
    one_line_6(run_advisor("plan", "--workload", str(workload_file(tmp_path)), "--preset", "class-7200-desktop",
                   "-f", "json", "-o", str(missing / "plan.json")), "does not exist")
    assert not missing.exists()


def _capped(*args: str) -> subprocess.CompletedProcess[str]:
    """advisor with 2 GiB of address space and 30 s: reading /dev/zero to the end fails instead of eating the host."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return run_advisor(*args, timeout=30, preexec_fn=cap)


def test_a_drive_spec_that_is_a_device_or_fifo_is_refused_unread(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "spec-pipe"
    os.mkfifo(fifo)
    work = str(workload_file(tmp_path))
    for args in (("plan", "--workload", work, "--preset", "/dev/zero"),
                 ("plan", "--workload", work, "--spec", str(fifo)), ("disk", "show", "/dev/zero")):
        one_line_6(_capped(*args), "the drive spec is not a regular file")
    inventory = tmp_path / "inv.toml"
    inventory.write_text('[[device]]\nname = "h"\nmedium = "hdd"\ncapacity = "1 TB"\npreset = "/dev/zero"\n')
    one_line_6(_capped("inventory", "--check", str(inventory)), "the drive spec is not a regular file")


def test_every_document_report_and_sizes_file_that_is_a_device_or_fifo_is_refused_unread(tmp_path: Path) -> None:
    """A FIFO blocked these commands for ever and /dev/zero filled the memory: one line, exit 6, at once."""
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    work = str(workload_file(tmp_path))
    cases = [
        (("workload", "{}"), "the workload is not a regular file"),
        (("report", "--workload", "{}", "--preset", "class-7200-desktop"), "the workload is not a regular file"),
        (("report", "--snapshot", "{}", "{}"), "the snapshot is not a regular file"),
        (("plan", "--workload", work, "--sizes", "{}"), "the sizes file is not a regular file"),
        (("collect", "--from-report", "{}", "-o", str(tmp_path / "w.json")), "the report is not a regular file"),
        (("push", "--repo", "postgresql://127.0.0.1:1/none", "{}"), "the document is not a regular file"),
    ]
    for special in ("/dev/zero", str(fifo)):
        for args, words in cases:
            one_line_6(_capped(*(a.format(special) for a in args)), words)


def test_an_awr_report_that_is_a_fifo_is_refused_unread(tmp_path: Path) -> None:
    import os

    from advisor.collectors.awr import read_report
    from advisor.errors import BadInput

    fifo = tmp_path / "awr.html"
    os.mkfifo(fifo)
    try:
        read_report(fifo)
    except BadInput as exc:
        assert "the report is not a regular file" in str(exc)
    else:
        raise AssertionError("a FIFO was read as a report")
