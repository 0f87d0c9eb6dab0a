"""`advisor disk emulate`: prints the device, serves IO, detaches cleanly on SIGINT/SIGTERM."""

from __future__ import annotations

import os
import re
import select
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from advisor.disk.emulator import system as sysx
from advisor.errors import ExitCode
from tests.helpers.cli import run_advisor, signalled
from tests.helpers.emulated import read_latencies, require_fuse_and_loop

pytestmark = [pytest.mark.root]



def _readline(proc: subprocess.Popen[str], timeout_s: float = 60.0) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout_s)
    assert ready, "advisor disk emulate printed no device"
    return proc.stdout.readline().strip()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_emulate_prints_the_device_and_cleans_up_on_signal(tmp_path: Path, sig: signal.Signals) -> None:
    require_fuse_and_loop()
    backing = tmp_path / "disk.img"
    seen: dict[str, str] = {}

    def serving(proc: subprocess.Popen[str]) -> None:
        device = seen["device"] = _readline(proc)
        assert re.fullmatch(r"/dev/loop\d+", device), device
        assert stat.S_ISBLK(os.stat(device).st_mode)
        assert len(read_latencies(device, [0, 4096, 1 << 20])) == 3
        backing_file = Path(f"/sys/block/{os.path.basename(device)}/loop/backing_file").read_text().strip()
        assert backing_file.startswith(str(sysx.RUN_DIR)) and backing_file.endswith("/mnt/disk.img")
        seen["backing"] = backing_file

    code, stderr = signalled(["disk", "emulate", "class-10k", "--size", "64M", "--backing", str(backing),
                              "--scale", "10"], serving, sig)
    device, backing_file = seen["device"], seen["backing"]
    assert code == 0, stderr
    assert f"detached {device}" in stderr
    mountpoint = Path(backing_file).parent
    assert not sysx.is_mounted(mountpoint)
    assert sysx.loops_backed_by(Path(backing_file)) == []
    assert not mountpoint.parent.exists()
    assert backing.stat().st_size == 64 << 20  # the data stays for the next run


def test_emulate_refuses_a_file_it_did_not_create(tmp_path: Path) -> None:
    foreign = tmp_path / "important.dat"
    foreign.write_bytes(b"keep me")
    started = time.monotonic()
    done = run_advisor("disk", "emulate", "class-10k", "--size", "64M", "--backing", str(foreign))
    assert done.returncode == ExitCode.UNSAFE
    assert done.stdout == ""
    assert done.stderr.startswith("advisor: error: ") and done.stderr.count("\n") == 1
    assert "--reuse" in done.stderr
    assert foreign.read_bytes() == b"keep me"
    assert time.monotonic() - started < 30


def test_emulate_rejects_an_unknown_preset(tmp_path: Path) -> None:
    done = run_advisor("disk", "emulate", "no-such-drive", "--backing", str(tmp_path / "d.img"))
    assert done.returncode == ExitCode.BAD_INPUT, done.stderr
    assert "no-such-drive" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "d.img").exists()


def test_emulate_smr_options_need_smr_and_a_cache_of_a_band(tmp_path: Path) -> None:
    backing = tmp_path / "d.img"
    without = run_advisor("disk", "emulate", "class-5400-nas", "--size", "64M", "--backing", str(backing),
                          "--media-cache", "8M")
    assert without.returncode == ExitCode.BAD_INPUT and "add --smr" in without.stderr
    small = run_advisor("disk", "emulate", "class-5400-nas", "--size", "64M", "--backing", str(backing), "--smr",
                        "--media-cache", "1M", "--band", "4M")
    assert small.returncode == ExitCode.BAD_INPUT and "at least one band" in small.stderr
    assert "Traceback" not in without.stderr + small.stderr and not backing.exists()
