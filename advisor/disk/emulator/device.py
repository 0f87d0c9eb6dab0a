"""The emulated HDD: a real block device whose every IO takes the time the disk model says.

``emulated_disk`` mounts a one-file FUSE file system (served by a child process, see
``emulator_server``) whose ``disk.img`` is backed by a sparse file, attaches it with
``losetup --direct-io=on`` (so the page cache cannot answer reads for free) and yields the
loop device. Everything on top is real: partition it, make ext4, run PostgreSQL, bench it.

Safety: the backing file is the only thing written, and it must be one the user named:
a new path (created here, sparse, and tagged with an extended attribute), a file tagged
by an earlier run, or, with ``reuse=True``, any existing file or block device.

Cleanup is exhaustive and runs even when the body raised: file systems still mounted from
the device are unmounted, the loop device detached, the FUSE mount unmounted, the child
stopped and the private directory under ``/run/advisor-emulator`` removed.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.disk.emulator import system as sysx
from advisor.disk.emulator.calibrate import PathOverhead, measure_path_overhead
from advisor.disk.emulator.smr import SmrSpec
from advisor.disk.emulator.system import cleanup_stale
from advisor.disk.emulator.timing import TimingSpec, timing_spec

__all__ = ["EmulatedDisk", "PathOverhead", "SmrSpec", "TimingSpec", "cleanup_stale", "emulated_disk",
           "prepare_backing"]
from advisor.errors import BadInput, DeviceError, UnsafeTarget
from advisor.units import MIB

CACHE_MODES = ("off", "volatile", "lying")
OWNER_XATTR = "user.advisor.emulator"
SECTOR = 512


@dataclass(frozen=True)
class EmulatedDisk:
    """A live emulated disk (valid inside the ``emulated_disk`` context)."""

    device: str  # "/dev/loop5"
    model: Any  # the DiskModel (None for a bare timing spec)
    scale: float
    mountpoint: Path  # the private FUSE mount holding disk.img
    backing: Path
    size_bytes: int
    cache: str
    overhead: PathOverhead | None  # kernel + loop + FUSE + Python time, compensated (None: not)
    server_pid: int

    @property
    def path_overhead_s(self) -> float:
        """Real seconds the emulator's path adds to a 4 KiB read (0 when not compensated)."""
        return self.overhead.round_trip_s() if self.overhead else 0.0

    def stats(self) -> dict[str, Any]:
        """Counters of the requests the actuator served (reads, writes, flushes, bytes ...)."""
        data: dict[str, Any] = json.loads((self.mountpoint / "stats.json").read_bytes())
        return data

    def partition(self, number: int) -> str:
        """Device node of partition *number* (``/dev/loop5p1``), once a table was written."""
        return f"{self.device}p{number}"

    def rescan_partitions(self, timeout_s: float = 10.0) -> list[str]:
        """Make the kernel see the partition table just written; returns the partition nodes.

        ``sfdisk``'s own re-read does not always reach a loop device here, so this asks
        ``partx`` to add or update the partitions and waits for their device nodes.
        """
        deadline = time.monotonic() + timeout_s
        name = os.path.basename(self.device)
        while True:
            for action in ("-u", "-a"):
                subprocess.run(["partx", action, self.device], capture_output=True, check=False)
            numbers = sorted(int(p.name[len(name) + 1 :]) for p in Path(f"/sys/block/{name}").glob(f"{name}p*"))
            nodes = [self.partition(k) for k in numbers]
            if numbers and all(os.path.exists(node) for node in nodes):
                return nodes
            if time.monotonic() > deadline:
                raise DeviceError(f"no partitions appeared on {self.device}", hint="write a partition table first")
            time.sleep(0.1)


def prepare_backing(backing: Path, size_bytes: int, *, reuse: bool) -> bool:
    """Make *backing* ready to hold *size_bytes*; True when this call created it.

    Refuses (UnsafeTarget) an existing block device or a file that no earlier emulator
    run created, unless *reuse*: the emulator never writes anywhere the user did not name.
    """
    try:
        st = os.stat(backing)
    except FileNotFoundError:
        if not backing.parent.is_dir():
            raise BadInput(f"directory of backing file {backing} does not exist") from None
        fd = os.open(backing, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            os.ftruncate(fd, size_bytes)
            with contextlib.suppress(OSError):
                os.setxattr(fd, OWNER_XATTR, b"1")
        finally:
            os.close(fd)
        return True
    if stat.S_ISBLK(st.st_mode):
        if not reuse:
            raise UnsafeTarget(f"{backing} is a block device", hint="pass --reuse to use it as the backing store")
        with open(backing, "rb") as handle:
            device_size = handle.seek(0, os.SEEK_END)
        if device_size < size_bytes:
            raise BadInput(f"{backing} holds {device_size} bytes, less than --size {size_bytes}")
        return False
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"backing {backing} is neither a regular file nor a block device")
    ours = False
    with contextlib.suppress(OSError):
        ours = os.getxattr(backing, OWNER_XATTR) == b"1"
    if not (ours or reuse):
        raise UnsafeTarget(f"{backing} exists and was not created by the emulator",
                           hint="pass --reuse to use it, or name a new path")
    if st.st_size < size_bytes:
        os.truncate(backing, size_bytes)
    return False


