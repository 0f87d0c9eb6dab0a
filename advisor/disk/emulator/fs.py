"""The FUSE file system of the emulated disk: one image file whose IO takes model time.

The mount holds three files:

* ``disk.img`` — the emulated disk. Reads and writes really move bytes to and from the
  backing file, but each reply waits for the :class:`~advisor.disk.emulator.actuator.Actuator`.
  ``fsync`` (what the loop driver sends for a block-layer flush or FUA write) is a
  ``flush`` request to the model: with a volatile write cache it waits for the media, with
  a lying one it returns at once. FUSE ``flush`` is only ``close()`` and costs nothing.
  ``fallocate`` (discard / write-zeroes from the loop driver) is passed through untimed:
  spinning disks have no discard and the file systems here only use it at mkfs time.
* ``stats.json`` — counters of what the actuator served, read by ``EmulatedDisk.stats()``.
* ``control`` — a JSON object written by the supervising process: ``passthrough`` (serve
  without model time), ``trace`` (record arrival and reply times of reads, listed in
  ``stats.json``), ``io_trace`` (true: start recording every request of the run that follows
  with the modelled disk's time for it; false: stop, keeping the records in ``stats.json``
  as ``io_trace``), ``inbound`` / ``outbound`` (the measured path overhead, see
  :mod:`advisor.disk.emulator.calibrate`) and ``reset_stats``.

Why mfusepy (ctypes, high-level libfuse 3 API): it is maintained, already a dependency,
needs no C build, runs each request on its own libfuse worker thread (so queue depth > 1
reaches the actuator), and exposes ``fuse_file_info`` so ``direct_io`` can be set per open.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import stat
import threading
import time
from typing import Any

import mfusepy as fuse

from advisor.disk.emulator.actuator import Actuator, ActuatorStats

IMAGE = "/disk.img"
STATS = "/stats.json"
CONTROL = "/control"
_FILES = {IMAGE: 1, STATS: 2, CONTROL: 3}
MAX_IN_FLIGHT = 64  # requests the kernel may have outstanding; libfuse runs as many threads
MAX_IO_TRACE = 200_000  # records kept by one io_trace (about 16 MB of stats.json); later ones are counted

_libc = ctypes.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]


class _FuseBuf(ctypes.Structure):
    """``struct fuse_buf`` of libfuse 3."""

    _fields_ = [("size", ctypes.c_size_t), ("flags", ctypes.c_int), ("mem", ctypes.c_void_p),
                ("fd", ctypes.c_int), ("pos", ctypes.c_int64)]


class _FuseBufvec(ctypes.Structure):
    """``struct fuse_bufvec`` with its one inline ``fuse_buf`` (libfuse frees it with free())."""

    _fields_ = [("count", ctypes.c_size_t), ("idx", ctypes.c_size_t), ("off", ctypes.c_size_t),
                ("buf", _FuseBuf * 1)]


_libfuse = ctypes.CDLL(getattr(fuse, "_libfuse_path", None) or "libfuse3.so.3")
_libfuse.fuse_buf_copy.restype = ctypes.c_ssize_t
_libfuse.fuse_buf_copy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
_libfuse.fuse_buf_size.restype = ctypes.c_size_t
_libfuse.fuse_buf_size.argtypes = [ctypes.c_void_p]
FUSE_BUF_IS_FD = 1 << 1
FUSE_BUF_FD_SEEK = 1 << 2


def _malloc_bufvec(data_size: int) -> tuple[int, int]:
    """A malloc'ed one-buffer bufvec and its malloc'ed data area (addresses); libfuse frees both."""
    vec = _libc.malloc(ctypes.sizeof(_FuseBufvec))
    mem = _libc.malloc(max(1, data_size))
    if not vec or not mem:
        raise fuse.FuseOSError(errno.ENOMEM)
    bufvec = _FuseBufvec.from_address(vec)
    bufvec.count, bufvec.idx, bufvec.off = 1, 0, 0
    bufvec.buf[0].size, bufvec.buf[0].flags, bufvec.buf[0].mem = data_size, 0, mem
    bufvec.buf[0].fd, bufvec.buf[0].pos = -1, 0
    return vec, mem


class EmulatorFS(fuse.Operations):  # type: ignore[misc]
    """mfusepy operations for the emulated disk (see the module docstring)."""

    use_ns = True

    def __init__(self, actuator: Actuator, backing_fd: int, size_bytes: int, info: dict[str, Any]) -> None:
        self.actuator = actuator
        self.backing_fd = backing_fd
        self.size_bytes = size_bytes
        self.info = info  # static description merged into stats.json
        self.counters = {"fsync": 0, "close_flush": 0, "fallocate": 0, "opens": 0, "backing_stalls": 0}
        self._lock = threading.Lock()
        self._snapshots: dict[int, bytes] = {}
        self._next_fh = 16
        self._mtime_ns = time.time_ns()
        self.trace: list[tuple[int, int, float, float]] | None = None  # reads seen while calibrating
        # Every request while io_trace is on: (op, offset, length, arrived, replied, model_s),
        # arrived/replied real monotonic seconds at this server, model_s the real seconds the
        # modelled disk took (queueing for the head included): the rest of the reader's wait
        # is the host's.
        self.io_trace: list[tuple[str, int, int, float, float, float]] = []
        self.io_trace_on = False
        self.io_trace_dropped = 0

    def init_with_config(self, conn: Any, config: Any) -> None:
        """Let the kernel keep a deep queue of async direct IO in flight (default 12)."""
        if conn is not None:
            conn.max_background = MAX_IN_FLIGHT
            conn.congestion_threshold = MAX_IN_FLIGHT * 3 // 4

    # -- metadata ------------------------------------------------------------------------
    def getattr(self, path: str, fh: Any = None) -> dict[str, Any]:
        """Attributes: a root directory and three regular files."""
        times = {"st_atime": self._mtime_ns, "st_mtime": self._mtime_ns, "st_ctime": self._mtime_ns}
        if path == "/":
            return {"st_mode": stat.S_IFDIR | 0o700, "st_nlink": 2, **times}
        if path == IMAGE:
            return {"st_mode": stat.S_IFREG | 0o600, "st_nlink": 1, "st_size": self.size_bytes,
                    "st_blksize": 4096, "st_blocks": self.size_bytes // 512, **times}
        if path in (STATS, CONTROL):
            mode = 0o400 if path == STATS else 0o200
            return {"st_mode": stat.S_IFREG | mode, "st_nlink": 1, "st_size": 0, **times}
        raise fuse.FuseOSError(errno.ENOENT)

    def readdir(self, path: str, fh: Any) -> list[str]:
        """List the three files."""
        if path != "/":
            raise fuse.FuseOSError(errno.ENOTDIR)
        return [".", "..", *(name.lstrip("/") for name in _FILES)]

    def statfs(self, path: str) -> dict[str, int]:
        """Report the image size so ``df`` on the mount says something sensible."""
        blocks = self.size_bytes // 4096
        return {"f_bsize": 4096, "f_frsize": 4096, "f_blocks": blocks, "f_bfree": 0, "f_bavail": 0,
                "f_files": len(_FILES), "f_ffree": 0, "f_namemax": 255}

    def truncate(self, path: str, length: int, fh: Any = None) -> int:
        """The disk has a fixed size: only a no-op truncate to that size is allowed."""
        if path == IMAGE and length == self.size_bytes:
            return 0
        if path == CONTROL:
            return 0
        raise fuse.FuseOSError(errno.EPERM)

    # -- open / close --------------------------------------------------------------------
    def open(self, path: str, fi: Any) -> int:
        """Give each open a handle; bypass the page cache on every path but O_DIRECT's own."""
        kind = _FILES.get(path)
        if kind is None:
            raise fuse.FuseOSError(errno.ENOENT)
        with self._lock:
            self.counters["opens"] += 1
            fh = self._next_fh
            self._next_fh += 1
            if kind == 2:
                self._snapshots[fh] = self._stats_bytes()
        # O_DIRECT opens (the loop driver with --direct-io=on) already skip the cache; any
        # other open gets FOPEN_DIRECT_IO so no read is answered from memory, untimed.
        fi.direct_io = 1 if (kind != 1 or not fi.flags & os.O_DIRECT) else 0
        fi.keep_cache = 0
        fi.fh = fh * 4 + kind
        return 0

    def release(self, path: str, fi: Any) -> int:
        """Forget a stats snapshot."""
        with self._lock:
            self._snapshots.pop(fi.fh // 4, None)
        return 0

    def flush(self, path: str, fi: Any) -> int:
        """``close()``: not a durability request, so no model time."""
        with self._lock:
            self.counters["close_flush"] += 1
        return 0

    # -- data ----------------------------------------------------------------------------
    def read_buf(self, path: str, bufpp: Any, size: int, offset: int, fi: Any) -> int:
        """Read into a buffer libfuse sends and frees, reply when the model finished the read.

        ``read_buf`` instead of ``read``: the bytes go from the backing file straight into
        a malloc'ed buffer (one copy, without the GIL, while the model time runs) and
        libfuse writes that buffer to the kernel, so no Python bytes object is made and
        copied again after the reply time.
        """
        kind = fi.fh % 4
        if kind == 2:
            data = self._snapshots.get(fi.fh // 4, b"")[offset : offset + size]
            vec, mem = _malloc_bufvec(len(data))
            ctypes.memmove(mem, data, len(data))
        elif kind == 1:
            size = max(0, min(size, self.size_bytes - offset))
            arrived = time.monotonic()
            vec, mem = _malloc_bufvec(size)
            if size:
                submitted, finish = self.actuator.submit_timed("read", offset, size, arrived)
                started = time.monotonic()
                got = os.preadv(self.backing_fd, [(ctypes.c_char * size).from_address(mem)], offset)
                self._note_backing_time(time.monotonic() - started)
                _FuseBufvec.from_address(vec).buf[0].size = got
                self.actuator.wait_release("read", size, finish)
                self._note_io("read", offset, size, arrived, finish - submitted)
                if self.trace is not None and len(self.trace) < 4096:
                    self.trace.append((offset, size, arrived, time.monotonic()))
        else:
            raise fuse.FuseOSError(errno.EBADF)
        ctypes.cast(bufpp, ctypes.POINTER(ctypes.c_void_p))[0] = vec
        return 0

    def write_buf(self, path: str, src: Any, offset: int, fi: Any) -> int:
        """Write to the backing file, reply when the model has the write (media or cache).

        ``write_buf`` instead of ``write``: libfuse copies the request's data into the
        backing file itself (``fuse_buf_copy``), once the model has scheduled the write,
        with no Python bytes object in between.
        """
        arrived = time.monotonic()
        kind = fi.fh % 4
        src_address = ctypes.cast(src, ctypes.c_void_p).value
        size = int(_libfuse.fuse_buf_size(src_address))
        if kind == 3:
            data = ctypes.create_string_buffer(size)
            self._copy(src_address, -1, ctypes.addressof(data), size, 0)
            self._control(data.raw)
            return size
        if kind != 1:
            raise fuse.FuseOSError(errno.EBADF)
        if offset + size > self.size_bytes:
            raise fuse.FuseOSError(errno.ENOSPC)
        submitted, finish = self.actuator.submit_timed("write", offset, size, arrived)
        started = time.monotonic()
        written = self._copy(src_address, self.backing_fd, None, size, offset)
        self._note_backing_time(time.monotonic() - started)
        self.actuator.wait_release("write", size, finish)
        self._note_io("write", offset, size, arrived, finish - submitted)
        return written

    def _note_io(self, op: str, offset: int, size: int, arrived: float, model_virtual_s: float) -> None:
        """Record one served request while ``io_trace`` is on (see ``__init__``)."""
        if not self.io_trace_on:
            return
        record = (op, offset, size, arrived, time.monotonic(), model_virtual_s / self.actuator.scale)
        with self._lock:
            if len(self.io_trace) < MAX_IO_TRACE:
                self.io_trace.append(record)
            else:
                self.io_trace_dropped += 1

    def _note_backing_time(self, seconds: float) -> None:
        """Count backing-file accesses slow enough (> 1 ms) to distort the model's timing."""
        if seconds > 1e-3:
            with self._lock:
                self.counters["backing_stalls"] += 1

    @staticmethod
    def _copy(src_address: int | None, fd: int, mem: int | None, size: int, offset: int) -> int:
        """fuse_buf_copy from the request's bufvec into a file descriptor or memory."""
        dst = _FuseBufvec()
        dst.count, dst.idx, dst.off = 1, 0, 0
        dst.buf[0].size = size
        if mem is None:
            dst.buf[0].flags, dst.buf[0].fd, dst.buf[0].pos = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK, fd, offset
        else:
            dst.buf[0].flags, dst.buf[0].mem, dst.buf[0].fd = 0, mem, -1
        copied = int(_libfuse.fuse_buf_copy(ctypes.addressof(dst), src_address, 0))
        if copied < 0:
            raise fuse.FuseOSError(-copied)
        return copied

    def fsync(self, path: str, datasync: int, fi: Any) -> int:
        """A cache flush from the block layer: the model decides how long it takes."""
        arrived = time.monotonic()
        with self._lock:
            self.counters["fsync"] += 1
        submitted, finish = self.actuator.submit_timed("flush", 0, 0, arrived)
        self.actuator.wait_release("flush", 0, finish)
        self._note_io("flush", 0, 0, arrived, finish - submitted)
        return 0

    def fallocate(self, path: str, mode: int, offset: int, size: int, fi: Any) -> int:
        """Discard / write-zeroes: applied to the backing file, untimed (see module doc)."""
        if fi.fh % 4 != 1:
            raise fuse.FuseOSError(errno.EBADF)
        if _libc.fallocate(self.backing_fd, mode, offset, size) != 0:
            raise fuse.FuseOSError(ctypes.get_errno())
        with self._lock:
            self.counters["fallocate"] += 1
        return 0

    def destroy(self, path: str) -> None:
        """Unmounted: stop the actuator so no thread is left."""
        self.actuator.stop()

    # -- stats and control ---------------------------------------------------------------
    def _stats_bytes(self) -> bytes:
        actuator = self.actuator
        body = {
            **self.info,
            "scale": actuator.scale,
            "path_overhead_s": actuator.path_overhead_s,
            "inbound_s": list(actuator.inbound),
            "outbound_s": list(actuator.outbound),
            "trace": list(self.trace or ()),
            "io_trace": list(self.io_trace),
            "io_trace_on": self.io_trace_on,
            "io_trace_dropped": self.io_trace_dropped,
            "passthrough": actuator.passthrough,
            "virtual_now_s": actuator.now_s(),
            **actuator.stats.as_dict(),
            **self.counters,
        }
        return (json.dumps(body, sort_keys=True) + "\n").encode()

    def _control(self, data: bytes) -> None:
        try:
            command = json.loads(data.decode())
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise fuse.FuseOSError(errno.EINVAL) from exc
        if not isinstance(command, dict):
            raise fuse.FuseOSError(errno.EINVAL)
        if command.get("reset_stats"):
            self.actuator.stats = ActuatorStats()
            with self._lock:
                self.counters = dict.fromkeys(self.counters, 0)
        if "passthrough" in command:
            self.actuator.passthrough = bool(command["passthrough"])
        if "hold_s" in command:
            hold = float(command["hold_s"])
            if not 0 <= hold < 0.1:
                raise fuse.FuseOSError(errno.EINVAL)
            self.actuator.hold_s = hold
        if "trace" in command:
            self.trace = [] if command["trace"] else None
        if "io_trace" in command:
            with self._lock:
                if command["io_trace"]:
                    self.io_trace, self.io_trace_dropped = [], 0
                self.io_trace_on = bool(command["io_trace"])
        for key in ("inbound", "outbound"):
            if key in command:
                base, per_byte = (float(v) for v in command[key])
                if not (0 <= base < 0.1 and 0 <= per_byte < 1e-6):
                    raise fuse.FuseOSError(errno.EINVAL)
                setattr(self.actuator, key, (base, per_byte))
