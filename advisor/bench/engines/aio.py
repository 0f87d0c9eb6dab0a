"""Queued random reads through Linux native AIO (``io_submit`` / ``io_getevents``).

Python threads cannot keep 32 reads in flight on a device that answers in half a
millisecond: each completion has to win the GIL back before its thread can issue the next
read, so the queue the device sees drains (measured: 0.46–0.49× fio at QD32 on a virtio
disk). Native AIO keeps the whole queue in the kernel, as fio's ``ioengine=libaio`` does,
and one thread reaps completions and resubmits them.

The binding is python-libaio (ctypes over the system's ``libaio.so.1``); its low-level
module gives the kernel ABI structures. The hot loop never touches a ``ctypes`` object per
IO: the iocb array, the pointer array handed to ``io_submit`` and the event array filled by
``io_getevents`` are viewed as numpy arrays. Like fio's libaio loop it takes a few
completions and resubmits them at once (:data:`REAP_MAX`), and it does no per-IO
accounting while the queue runs: each completion's slot, time and result go into a log,
and latencies are worked out from the log afterwards (a slot's read was issued when its
previous read completed), so a turn of the loop is two system calls and a few slice copies.

Each slot has its own page-aligned 4 KiB-multiple buffer (O_DIRECT needs aligned memory),
cut from one block on huge pages (``buffers.py``: an 8 KiB read into two scattered pages
travels as two segments; measured on a virtio disk, fio at QD32 reads 87-89k IOPS from
malloc'd memory and 117-128k from huge pages), and is bound to one region, so a job
with several regions keeps ``depth`` reads in flight in each, like the thread engine and
like fio's one section per region.
"""

from __future__ import annotations

import ctypes
import errno
import os
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from advisor.bench.engines import Job, Region
from advisor.bench.engines.buffers import ReadBuffer

#: How the reads of a job were issued; recorded in the profile (``DiskProfile.io_paths``).
PATH = "linux-aio"
CLOSE_WAIT_S = 5
"""On close, how long to wait for one more completion before leaving the rest to io_destroy."""
_POLL_NS = 100_000_000  # io_getevents timeout: the stop event and the deadline are checked this often
_POOL = 1 << 16  # random fractions drawn at a time: one generator call per 65536 reads
REAP_MAX = 4
"""Completions taken per ``io_getevents`` (at least one is waited for), resubmitted in one
``io_submit``. Taking every completion there is and resubmitting the lot runs the queue in
lockstep: one submission is one plug of the block layer, the device gets the batch at once
and answers it at once (at QD32 on this machine's virtio disk every call returned all 32).
fio takes one and resubmits one, which costs Python two calls per read. Minimal loops at
QD32 on that disk, side by side, three rounds: one per turn 44-53k IOPS (short of CPU), two
102-105k, four 100-102k, eight 95-98k, all there are 73-74k; fio 105-107k. With this loop,
CPU per read: four 6.6-7.0 µs (user 2.1-2.3), two 8.9-12.4 µs, fio 6.9-7.1 µs (user 0.4-1.0)."""
_LOG_CHUNK = 1 << 16  # completions logged per preallocated chunk (and read errors checked per chunk)


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


def _raw(binding: ModuleType, name: str, *argtypes: Any) -> Any:
    """A function pointer of its own into ``libaio.so`` with plain argument types and no
    Python-side return check. The binding's wrappers convert each argument by its declared
    structure type and check each return in Python: 2.5 µs a call against 0.8 µs (measured),
    and the loop makes two calls per turn; it checks the returns itself."""
    function = binding.libaio[name]  # a new pointer object: the binding's own is left as it is
    function.restype = ctypes.c_int
    function.argtypes = argtypes
    return function