def _private_dir() -> Path:
    sysx.RUN_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    private = sysx.RUN_DIR / f"emu-{os.getpid()}-{secrets.token_hex(4)}"
    private.mkdir(mode=0o700)
    (private / "mnt").mkdir(mode=0o700)
    (private / "owner.pid").write_text(f"{sysx.process_identity(os.getpid()) or os.getpid()}\n")
    return private


def _start_server(private: Path, config: dict[str, Any]) -> subprocess.Popen[bytes]:
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    (private / "config.json").write_text(json.dumps(config))
    with open(private / "server.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "advisor.disk.emulator.server", json.dumps(config)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, env=env,
        )
    (private / "server.pid").write_text(f"{proc.pid}\n")
    return proc


def _wait_mounted(private: Path, proc: subprocess.Popen[bytes], timeout_s: float = 30.0) -> None:
    mountpoint = private / "mnt"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log = (private / "server.log").read_text(errors="replace").strip().splitlines()
            raise DeviceError(f"emulator server exited ({proc.returncode}): {log[-1] if log else 'no output'}")
        if sysx.is_mounted(mountpoint) and (mountpoint / sysx.IMAGE_NAME).exists():
            return
        time.sleep(0.02)
    raise DeviceError(f"emulator FUSE mount did not appear within {timeout_s:.0f} s")


@contextmanager
def _exclusive(backing: Path) -> Iterator[None]:
    """Hold an exclusive lock on the backing store: two emulators on one file would corrupt it."""
    import fcntl

    fd = os.open(backing, os.O_RDONLY | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UnsafeTarget(f"{backing} is in use by another emulated disk") from None
        yield
    finally:
        os.close(fd)


def _mark_rotational(device: str) -> None:
    """Loop devices say "not rotational"; this one spins, and tools (and the bench) ask."""
    with contextlib.suppress(OSError):
        Path(f"/sys/block/{os.path.basename(device)}/queue/rotational").write_text("1\n")


def _stop_all(processes: list[subprocess.Popen[bytes]]) -> None:
    for proc in processes:
        sysx.stop_process(proc)


@contextmanager
def emulated_disk(
    preset_or_model: Any,
    size_bytes: int,
    backing: Path,
    *,
    scale: float = 1.0,
    cache: str = "off",
    partscan: bool = True,
    reuse: bool = False,
    seed: int = 0,
    compensate: bool = True,
    smr: SmrSpec | None = None,
) -> Iterator[EmulatedDisk]:
    """Attach an emulated HDD as a loop device for the duration of the ``with`` block.

    *preset_or_model* is a preset name, a ``DiskModel`` or a :class:`TimingSpec`.
    *compensate* measures the emulator's own path overhead and takes it off every request
    (see :mod:`advisor.disk.emulator.calibrate`); turn it off to see the raw emulator.
    *smr* puts a drive-managed SMR media cache in front of the model (:mod:`.smr`).
    """
    if cache not in CACHE_MODES:
        raise BadInput(f"unknown cache mode {cache!r}", hint=f"use one of {', '.join(CACHE_MODES)}")
    if not scale > 0:
        raise BadInput("scale must be positive")
    if size_bytes < MIB or size_bytes % SECTOR:
        raise BadInput("size must be at least 1 MiB and a multiple of 512 bytes")
    spec: TimingSpec = timing_spec(preset_or_model, cache=cache, seed=seed, size_bytes=size_bytes,
                                   smr=smr.as_kwargs() if smr else None)
    backing = Path(backing).absolute()
    cleanup_stale()
    created = prepare_backing(backing, size_bytes, reuse=reuse)
    ready = False
    with ExitStack() as stack:
        if created:  # a backing file made here is removed again if the disk never came up
            stack.callback(lambda: None if ready else backing.unlink(missing_ok=True))
        stack.enter_context(_exclusive(backing))
        private = _private_dir()
        proc_box: list[subprocess.Popen[bytes]] = []
        stack.callback(lambda: sysx.teardown_dir(private, proc_box[0].pid if proc_box else None))
        stack.callback(_stop_all, proc_box)
        mountpoint = private / "mnt"
        config = {"mountpoint": str(mountpoint), "backing": str(backing), "size_bytes": size_bytes,
                  "scale": scale, "timing": spec.factory, "timing_kwargs": spec.kwargs}
        proc = _start_server(private, config)
        proc_box.append(proc)
        stack.callback(sysx.unmount_fuse, mountpoint)
        _wait_mounted(private, proc)
        args = ["losetup", "--find", "--show", "--direct-io=on"]
        if partscan:
            args.append("--partscan")
        device = sysx.run_tool([*args, str(mountpoint / sysx.IMAGE_NAME)]).strip()
        stack.callback(sysx.detach_loop, device)
        stack.callback(sysx.unmount_users_of, device)
        _mark_rotational(device)
        overhead = measure_path_overhead(device, mountpoint, size_bytes) if compensate else None
        ready = True
        yield EmulatedDisk(device=device, model=spec.model, scale=scale, mountpoint=mountpoint, backing=backing,
                           size_bytes=size_bytes, cache=cache, overhead=overhead, server_pid=proc.pid)
