"""`advisor schedule` writes nothing a value could inject into, on real files.

A control character in any value (``--dsn``, ``--push``, ``--passfile``, ``--service-file``,
``--name``, ``--user``) is refused with one line and no file written: a newline would add an
``ExecStartPre=`` to the unit (``systemd-analyze verify`` accepts that) or a line running as
root to the cron file. ``$`` reaches ExecStart as ``$$`` and ``%`` as ``%%`` (systemd
expands both), ``%`` anywhere on a cron line as ``\\%``. ``--every`` is bounded, an empty
``--dsn``/``--push`` refused, and the systemctl advice is printed only for a directory
systemd reads. Units with every awkward character allowed are checked with
``systemd-analyze verify`` when it is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor

DSN = "host=db1 dbname=shop user=advisor"
REPO = "host=repo dbname=fleet user=collector"


def schedule(*args: str) -> subprocess.CompletedProcess[str]:
    return run_advisor("schedule", *args)


def argv(overrides: dict[str, str]) -> list[str]:
    values = {"--dsn": DSN, "--push": REPO, **overrides}
    return [item for pair in values.items() for item in pair]


@pytest.mark.parametrize("timer", ["systemd", "cron"])
@pytest.mark.parametrize("option", ["--dsn", "--push", "--passfile", "--service-file", "--name", "--user"])
@pytest.mark.parametrize("control", ["\n", "\r", "\x1b", "\t", "\x85"])
def test_control_characters_are_refused_and_nothing_is_written(timer: str, option: str, control: str,
                                                              tmp_path: Path) -> None:
    base = {"--dsn": DSN, "--push": REPO, "--passfile": "/etc/advisor/pgpass", "--name": "shop", "--user": "advisor"}
    value = f"{base.get(option, '/etc/advisor/pg_service.conf')}{control}ExecStartPre=/bin/touch /tmp/pwned"
    done = schedule(*argv({option: value}), "--timer", timer, "--install", "--directory", str(tmp_path))
    assert done.returncode == 6, (done.returncode, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1 and "\x1b" not in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_dollar_and_percent_are_escaped_for_systemd(tmp_path: Path) -> None:
    done = schedule(*argv({"--dsn": "host=db user=$USER dbname=a%b application_name=${HOME}"}), "--passfile",
                    "/etc/advisor/pg%pass", "--install", "--directory", str(tmp_path))
    assert done.returncode == 0, done.stderr
    unit = (tmp_path / "advisor-collect-default.service").read_text()
    assert '"host=db user=$$USER dbname=a%%b application_name=$${HOME}"' in unit
    assert "Environment=\"PGPASSFILE=/etc/advisor/pg%%pass\"\n" in unit  # Environment= expands % but not $


def test_percent_anywhere_on_a_cron_line_is_escaped(tmp_path: Path) -> None:
    done = schedule(*argv({"--dsn": "host=db dbname=a%b"}), "--passfile", "/etc/advisor/pg%pass", "--timer", "cron",
                    "--install", "--directory", str(tmp_path))
    assert done.returncode == 0, done.stderr
    line = (tmp_path / "advisor-collect-default").read_text()
    assert line.count("\n") == 1 and "%" not in line.replace("\\%", "")
    assert "PGPASSFILE=/etc/advisor/pg\\%pass" in line and "'host=db dbname=a\\%b'" in line


@pytest.mark.parametrize(("every", "code"), [("30s", 6), ("8d", 6), ("9999999999d", 6), ("0m", 6), ("1mo", 6),
                                             ("1w", 0), ("15min", 0), ("15m", 0), ("90s", 0)])
def test_every_is_bounded(every: str, code: int) -> None:
    done = schedule(*argv({"--every": every}))
    assert done.returncode == code, done.stderr
    if code:
        assert "--every" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_empty_push_or_dsn_and_missing_dsn() -> None:
    empty_push = schedule(*argv({"--push": " "}))
    assert empty_push.returncode == 6 and "--push is empty" in empty_push.stderr
    empty_dsn = schedule(*argv({"--dsn": ""}))
    assert empty_dsn.returncode == 6 and "--dsn is empty" in empty_dsn.stderr
    missing = schedule("--push", REPO)
    assert missing.returncode == 2 and "--dsn" in missing.stderr


def test_a_cron_name_with_a_dot_is_refused(tmp_path: Path) -> None:
    done = schedule(*argv({"--name": "shop.db"}), "--timer", "cron", "--install", "--directory", str(tmp_path))
    assert done.returncode == 6 and "cron ignores" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_systemctl_advice_only_for_a_systemd_directory(tmp_path: Path) -> None:
    done = schedule(*argv({}), "--install", "--directory", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "systemctl daemon-reload" not in done.stderr and "is not a directory systemd reads" in done.stderr
    cron = schedule(*argv({}), "--timer", "cron", "--install", "--directory", str(tmp_path / "cron"))
    assert cron.returncode == 0 and "systemctl daemon-reload" not in cron.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_units_with_awkward_but_allowed_values_verify_cleanly(tmp_path: Path) -> None:
    done = schedule(*argv({"--dsn": "host=db user=$USER dbname='a b' options='-c x=%y' sslrootcert=C:\\ca"}),
                    "--passfile", "/etc/advisor/my pg\"pass", "--every", "1w", "--install", "--directory",
                    str(tmp_path))
    assert done.returncode == 0, done.stderr
    for unit in ("advisor-collect-default.service", "advisor-collect-default.timer"):
        checked = subprocess.run(["systemd-analyze", "verify", str(tmp_path / unit)], capture_output=True,
                                 text=True, timeout=60)
        complaints = [line for line in checked.stderr.splitlines() if str(tmp_path) in line]
        assert not complaints, checked.stderr
