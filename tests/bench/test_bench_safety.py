"""Safety of ``advisor bench``: no writes to devices, no clobbering, clear O_DIRECT errors, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from advisor.errors import ExitCode
from advisor.model.disk import DISK_PROFILE_FORMAT_VERSION, DiskProfile
from advisor.model.jsonio import read_document
from tests.bench.cli_support import require_root
from tests.helpers.cli import one_error_line, run_advisor, signalled
from tests.helpers.loopdisk import no_leaks, scratch_disk


@pytest.mark.root
def test_commit_test_on_a_mounted_device_is_refused(tmp_path: Path) -> None:
    require_root()
    with scratch_disk(64 << 20, [("data", 0.9)], image_dir=tmp_path) as disk:
        part = disk.partitions[0]
        before = (part.mountpoint / "canary").write_bytes(b"x" * 4096) if part.mountpoint else None
        for target in (disk.device, part.device):
            result = run_advisor("bench", target, "--tests", "commit", "--quick")
            line = one_error_line(result)
            assert result.returncode == ExitCode.UNSAFE, line
            assert f"mounted at {part.mountpoint}" in line and "--scratch-file" in line
        assert before == 4096 and part.mountpoint is not None
        assert (part.mountpoint / "canary").read_bytes() == b"x" * 4096
    assert no_leaks(tmp_path)


@pytest.mark.root
def test_commit_test_on_an_unmounted_device_is_refused(tmp_path: Path) -> None:
    require_root()
    with scratch_disk(64 << 20, [("raw", 0.9)], fs=None, image_dir=tmp_path) as disk:
        for tests in ("zones,commit", "smr"):
            result = run_advisor("bench", disk.partitions[0].device, "--tests", tests, "--quick")
            assert result.returncode == ExitCode.UNSAFE
            assert "never writes to devices" in one_error_line(result)
            assert result.stdout == ""
    assert no_leaks(tmp_path)


@pytest.mark.parametrize("test", ["commit", "smr"])
def test_write_test_on_a_file_not_named_as_scratch_is_refused(tmp_path: Path, test: str) -> None:
    datafile = tmp_path / "datafile"
    datafile.write_bytes(os.urandom(1 << 20) * 32)
    before = datafile.read_bytes()
    result = run_advisor("bench", str(datafile), "--tests", test)
    assert result.returncode == ExitCode.UNSAFE
    line = one_error_line(result)
    assert f"refusing the {test} test" in line and "not named as scratch" in line
    assert datafile.read_bytes() == before


def test_existing_scratch_path_is_not_overwritten(tmp_path: Path) -> None:
    precious = tmp_path / "precious.dat"
    precious.write_bytes(b"keep me")
    result = run_advisor("bench", "--scratch-file", str(precious), "--size", "32M", "--tests", "commit")
    assert result.returncode == ExitCode.UNSAFE
    assert "--reuse-scratch" in one_error_line(result)
    assert precious.read_bytes() == b"keep me"


def test_scratch_file_on_tmpfs_explains_o_direct(tmp_path: Path) -> None:
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no tmpfs at /dev/shm on this machine")
    path = Path("/dev/shm") / f"advisor-bench-{uuid.uuid4().hex}"
    try:
        result = run_advisor("bench", "--scratch-file", str(path), "--size", "32M", "--quick")
        line = one_error_line(result)
        assert result.returncode == ExitCode.DEVICE
        assert "O_DIRECT" in line and "tmpfs" in line and "ext4" in line
        assert not path.exists(), "the refused scratch file must not be left behind"
    finally:
        if path.exists():
            path.unlink()


def test_missing_target_and_double_target_are_usage_errors(tmp_path: Path) -> None:
    assert run_advisor("bench", str(tmp_path / "nope")).returncode == ExitCode.BAD_INPUT
    both = run_advisor("bench", "/dev/null", "--scratch-file", str(tmp_path / "s"))
    assert both.returncode == ExitCode.BAD_INPUT and "exactly one target" in one_error_line(both)
    assert not (tmp_path / "s").exists()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["builtin", "fio"])
def test_ctrl_c_keeps_a_valid_partial_profile(tmp_path: Path, engine: str) -> None:
    scratch, output = tmp_path / "scratch.dat", tmp_path / "disk.json"
    args = ["bench", "--scratch-file", str(scratch), "--size", "64M", "--engine", engine,
            "--tests", "band,stroke,qd", "--budget-per-test", "12", "-o", str(output)]

    def ready(proc: subprocess.Popen[str]) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (scratch.exists() and scratch.stat().st_size >= 64 << 20):
            time.sleep(0.1)
        time.sleep(6.0)  # the band test (4 s a run) has finished at least one run

    code, err = signalled(args, ready, signal.SIGINT)
    assert code == ExitCode.INTERRUPTED, err
    assert "Traceback" not in err and "partial profile" in err
    profile = read_document(output, "disk-profile", DiskProfile, DISK_PROFILE_FORMAT_VERSION)
    assert profile.complete is False
    assert profile.band_iops.get("outer", 0) > 0
    assert profile.qd_iops == {}  # never reached
    assert any("incomplete" in warning for warning in profile.warnings)
    assert not scratch.exists(), "the scratch file is removed even on Ctrl-C"
    assert not list(tmp_path.glob(".*tmp*")), "no half-written temp file is left"


def _children(pid: int) -> list[int]:
    """Direct children of *pid*, from /proc (each thread lists the children it forked)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(child) for child in task.read_text().split()]
        except OSError:
            continue
    return found


