"""Queued random reads through Linux native AIO (``io_submit`` / ``io_getevents``).

Python threads cannot keep 32 reads in flight on a device that answers in half a
millisecond: each completion has to win the GIL back before its thread can issue the next
read, so the queue the device sees drains (measured: 0.46–0.49× fio at QD32 on a virtio
disk). Native AIO keeps the whole queue in the kernel, as fio's ``ioengine=libaio`` does,
and one thread reaps every completion of a call in one go.

The binding is python-libaio (ctypes over the system's ``libaio.so.1``); its low-level
module gives the kernel ABI structures. The hot loop never touches a ``ctypes`` object per
IO: the iocb array, the pointer array handed to ``io_submit`` and the event array filled by
``io_getevents`` are viewed as numpy arrays, so one batch of completions is accounted,
re-aimed and resubmitted with a handful of vector operations whatever its size.

Each slot has its own page-aligned 4 KiB-multiple buffer (O_DIRECT needs aligned memory)
and is bound to one region, so a job with several regions keeps ``depth`` reads in flight
in each, like the thread engine and like fio's one section per region.
"""

from __future__ import annotations

import ctypes
import errno
import mmap
import os
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from advisor.bench.engines import Job

#: How the reads of a job were issued; recorded in the profile (``DiskProfile.io_paths``).
PATH = "linux-aio"
_POLL_NS = 100_000_000  # io_getevents timeout: the stop event and the deadline are checked this often
_POOL = 1 << 16  # random fractions drawn at a time: one generator call per 65536 reads
SUBMIT_CHUNK = 4
"""Reads per ``io_submit``. One call for a whole batch of completions is one plug of the
block layer: the device gets the batch at once and answers it at once, so the queue runs in
lockstep (all in flight, then none). Four per call keep it flowing: at QD32 on this machine's
virtio disk, 57-65k IOPS with one call per batch against 72-91k with four per call (fio's
libaio, one per call: 99-112k), alternated in four rounds; on the emulated HDD no change."""


def _binding() -> ModuleType | None:
    """python-libaio's low-level module, or None when it or libaio.so.1 is missing."""
    try:
        from libaio import libaio as binding
    except (ImportError, OSError):
        return None
    module: ModuleType = binding
    return module


def aio_available() -> bool:
    """True when native AIO can be used (binding importable, ``io_setup`` allowed)."""
    binding = _binding()
    if binding is None:
        return False
    context = binding.io_context_t()
    try:
        binding.io_setup(1, ctypes.byref(context))
    except OSError:
        return False
    binding.io_destroy(context)
    return True


class AioUnavailable(Exception):
    """Native AIO cannot be set up now (``io_setup`` refused: aio-max-nr reached, seccomp)."""


@dataclass
class Reads:
    """Per-IO latencies (ns) of the counted reads and the span they cover."""

    latencies_ns: np.ndarray
    first_ns: int
    last_ns: int


