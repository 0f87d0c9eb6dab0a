"""System plumbing of the emulated disk: loop devices, mounts, the FUSE child, leftovers.

Every helper here undoes something the emulator did, and each is safe to call twice or on
something already gone, because cleanup runs from ``finally`` blocks after arbitrary
failures and again from :func:`cleanup_stale` after a killed process.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from advisor.errors import DeviceError

RUN_DIR = Path("/run/advisor-emulator")
IMAGE_NAME = "disk.img"
FS_TYPE = "fuse.advisor-emulator"


def run_tool(args: Sequence[str], *, timeout: float = 60.0) -> str:
    """Run a system tool; a failure becomes a one-line DeviceError naming the tool."""
    try:
        proc = subprocess.run(list(args), capture_output=True, text=True, check=False, timeout=timeout)
    except FileNotFoundError as exc:
        raise DeviceError(f"{args[0]} not found", hint="install util-linux and fuse3") from exc
    except subprocess.TimeoutExpired as exc:
        raise DeviceError(f"{args[0]} did not finish within {timeout:.0f} s") from exc
    if proc.returncode != 0:
        raise DeviceError(f"{' '.join(args)} failed: {proc.stderr.strip() or proc.returncode}")
    return proc.stdout


def mount_table() -> list[tuple[str, str, str]]:
    """(source, mountpoint, fstype) for every mount in this namespace."""
    rows: list[tuple[str, str, str]] = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        tail = right.split()
        if len(fields) >= 5 and len(tail) >= 2:
            rows.append((_unescape(tail[1]), _unescape(fields[4]), tail[0]))
    return rows


def _unescape(text: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def is_mounted(mountpoint: Path) -> bool:
    """True when *mountpoint* is a mount point right now."""
    target = str(mountpoint)
    return any(mp == target for _, mp, _ in mount_table())


def loops_backed_by(image: Path) -> list[str]:
    """Loop devices (``/dev/loopN``) whose backing file is *image*."""
    found: list[str] = []
    wanted = str(image)
    for backing_file in Path("/sys/block").glob("loop*/loop/backing_file"):
        try:
            target = backing_file.read_text().strip().removesuffix(" (deleted)")
        except OSError:
            continue
        if target == wanted:
            found.append(f"/dev/{backing_file.parent.parent.name}")
    return sorted(found)


def unmount_users_of(device: str) -> None:
    """Unmount file systems on *device* or its partitions (they live on the emulated disk)."""
    pattern = re.compile(re.escape(device) + r"(p\d+)?$")
    for source, mountpoint, _ in reversed(mount_table()):
        if pattern.match(source):
            _umount(mountpoint)


def _umount(mountpoint: str) -> None:
    for attempt in range(20):
        proc = subprocess.run(["umount", mountpoint], capture_output=True, text=True, check=False)
        if proc.returncode == 0 or "not mounted" in proc.stderr:
            return
        time.sleep(0.05 * (attempt + 1))
    subprocess.run(["umount", "-l", mountpoint], capture_output=True, check=False)


def detach_loop(device: str) -> None:
    """``losetup -d`` with retries (a just-closed partition can still hold the device)."""
    for attempt in range(40):
        proc = subprocess.run(["losetup", "-d", device], capture_output=True, text=True, check=False)
        if proc.returncode == 0 or "No such device" in proc.stderr or "not a block device" in proc.stderr:
            break
        time.sleep(0.05 * (attempt + 1))
    # Detach is asynchronous when the device was still open: wait until the kernel lets go.
    name = os.path.basename(device)
    deadline = time.monotonic() + 10
    while Path(f"/sys/block/{name}/loop/backing_file").exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def unmount_fuse(mountpoint: Path) -> None:
    """``fusermount3 -u``, retried; lazily as the last resort so nothing stays mounted."""
    for attempt in range(30):
        if not is_mounted(mountpoint):
            return
        subprocess.run(["fusermount3", "-u", "-q", str(mountpoint)], capture_output=True, check=False)
        if not is_mounted(mountpoint):
            return
        time.sleep(0.05 * (attempt + 1))
    subprocess.run(["fusermount3", "-u", "-z", "-q", str(mountpoint)], capture_output=True, check=False)


def stop_process(proc: subprocess.Popen[Any], *, grace_s: float = 10.0, term_grace_s: float = 5.0) -> None:
    """Give *proc* *grace_s* to leave by itself (the FUSE child after unmount), then SIGTERM and
    *term_grace_s* to clean up after itself, then SIGKILL."""
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig)
        try:
            proc.wait(timeout=grace_s if sig is None else term_grace_s)
            return
        except subprocess.TimeoutExpired:
            continue


def _pid_is_server(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"advisor.disk.emulator.server" in cmdline


def pid_alive(pid: int) -> bool:
    """Whether process *pid* exists (one we may not signal counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def process_identity(pid: int) -> str | None:
    """``"PID STARTTIME"``: a pid plus its start time (clock ticks), so a reused pid differs."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat_line.rsplit(")", 1)[-1].split()
    return f"{pid} {fields[19]}" if len(fields) > 19 else None


def _owner_alive(owner_file: Path) -> bool:
    try:
        recorded = owner_file.read_text().strip()
    except OSError:
        return False
    pid = _read_pid(owner_file)
    if pid is None:
        return False
    current = process_identity(pid)
    if current is None:
        return False
    return " " not in recorded or current == recorded  # old files hold the pid alone


def teardown_dir(private_dir: Path, server_pid: int | None = None) -> None:
    """Undo everything an emulator left in *private_dir*: mounts, loops, FUSE, the child."""
    mountpoint = private_dir / "mnt"
    image = mountpoint / IMAGE_NAME
    for device in loops_backed_by(image):
        unmount_users_of(device)
        detach_loop(device)
    unmount_fuse(mountpoint)
    pid = server_pid if server_pid is not None else _read_pid(private_dir / "server.pid")
    if pid is not None and _pid_is_server(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while pid_alive(pid) and _pid_is_server(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _pid_is_server(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    if is_mounted(mountpoint):  # a killed server leaves a dead mount ("transport endpoint ...")
        subprocess.run(["fusermount3", "-u", "-z", "-q", str(mountpoint)], capture_output=True, check=False)
    for leftover in ("server.pid", "owner.pid", "server.log", "config.json"):
        with contextlib.suppress(OSError):
            (private_dir / leftover).unlink()
    for directory in (mountpoint, private_dir):
        with contextlib.suppress(OSError):
            directory.rmdir()


def cleanup_stale(run_dir: Path = RUN_DIR) -> list[Path]:
    """Tear down emulators whose supervising process is gone; returns what was cleaned.

    A killed ``advisor disk emulate`` (or a test killed by a timeout) cannot run its own
    cleanup; its private directory records the owner and server pids, so the next run
    can detach the loop device, unmount and stop the orphaned FUSE server.
    """
    cleaned: list[Path] = []
    if not run_dir.is_dir():
        return cleaned
    for private_dir in sorted(run_dir.glob("emu-*")):
        if _owner_alive(private_dir / "owner.pid"):
            continue
        try:
            if not (private_dir / "owner.pid").exists() and time.time() - private_dir.stat().st_mtime < 60:
                continue  # being set up right now by another process
        except OSError:
            continue
        teardown_dir(private_dir)
        cleaned.append(private_dir)
    return cleaned
