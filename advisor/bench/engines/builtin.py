"""The built-in engine: O_DIRECT reads, queued through native AIO or one thread per IO.

Random reads at a queue depth above one go through Linux native AIO (``aio.py``): threads
cannot keep a deep queue full on a fast device (each completion must win the GIL back
first). Everything else, and every read when AIO is not available, uses threads:
``os.preadv`` releases the GIL while the kernel waits for the disk, so N threads keep N
reads in flight, the same queue the device sees from fio's libaio at ``iodepth=N``. Each
thread reads into its own page-aligned buffer (O_DIRECT needs aligned memory; large ones
sit on huge pages so a read reaches the device whole, see ``buffers.py``),
draws offsets in batches with numpy, and keeps the hot loop to two clock reads, the
syscall, an append and one comparison: on flash a read takes 25 µs, and Python's overhead
must stay a few per cent of that.
"""

from __future__ import annotations

import contextlib
import functools
import mmap
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence

import numpy as np

from advisor.bench.engines import PERCENTILES, Job, JobResult, Region, aio, streaming_rate
from advisor.bench.engines.buffers import ReadBuffer
from advisor.bench.stats import summarize_ns
from advisor.errors import DeviceError

_BATCH = 1024
_CHECK_NS = 10_000_000
"""How often a reader looks at the stop event: 10 ms, far below a person's patience."""