class _Ring:
    """The iocbs, pointers, events and buffers of one job, with numpy views on them."""

    def __init__(self, binding: ModuleType, fd: int, slots: int, block: int) -> None:
        self.binding, self.slots = binding, slots
        self.memory = mmap.mmap(-1, slots * block)
        self._anchor = (ctypes.c_char * (slots * block)).from_buffer(self.memory)
        base = ctypes.addressof(self._anchor)
        self.iocbs = (binding.iocb * slots)()
        for slot in range(slots):
            binding.io_prep_pread(self.iocbs[slot], fd, base + slot * block, block, 0)
            self.iocbs[slot].data = slot
        size = ctypes.sizeof(binding.iocb)
        self.iocb_words = np.frombuffer(self.iocbs, dtype=np.int64).reshape(slots, size // 8)
        self.offset_word = (binding.iocb.u.offset + binding.io_iocb_common.offset.offset) // 8
        self.pointers = (binding.iocb_p * slots)()
        self.pointer_words = np.frombuffer(self.pointers, dtype=np.uint64)
        step = ctypes.sizeof(ctypes.c_void_p)
        self.pointers_from = [ctypes.cast(ctypes.byref(self.pointers, k * step), ctypes.POINTER(binding.iocb_p))
                              for k in range(slots)]  # io_submit's argument for "from the k-th pointer on"
        self.addresses = np.uint64(ctypes.addressof(self.iocbs)) + np.arange(slots, dtype=np.uint64) * np.uint64(size)
        self.events = (binding.io_event * slots)()
        self.event_words = np.frombuffer(self.events, dtype=np.int64).reshape(slots, 4)  # data, obj, res, res2
        self.context = binding.io_context_t()
        try:
            binding.io_setup(slots, ctypes.byref(self.context))
        except OSError as exc:
            raise AioUnavailable(f"io_setup({slots}): {exc.strerror or exc}") from None
        self.in_flight = 0

    def submit(self, slots: np.ndarray, offsets: np.ndarray) -> None:
        """Aim *slots* at *offsets* and hand them to the kernel, :data:`SUBMIT_CHUNK` per ``io_submit``."""
        self.iocb_words[slots, self.offset_word] = offsets
        count = int(slots.size)
        self.pointer_words[:count] = self.addresses[slots]
        done = 0
        while done < count:  # io_submit may take fewer than asked; what it took is in flight
            want = min(SUBMIT_CHUNK, count - done)
            taken = self.binding.io_submit(self.context, want, self.pointers_from[done])  # OSError on failure
            if taken <= 0:
                raise OSError(errno.EAGAIN, "io_submit took no request")
            self.in_flight += taken
            done += taken

    def reap(self, wait_for: int, timeout: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """(slots, results) of the completions available, waiting for at least *wait_for*
        (at most *timeout*, a ``byref(timespec)``; None waits as long as it takes).

        Both are views of the event array: valid until the next call."""
        try:
            count = self.binding.io_getevents(self.context, wait_for, self.slots, self.events, timeout)
        except OSError as exc:
            if exc.errno != errno.EINTR:
                raise
            count = 0
        self.in_flight -= count
        return self.event_words[:count, 0], self.event_words[:count, 2]

    def close(self) -> None:
        """Wait for every read still in flight (the kernel writes into our buffers), then free.

        ``io_destroy`` itself also waits for whatever could not be cancelled, so the buffers
        are released only after the kernel is done with them, even if a count was missed.
        """
        while self.in_flight > 0:
            self.reap(self.in_flight, None)
        self.binding.io_destroy(self.context)
        del self._anchor
        self.memory.close()


def run_random(fd: int, job: Job, stop: threading.Event, seed: int) -> Reads:
    """Keep ``job.depth`` random reads in flight per region until the deadline or *stop*.

    Raises ``OSError`` (with the kernel's errno) when a read fails or comes back short,
    :class:`AioUnavailable` when no AIO context can be had (the caller falls back to threads).
    """
    binding = _binding()
    if binding is None:
        raise AioUnavailable("python-libaio is not available")
    depth, block = max(1, job.depth), job.block_size
    regions = [region for region in job.regions for _ in range(depth)]
    region_start = np.array([r.offset for r in regions], dtype=np.int64)
    region_blocks = np.array([max(1, r.length // block) for r in regions], dtype=np.int64)
    rng = np.random.default_rng(seed)
    one_region = len(job.regions) == 1

    def draw() -> np.ndarray:
        """Offsets for the next reads: for one region ready to use, else fractions to scale
        per slot (a generator call costs tens of µs, so they are drawn in bulk)."""
        if one_region:
            offsets: np.ndarray = region_start[0] + (rng.random(_POOL) * region_blocks[0]).astype(np.int64) * block
            return offsets
        return rng.random(_POOL)

    pool, used = draw(), 0

    def aim(slots: np.ndarray) -> np.ndarray:
        """Uniform block-aligned offsets in each slot's region."""
        nonlocal pool, used
        count = int(slots.size)
        if used + count > _POOL:
            pool, used = draw(), 0
        picks: np.ndarray = pool[used:used + count]
        used += count
        if one_region:
            return picks
        scaled: np.ndarray = region_start[slots] + (picks * region_blocks[slots]).astype(np.int64) * block
        return scaled

    ring = _Ring(binding, fd, len(regions), block)
    clock = time.monotonic_ns
    start = clock()
    ramp_end = start + int(job.ramp_s * 1e9)
    deadline = ramp_end + int(job.runtime_s * 1e9)
    sent = np.zeros(len(regions), dtype=np.int64)
    poll = ctypes.byref(binding.timespec(0, _POLL_NS))
    counted: list[np.ndarray] = []
    last = 0
    try:
        every = np.arange(len(regions), dtype=np.int64)
        sent[:] = clock()
        ring.submit(every, aim(every))
        while True:
            slots, results = ring.reap(1, poll)
            now = clock()
            if slots.size:
                if not (results == block).all():
                    bad = results != block
                    code = int(results[bad][0])
                    number = -code if code < 0 else errno.EIO
                    raise OSError(number, os.strerror(number) if code < 0 else f"short read ({code} bytes)")
                if now >= ramp_end:
                    counted.append(now - sent[slots])
                    last = now
            if now >= deadline or stop.is_set():
                break
            if slots.size:
                sent[slots] = now
                ring.submit(slots, aim(slots))
    finally:
        ring.close()
    latencies = np.concatenate(counted) if counted else np.zeros(0, dtype=np.int64)
    return Reads(latencies, ramp_end if latencies.size else 0, last)