@pytest.mark.slow
def test_sigterm_reaps_fio_removes_scratch_and_keeps_a_partial_profile(tmp_path: Path) -> None:
    scratch, output = tmp_path / "scratch.dat", tmp_path / "disk.json"
    args = ["bench", "--scratch-file", str(scratch), "--size", "64M", "--engine", "fio",
            "--tests", "band,stroke", "--budget-per-test", "6", "--runs", "1", "-o", str(output)]
    stroke_fio: list[int] = []

    def ready(proc: subprocess.Popen[str]) -> None:
        deadline = time.monotonic() + 40
        fio_pids: list[int] = []
        while time.monotonic() < deadline and not fio_pids:
            fio_pids = [c for c in _children(proc.pid) if Path(f"/proc/{c}/comm").read_text().strip() == "fio"]
            time.sleep(0.05)
        assert fio_pids, "fio never started"
        # the band run ends after about 6 s; the stroke run follows in a second fio
        while time.monotonic() < deadline and fio_pids[0] in _children(proc.pid):
            time.sleep(0.05)
        while time.monotonic() < deadline and not stroke_fio:
            stroke_fio.extend(_children(proc.pid))
            time.sleep(0.05)
        assert stroke_fio, "the second fio never started"
        time.sleep(0.5)

    code, err = signalled(args, ready, signal.SIGTERM)
    assert code == 143, err
    assert "Traceback" not in err and "partial profile" in err
    assert not any(Path(f"/proc/{pid}").exists() for pid in stroke_fio), "fio outlived the bench"
    assert not scratch.exists(), "the scratch file is removed on SIGTERM"
    profile = read_document(output, "disk-profile", DiskProfile, DISK_PROFILE_FORMAT_VERSION)
    assert profile.complete is False
    assert profile.band_iops.get("outer", 0) > 0, "the finished band test is kept"
    assert profile.full_stroke_iops is None, "the interrupted stroke test is not"


def test_fallocated_and_sparse_files_are_refused_with_the_fix(tmp_path: Path) -> None:
    fallocated, sparse = tmp_path / "fallocated.dat", tmp_path / "sparse.dat"
    subprocess.run(["fallocate", "-l", "32M", str(fallocated)], check=True)
    with sparse.open("wb") as handle:
        handle.write(os.urandom(1 << 20))  # 1 MiB written, then 31 MiB of hole
        handle.truncate(32 << 20)
    refused = run_advisor("bench", str(fallocated), "--tests", "stroke", "--engine", "builtin")
    line = one_error_line(refused)
    assert refused.returncode == ExitCode.BAD_INPUT
    assert "32 MiB unwritten (fallocate)" in line and f"--scratch-file {fallocated} --reuse-scratch --fill" in line
    holes = run_advisor("bench", str(sparse), "--tests", "stroke", "--engine", "builtin")
    assert holes.returncode == ExitCode.BAD_INPUT and "31 MiB of holes (sparse)" in one_error_line(holes)
    reused = run_advisor("bench", "--scratch-file", str(fallocated), "--reuse-scratch", "--size", "32M",
                     "--tests", "stroke", "--engine", "builtin")
    assert reused.returncode == ExitCode.BAD_INPUT and "add --fill" in one_error_line(reused)
    assert sparse.stat().st_size == 32 << 20 and fallocated.stat().st_size == 32 << 20


