"""Nothing the demo starts outlives it: signals become exceptions, leftovers are checked.

Everything the demo creates (PostgreSQL, the emulated disk's FUSE server, loop devices,
mounts, temporary directories) is entered on one ExitStack, whose callbacks run from
``finally`` in reverse order. SIGTERM and SIGHUP are turned into KeyboardInterrupt so
they unwind the same way as Ctrl-C (:func:`advisor.signals.interruptible`).
:func:`leftovers` lists anything still alive that belongs to a demo directory: it is
printed in the summary and checked by the tests. A demo killed with SIGKILL cannot clean
up after itself; the next demo does it (:func:`cleanup_stale`), guided by the ``owner.pid``
file each demo directory carries.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from advisor.disk.emulator.system import pid_alive


def _mounts() -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 2:
            rows.append((tail[1], fields[4].replace("\\040", " "), tail[0]))
    return rows


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def leftovers(root: Path, *, extra_pids: tuple[int, ...] = ()) -> list[str]:
    """What is still alive of a demo whose files were under *root* (empty = clean).

    Checks mounts below *root*, loop devices backed by files below *root* or by an
    emulator image serving a backing file below it, processes whose command line names
    *root* (PostgreSQL's ``-D``, pgbench scripts, the emulator server) and *extra_pids*.
    """
    root_s = str(Path(root).resolve())
    found: list[str] = []
    fuse_mounts: list[str] = []
    for source, mountpoint, fstype in _mounts():
        if _under(mountpoint, root_s) or _under(source, root_s):
            found.append(f"mount {mountpoint} ({fstype})")
        if fstype.startswith("fuse") and _serves(mountpoint, root_s):
            found.append(f"FUSE mount {mountpoint}")
            fuse_mounts.append(mountpoint)
    for backing in Path("/sys/block").glob("loop*/loop/backing_file"):
        with contextlib.suppress(OSError):
            target = backing.read_text().strip().removesuffix(" (deleted)")
            if _under(target, root_s) or any(_under(target, m) for m in fuse_mounts):
                found.append(f"loop device /dev/{backing.parent.parent.name} -> {target}")
    me = os.getpid()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == me:
            continue
        with contextlib.suppress(OSError):
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            text = " ".join(a.decode(errors="replace") for a in argv if a)
            if root_s in text or int(proc.name) in extra_pids:
                found.append(f"process {proc.name}: {text[:120]}")
    return found


def _serves(mountpoint: str, root_s: str) -> bool:
    """True when the FUSE mount at *mountpoint* is an emulator whose backing file is under *root*."""
    config = Path(mountpoint).parent / "config.json"
    with contextlib.suppress(OSError):
        return root_s in config.read_text()
    return False


OWNER_FILE = "owner.pid"


def claim(root: Path) -> None:
    """Record this process as the owner of the demo directory *root*."""
    (root / OWNER_FILE).write_text(f"{os.getpid()}\n")


def _stop_postmasters(root: Path) -> None:
    """Immediate shutdown (SIGQUIT) of servers whose data directory is under *root*."""
    for pidfile in root.rglob("postmaster.pid"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            pid = int(pidfile.read_text().splitlines()[0])
            if str(root) not in (Path(f"/proc/{pid}") / "cmdline").read_bytes().decode(errors="replace"):
                continue
            os.kill(pid, signal.SIGQUIT)
            deadline = time.monotonic() + 15
            while pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)


def cleanup_stale(parent: Path, prefix: str = "advisor-demo-") -> list[Path]:
    """Remove what demos killed with SIGKILL left under *parent*; returns the directories cleaned.

    A directory counts as stale when the process recorded in its ``owner.pid`` is gone:
    its PostgreSQL is shut down, its mounts unmounted, the emulators whose owner died are
    torn down (:func:`advisor.disk.emulator.system.cleanup_stale`) and the directory removed.
    """
    cleaned: list[Path] = []
    for root in sorted(Path(parent).glob(prefix + "*")):
        with contextlib.suppress(OSError, ValueError):
            owner = int((root / OWNER_FILE).read_text().strip())
            if pid_alive(owner):
                continue
            root = root.resolve()
            _stop_postmasters(root)
            for _, mountpoint, _ in reversed(_mounts()):
                if _under(mountpoint, str(root)):
                    subprocess.run(["umount", mountpoint], capture_output=True, check=False)
            if os.geteuid() == 0:
                from advisor.disk.emulator.system import cleanup_stale as emulators_cleanup

                emulators_cleanup()
            shutil.rmtree(root, ignore_errors=True)
            cleaned.append(root)
    return cleaned
