"""`advisor schedule`: units and cron lines that run as an unprivileged user and never hold a password."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor

DSN = "host=db1 port=5432 user=advisor dbname=shop sslmode=verify-full"
REPO = "host=repo.example.net dbname=fleet user=collector sslmode=require"


def test_systemd_units_run_unprivileged_with_a_passfile_and_no_password() -> None:
    done = run_advisor("schedule", "--dsn", DSN, "--push", REPO, "--every", "15m", "--name", "shop",
                       "--passfile", "/etc/advisor/pgpass")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "# advisor-collect-shop.service" in text and "# advisor-collect-shop.timer" in text
    assert "User=advisor" in text and "OnUnitActiveSec=900s" in text and "Persistent=true" in text
    assert "Environment=PGPASSFILE=/etc/advisor/pgpass" in text
    assert '"--dsn" ' not in text and f'--dsn "{DSN}"' in text and f'--push "{REPO}"' in text
    assert "password" not in text.lower().replace("pgpassfile", "")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_units_are_valid_for_systemd(tmp_path: Path) -> None:
    done = run_advisor("schedule", "--dsn", DSN, "--push", REPO, "--install", "--directory", str(tmp_path))
    assert done.returncode == 0, done.stderr
    checked = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "advisor-collect-default.timer")],
                             capture_output=True, text=True, timeout=60)
    assert "advisor-collect-default" not in checked.stderr or checked.returncode == 0, checked.stderr


def test_cron_line_installs_atomically(tmp_path: Path) -> None:
    done = run_advisor("schedule", "--dsn", DSN, "--push", REPO, "--every", "2h", "--timer", "cron",
                       "--user", "dba", "--install", "--directory", str(tmp_path))
    assert done.returncode == 0, done.stderr
    line = (tmp_path / "advisor-collect-default").read_text()
    assert line.startswith("0 */2 * * * dba ADVISOR_SPOOL=/var/lib/advisor/spool ")
    assert f"--dsn '{DSN}'" in line and line.endswith("\n") and line.count("\n") == 1
    assert (tmp_path / "advisor-collect-default").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize(("args", "words"), [
    (("--dsn", "host=db password=s3cret"), "contains a password"),
    (("--push", "postgresql://u:s3cret@repo/fleet"), "contains a password"),
    (("--user", "root"), "unprivileged"),
    (("--every", "7m", "--timer", "cron"), "cannot be written as a cron schedule"),
    (("--every", "soon"), "positive duration"),
    (("--timer", "at"), "use systemd or cron"),
])
def test_bad_schedules_are_one_line_errors(args: tuple[str, ...], words: str) -> None:
    base = {"--dsn": DSN, "--push": REPO}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    argv = [item for pair in base.items() for item in pair]
    done = run_advisor("schedule", *argv)
    assert done.returncode == 6, done.stderr
    assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "s3cret" not in done.stderr