def test_fill_writes_a_reused_scratch_file_then_benches_it(tmp_path: Path) -> None:
    from advisor.bench.target import unwritten_parts

    scratch = tmp_path / "fallocated.dat"
    subprocess.run(["fallocate", "-l", "32M", str(scratch)], check=True)
    filled = run_advisor("bench", "--scratch-file", str(scratch), "--reuse-scratch", "--fill", "--size", "32M",
                     "--tests", "stroke", "--engine", "builtin", "--budget-per-test", "0.5", "--runs", "1",
                     "--format", "json")
    assert filled.returncode == 0, filled.stderr
    assert scratch.exists(), "a reused scratch file belongs to the user and stays"
    parts = unwritten_parts(str(scratch), 32 << 20)
    assert parts is not None and parts.total == 0


@pytest.mark.slow
def test_sigterm_while_the_scratch_file_is_written_removes_it(tmp_path: Path) -> None:
    scratch, output = tmp_path / "scratch.dat", tmp_path / "disk.json"
    args = ["bench", "--scratch-file", str(scratch), "--size", "1G", "--engine", "builtin", "--tests", "stroke",
            "-o", str(output)]

    def ready(proc: subprocess.Popen[str]) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (scratch.exists() and scratch.stat().st_size > 0):
            time.sleep(0.02)
        assert scratch.exists(), "the scratch file was never started"

    code, err = signalled(args, ready, signal.SIGTERM)
    assert code == 143, err
    assert "Traceback" not in err and "nothing written" in err
    assert not scratch.exists() and not output.exists()


@pytest.mark.root
def test_a_device_the_kernel_will_not_open_explains_why_and_names_a_scratch_file_on_it(tmp_path: Path) -> None:
    """On a VM or in a container ``advisor bench /dev/vda`` said only ``Operation not permitted``.

    A real refusal: a node of the loop partition with mode 000, opened by root without the
    capabilities that bypass file modes (as a sandbox's device rules refuse root).
    """
    require_root()
    import shutil
    import stat as stat_mod

    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed")
    with scratch_disk(64 << 20, [("data", 0.9)], image_dir=tmp_path / "img") as disk:
        part = disk.partitions[0]
        node = tmp_path / "locked-part"
        os.mknod(node, stat_mod.S_IFBLK | 0o000, os.stat(part.device).st_rdev)
        caps = "-dac_override,-dac_read_search"
        result = run_advisor("bench", str(node), "--quick", "--tests", "zones", env={"COLUMNS": "200"},
                             prefix=["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}"])
        line = one_error_line(result)
        assert result.returncode == ExitCode.DEVICE, line
        assert "may not read the device" in line and "--scratch-file" in line
        assert f"{part.mountpoint}/advisor.scratch" in line
    assert no_leaks(tmp_path / "img")


def test_a_piped_bench_says_each_test_as_it_starts_and_ends_with_a_summary(tmp_path: Path) -> None:
    """``bench --quick`` piped was silent for 44 s and ended with no word of its verdict."""
    result = run_advisor("bench", "--scratch-file", str(tmp_path / "s.scratch"), "--size", "64M", "--engine", "builtin",
                     "--tests", "zones,band", "--zones", "4", "--runs", "1", "--budget-per-test", "0.5",
                     "--format", "json", "-o", str(tmp_path / "p.json"))
    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert "advisor: bench: zones (1 runs)" in lines and "advisor: bench: band (1 runs)" in lines
    assert any(line.startswith("advisor: writing scratch file: ") for line in lines)
    assert lines[-1].startswith(f"advisor: bench of {tmp_path / 's.scratch'}: zones ") and "classified " in lines[-1]