class _Ring:
    """The iocbs, pointers, events and buffers of one job, with numpy views on them and the
    addresses the raw ``io_submit``/``io_getevents`` calls take."""

    def __init__(self, binding: ModuleType, fd: int, slots: int, block: int) -> None:
        self.binding, self.slots = binding, slots
        self.memory = ReadBuffer(slots * block)
        self._anchor = (ctypes.c_char * (slots * block)).from_buffer(self.memory.view)
        base = ctypes.addressof(self._anchor)
        self.iocbs = (binding.iocb * slots)()
        for slot in range(slots):
            binding.io_prep_pread(self.iocbs[slot], fd, base + slot * block, block, 0)
            self.iocbs[slot].data = slot
        size = ctypes.sizeof(binding.iocb)
        self.iocb_words = np.frombuffer(self.iocbs, dtype=np.int64).reshape(slots, size // 8)
        self.offsets = self.iocb_words[:, (binding.iocb.u.offset + binding.io_iocb_common.offset.offset) // 8]
        self.pointers = (binding.iocb_p * slots)()
        self.pointer_words = np.frombuffer(self.pointers, dtype=np.uint64)
        self.pointers_address = ctypes.addressof(self.pointers)
        self.addresses = np.uint64(ctypes.addressof(self.iocbs)) + np.arange(slots, dtype=np.uint64) * np.uint64(size)
        self.events = (binding.io_event * slots)()
        self.events_address = ctypes.addressof(self.events)
        self.event_words = np.frombuffer(self.events, dtype=np.int64).reshape(slots, 4)  # data, obj, res, res2
        self.io_submit = _raw(binding, "io_submit", ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p)
        self.io_getevents = _raw(binding, "io_getevents", ctypes.c_void_p, ctypes.c_long, ctypes.c_long,
                                 ctypes.c_void_p, ctypes.c_void_p)
        self.context = binding.io_context_t()
        try:
            binding.io_setup(slots, ctypes.byref(self.context))
        except OSError as exc:
            raise AioUnavailable(f"io_setup({slots}): {exc.strerror or exc}") from None
        self.context_address = ctypes.cast(self.context, ctypes.c_void_p).value
        self.in_flight = 0

    def submit(self, slots: np.ndarray, offsets: np.ndarray) -> None:
        """Aim *slots* at *offsets* and hand them to the kernel, :data:`REAP_MAX` per ``io_submit``."""
        self.offsets[slots] = offsets
        count = int(slots.size)
        self.pointer_words[:count] = self.addresses[slots]
        for first in range(0, count, REAP_MAX):
            self.push(min(count, first + REAP_MAX), first)

    def push(self, count: int, first: int = 0) -> None:
        """Hand the iocbs the pointer array holds from *first* up to *count* to the kernel."""
        while first < count:  # io_submit may take fewer than asked; what it took is in flight
            taken = self.io_submit(self.context_address, count - first, self.pointers_address + 8 * first)
            if taken <= 0:
                number = -taken if taken < 0 else errno.EAGAIN
                raise OSError(number, f"io_submit: {os.strerror(number)}")
            self.in_flight += taken
            first += taken

    def reaped(self, got: int) -> int:
        """*got* as returned by ``io_getevents``: the count of completions (0 when interrupted
        by a signal); ``OSError`` for any other failure."""
        if got < 0:
            if got == -errno.EINTR:
                return 0
            raise OSError(-got, f"io_getevents: {os.strerror(-got)}")
        self.in_flight -= got
        return got

    def close(self) -> None:
        """Wait for every read still in flight (the kernel writes into our buffers), then free.

        ``io_destroy`` itself also waits for whatever could not be cancelled, so the buffers
        are released only after the kernel is done with them, even if a count was missed.
        """
        # A signal's exception can land between io_getevents returning and the count going
        # down: the count is then too high, and waiting for exactly that many never ends.
        # Each wait is bounded; when nothing more completes, io_destroy waits for the rest.
        patience = self.binding.timespec(CLOSE_WAIT_S, 0)
        while self.in_flight > 0:
            got = self.reaped(self.io_getevents(self.context_address, 1, self.slots, self.events_address,
                                                ctypes.addressof(patience)))
            if got == 0:
                break
        self.binding.io_destroy(self.context)
        del self._anchor
        self.memory.close()


def _check(results: np.ndarray, block: int) -> None:
    """Raise ``OSError`` (the kernel's errno, or EIO for a short read) unless every read was whole."""
    if (results == block).all():
        return
    code = int(results[results != block][0])
    number = -code if code < 0 else errno.EIO
    raise OSError(number, os.strerror(number) if code < 0 else f"short read ({code} bytes)")


class _Log:
    """Slot, time and result of each completion, in preallocated chunks (no per-IO objects)."""

    def __init__(self, block: int) -> None:
        self.block = block
        self.sealed: list[tuple[np.ndarray, np.ndarray]] = []
        self.slots, self.times, self.results = self._chunk()

    @staticmethod
    def _chunk() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (np.empty(_LOG_CHUNK, dtype=np.int64), np.empty(_LOG_CHUNK, dtype=np.int64),
                np.empty(_LOG_CHUNK, dtype=np.int64))

    def seal(self, used: int) -> None:
        """Check the reads of the current chunk's first *used* entries, keep them, start a new chunk."""
        _check(self.results[:used], self.block)
        self.sealed.append((self.slots[:used], self.times[:used]))
        self.slots, self.times, self.results = self._chunk()

    def latencies(self, issued_ns: int, counted_from: int) -> tuple[np.ndarray, int]:
        """(latencies of the reads completed from *counted_from* on, in completion order; the
        last completion time). A slot's read was issued when its previous read completed (it
        is resubmitted right then), its first one at *issued_ns*."""
        slots = np.concatenate([s for s, _ in self.sealed]) if self.sealed else np.zeros(0, dtype=np.int64)
        times = np.concatenate([t for _, t in self.sealed]) if self.sealed else np.zeros(0, dtype=np.int64)
        order = np.argsort(slots, kind="stable")  # per slot, in completion order
        by_slot, at = slots[order], times[order]
        issued = np.empty_like(at)
        issued[1:] = at[:-1]
        first = np.ones(at.size, dtype=bool)
        first[1:] = by_slot[1:] != by_slot[:-1]
        issued[first] = issued_ns
        latencies = np.empty_like(at)
        latencies[order] = at - issued
        counted = times >= counted_from
        return latencies[counted], int(times[counted].max()) if counted.any() else 0


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
    aim = _Aim(regions, block, np.random.default_rng(seed))
    ring = _Ring(binding, fd, len(regions), block)
    log = _Log(block)
    getevents, submit, context = ring.io_getevents, ring.io_submit, ring.context_address
    events, pointers_address, reaped = ring.events_address, ring.pointers_address, ring.reaped
    event_slots, event_results = ring.event_words[:, 0], ring.event_words[:, 2]
    offsets, pointers, addresses = ring.offsets, ring.pointer_words, ring.addresses
    take = min(REAP_MAX, len(regions))
    poll_time = binding.timespec(0, _POLL_NS)
    poll = ctypes.addressof(poll_time)
    clock = time.monotonic_ns
    start = clock()
    ramp_end = start + int(job.ramp_s * 1e9)
    deadline = ramp_end + int(job.runtime_s * 1e9)
    used = 0
    try:
        every = np.arange(len(regions), dtype=np.int64)
        issued = clock()
        ring.submit(every, aim(every))
        while True:
            got = reaped(getevents(context, 1, take, events, poll))
            now = clock()
            if got:
                if used + got > _LOG_CHUNK:
                    log.seal(used)
                    used = 0
                end = used + got
                log.slots[used:end] = event_slots[:got]
                log.results[used:end] = event_results[:got]
                log.times[used:end] = now
                slots = log.slots[used:end]
                used = end
            if now >= deadline or stop.is_set():
                break
            if got:
                offsets[slots] = aim(slots)
                pointers[:got] = addresses[slots]
                taken = submit(context, got, pointers_address)
                if taken == got:
                    ring.in_flight += got
                else:
                    ring.push(got, 0 if taken <= 0 else taken)
                    ring.in_flight += max(0, taken)
    finally:
        ring.close()
    log.seal(used)
    latencies, last = log.latencies(issued, ramp_end)
    return Reads(latencies, ramp_end if latencies.size else 0, last)


class _Aim:
    """Uniform block-aligned random offsets in each slot's region, drawn in bulk (a generator
    call costs tens of µs; one per :data:`_POOL` reads)."""

    def __init__(self, regions: list[Region], block: int, rng: np.random.Generator) -> None:
        self.block, self.rng = block, rng
        self.start = np.array([r.offset for r in regions], dtype=np.int64)
        self.blocks = np.array([max(1, r.length // block) for r in regions], dtype=np.int64)
        self.one_region = len({(r.offset, r.length) for r in regions}) == 1
        self.pool, self.used = self._draw(), 0

    def _draw(self) -> np.ndarray:
        """Ready offsets when every slot shares one region, else fractions to scale per slot."""
        if self.one_region:
            picks = (self.rng.random(_POOL) * self.blocks[0]).astype(np.int64)
            offsets: np.ndarray = self.start[0] + picks * self.block
            return offsets
        return self.rng.random(_POOL)

    def __call__(self, slots: np.ndarray) -> np.ndarray:
        count = int(slots.size)
        if self.used + count > _POOL:
            self.pool, self.used = self._draw(), 0
        picks: np.ndarray = self.pool[self.used:self.used + count]
        self.used += count
        if self.one_region:
            return picks
        scaled: np.ndarray = self.start[slots] + (picks * self.blocks[slots]).astype(np.int64) * self.block
        return scaled