class _Worker(threading.Thread):
    """One outstanding IO: reads (or commits) until the deadline or the stop event."""

    def __init__(self, fd: int, job: Job, region: Region, seed: int, start_ns: int, stop: threading.Event,
                 buf: memoryview | None) -> None:
        super().__init__(daemon=True)
        self.fd, self.job, self.region, self.seed, self.buf = fd, job, region, seed, buf
        self.ramp_end_ns = start_ns + int(job.ramp_s * 1e9)
        self.deadline_ns = self.ramp_end_ns + int(job.runtime_s * 1e9)
        self.stop = stop
        self.latencies: list[int] = []
        self.first_ns = 0
        self.last_ns = 0
        self.error: OSError | None = None
        self.done = threading.Event()  # see _run_all: join() cannot be trusted once interrupted
        self.began = threading.Event()  # set first thing in run(): this worker reads until done

    def run(self) -> None:
        self.began.set()
        try:
            if self.buf is None:
                with mmap.mmap(-1, self.job.block_size) as memory:
                    self._commit(memory)
            else:
                self._read(self.buf)
        except OSError as exc:
            self.error = exc
        finally:
            self.done.set()

    def _offsets(self) -> list[int]:
        block = self.job.block_size
        count = max(1, self.region.length // block)
        if self.job.pattern == "read":
            return [self.region.offset + i * block for i in range(count)]
        rng = np.random.default_rng(self.seed)
        picks = rng.integers(0, count, size=_BATCH, dtype=np.int64) * block + self.region.offset
        return [int(v) for v in picks]

    def _read(self, buf: memoryview) -> None:
        """Read until the deadline. The loop per read is two clock reads, the syscall, an
        append and one comparison: at 25 µs a read on fast flash every 100 ns is 0.4 % of
        the IOPS. The ramp, the deadline and the stop event are looked at only when the
        clock passes ``check`` (the ramp's end, then every ``_CHECK_NS``)."""
        preadv, clock, bufs = os.preadv, time.monotonic_ns, [buf]
        fd, ramp_end, deadline, stop = self.fd, self.ramp_end_ns, self.deadline_ns, self.stop
        latencies = self.latencies
        record = latencies.append
        sequential = self.job.pattern == "read"
        measuring = False
        t0 = t1 = 0
        check = min(clock() + _CHECK_NS, ramp_end)
        try:
            while True:
                for offset in self._offsets():
                    t0 = clock()
                    preadv(fd, bufs, offset)
                    t1 = clock()
                    record(t1 - t0)
                    if t1 < check:
                        continue
                    if not measuring and t1 >= ramp_end:
                        del latencies[:-1]  # the ramp's reads; this one ended after it: counted
                        self.first_ns, measuring = t0, True
                    if t1 >= deadline or stop.is_set():
                        return
                    check = min(t1 + _CHECK_NS, deadline if measuring else ramp_end)
                if sequential:
                    return  # the region is read once: a wrap would add a seek back
                self.seed += 1
        finally:
            if not measuring:
                latencies.clear()
            elif latencies:
                self.last_ns = t1

    def _commit(self, buf: mmap.mmap) -> None:
        buf.write(os.urandom(self.job.block_size))
        pwrite, fdatasync, clock = os.pwrite, os.fdatasync, time.monotonic_ns
        fd, offset, ramp_end, deadline = self.fd, self.region.offset, self.ramp_end_ns, self.deadline_ns
        record = self.latencies.append
        while not self.stop.is_set():
            t0 = clock()
            pwrite(fd, buf, offset)
            fdatasync(fd)
            t1 = clock()
            if t1 >= ramp_end:
                if not self.first_ns:
                    self.first_ns = t0
                record(t1 - t0)
                self.last_ns = t1
            if t1 >= deadline:
                return


class BuiltinEngine:
    """Threads + O_DIRECT ``preadv``; needs nothing but Python and numpy."""

    name = "builtin"
    job_overhead_s = 0.005

    def run(self, path: str, jobs: Sequence[Job], stop: threading.Event) -> list[JobResult]:
        """Run the jobs one after the other; a set *stop* ends the current one early."""
        results = []
        for job in jobs:
            if stop.is_set():
                break
            results.append(self._run_one(path, job, stop))
        return results

    def _run_one(self, path: str, job: Job, stop: threading.Event) -> JobResult:
        flags = os.O_WRONLY if job.pattern == "commit" else os.O_RDONLY | os.O_DIRECT
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            raise DeviceError(f"cannot open {path}: {exc.strerror}") from None
        seed = time.monotonic_ns() & 0xFFFFFFFF
        try:
            reads = _queued(fd, job, stop, seed) if job.pattern == "randread" and job.depth > 1 else None
            path_used = aio.PATH
            if reads is None:
                reads = _threaded(fd, job, stop, seed)
                path_used = THREADS_PATH
        except OSError as exc:
            raise DeviceError(f"{job.name}: IO error on {path}: {exc.strerror}") from None
        finally:
            os.close(fd)
        return _result(job, reads, path_used, stopped=stop.is_set())


#: How reads are issued without native AIO: one thread per outstanding IO.
THREADS_PATH = "threads"


@functools.cache
def _aio_usable() -> bool:
    return aio.aio_available()


def _queued(fd: int, job: Job, stop: threading.Event, seed: int) -> aio.Reads | None:
    """Queue depth > 1 through native AIO (None when it cannot be had: threads then);
    Ctrl-C drains the queue, then goes through."""
    if not _aio_usable():
        return None
    try:
        return aio.run_random(fd, job, stop, seed)
    except aio.AioUnavailable:
        return None
    except KeyboardInterrupt:
        stop.set()
        raise


def _threaded(fd: int, job: Job, stop: threading.Event, seed: int) -> aio.Reads:
    """One thread per outstanding IO (sequential, commit, QD1, and QD N without AIO)."""
    depth = 1 if job.pattern != "randread" else max(1, job.depth)
    count, block = len(job.regions) * depth, job.block_size
    release = contextlib.ExitStack()
    try:
        slices: list[memoryview | None] = [None] * count  # a commit writes from its own page
        if job.pattern != "commit":
            # one block of (huge) pages for every reader, a slice each
            slices = list(release.enter_context(ReadBuffer(count * block)).slices(block, count))
        start = time.monotonic_ns()
        regions = [region for region in job.regions for _ in range(depth)]
        workers = [_Worker(fd, job, region, seed + 7919 * n, start, stop, slices[n])
                   for n, region in enumerate(regions)]
        _run_all(workers, stop)
    finally:
        # the buffer releases its slices itself, with signals held: an exception from a signal's handler between
        # two of the stack's callbacks skipped the rest, and one between making the slices and registering their
        # releases left some unreleased; closing the buffer then raised BufferError in place of that exception
        with _signals_held():
            release.close()
    failed = next((w.error for w in workers if w.error is not None), None)
    if failed is not None:
        raise failed
    latencies = np.concatenate([np.asarray(w.latencies, dtype=np.int64) for w in workers])
    started = [w.first_ns for w in workers if w.first_ns]
    ended = [w.last_ns for w in workers if w.last_ns]
    return aio.Reads(latencies, min(started) if started else 0, max(ended) if ended else 0)


#: Signals whose Python handlers may raise (Ctrl-C, SIGTERM/SIGHUP made SystemExit, an alarm):
#: held back while the readers start. Faults (SIGSEGV, SIGBUS, ...) are never held.
_DEFERRED_SIGNALS = frozenset(signal.valid_signals()) - {
    signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGTRAP, signal.SIGSYS,
    signal.SIGKILL, signal.SIGSTOP}


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold asynchronous signals back in this thread; they arrive when the block ends.

    An exception raised by a signal handler inside ``Thread.start`` can leave a thread
    running that the caller does not know was started (3.11 even forgets it half way: the
    thread's bootstrap then fails on ``_limbo``), and the buffer it reads into would be freed
    under it. The started threads inherit the mask, so the kernel sends these signals to the
    main thread, where Python handles them anyway.
    """
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _run_all(workers: list[_Worker], stop: threading.Event) -> None:
    """Start the workers and wait for them; on Ctrl-C (or any exit raised meanwhile) tell
    them to stop, wait for every one started, and let it through: they read into memory that
    is freed after this returns.

    Starts them with signals held (see ``_signals_held``), so a signal the kernel gives this
    thread arrives after every start has returned. That does not hold a signal another thread
    of the process took (a test runner's): Python still runs its handler here, and its
    exception can land inside a ``Thread.start``, with the worker running but its start not
    returned (a clean-clone CI run freed a buffer a reader still read into: BufferError). So
    each worker is counted before its start, and on an exception every counted worker that
    began (its ``run`` sets ``began`` first) is waited for; one that has not begun within
    :data:`BEGINS_WITHIN_S` was never created. Waits on events rather than ``Thread.join``:
    a ``join`` interrupted by an exception from a signal handler (Python 3.11) marks a
    still-running thread stopped.
    """
    attempted: list[_Worker] = []
    try:
        with _signals_held():
            for worker in workers:
                attempted.append(worker)
                worker.start()
        for worker in attempted:
            while not worker.done.wait(0.1):
                pass
    except BaseException:
        stop.set()
        for worker in attempted:
            if worker.began.wait(BEGINS_WITHIN_S):
                worker.done.wait()
        raise


BEGINS_WITHIN_S = 5.0
"""How long a worker whose start was interrupted may take to begin before it is taken for never created
(its thread, once created, runs ``run`` within microseconds; Python 3.11 may also fail its bootstrap)."""


def _result(job: Job, reads: aio.Reads, io_path: str, stopped: bool) -> JobResult:
    latencies = reads.latencies_ns
    ios = int(latencies.size)
    seconds = (reads.last_ns - reads.first_ns) / 1e9 if reads.first_ns and reads.last_ns else 0.0
    latency, table = summarize_ns(latencies, PERCENTILES)
    iops = ios / seconds if seconds > 0 else 0.0
    rate = iops * job.block_size
    if job.pattern == "read":
        rate, seconds = streaming_rate(ios, float(latencies.sum()) / ios if ios else 0.0,
                                       float(latencies.max()) if ios else 0.0, job.block_size)
    return JobResult(job.name, ios, seconds, iops, rate, latency, table, complete=not stopped, io_path=io_path)
