"""The opt-in SMR test: sustained random writes until the media cache runs out, or the budget.

A drive-managed SMR disk reports nothing of itself in sysfs (``queue/zoned`` is ``none``)
but gives itself away under sustained random writes: they land in a persistent media
cache at about sequential speed until it is full, then every write waits for a whole band
to be read, merged and rewritten, and the latency falls off a cliff (a few ms → hundreds
of ms). The test writes random 256 KiB blocks over the scratch file with ``O_DIRECT |
O_DSYNC`` (each write reaches the media, so a CMR drive's volatile DRAM cache, which also
fills and slows down, is not mistaken for a media cache) and stops as soon as the cliff
has held for :data:`CONFIRM` writes.

A cliff counts when the median of :data:`WINDOW` writes is at least :data:`CLIFF_RATIO`
times the early median and :data:`CLIFF_MIN_MS` or more: a seek plus a revolution stays
under ~25 ms even on a 5400 rpm disk, and an SSD that runs out of SLC cache slows to a
few ms at most, while a band clean of 17–36 MiB takes hundreds of ms.

Past the cliff the writes are bimodal, not uniformly slow: whenever the host leaves the
drive idle between two writes (a busy machine does, often) it cleans a band and the next
write or two land in the cache again. The median of every write after the cliff can then
fall back among the fast ones and say "6.1 → 6.6 ms" of a disk whose writes took 110 ms
every other time. So the figure after the cliff is the median of the writes from there on
that were slow by the same rule (what a band clean costs), and
:attr:`~advisor.model.disk.WriteCliff.slow_share` says how many of them there were.
"""

from __future__ import annotations

import mmap
import os
import threading
import time
from collections.abc import Callable

import numpy as np

from advisor.bench.target import Target
from advisor.errors import DeviceError
from advisor.model.disk import WriteCliff
from advisor.units import KIB

BLOCK = 256 * KIB
WINDOW = 16
SKIP = 2  # the first writes pay the seek from wherever the head was
CONFIRM = 16
CLIFF_RATIO = 5.0
CLIFF_MIN_MS = 10.0


def find_cliff(latencies_ms: list[float]) -> tuple[int, float, float, float] | None:
    """(index of the first slow write, early median ms, median ms of the slow writes from
    there on, their share of all writes from there on), or None."""
    if len(latencies_ms) < SKIP + 2 * WINDOW:
        return None
    values = np.asarray(latencies_ms, dtype=np.float64)
    early = float(np.median(values[SKIP:SKIP + WINDOW]))
    for start in range(SKIP + WINDOW, len(values) - WINDOW + 1):
        window = float(np.median(values[start:start + WINDOW]))
        if window >= CLIFF_MIN_MS and window >= CLIFF_RATIO * early:
            slow = (values >= CLIFF_RATIO * early) & (values >= CLIFF_MIN_MS)
            first = start + int(np.argmax(slow[start:start + WINDOW]))
            return first, early, float(np.median(values[first:][slow[first:]])), float(np.mean(slow[first:]))
    return None


def write_probe(target: Target, budget_s: float, stop: threading.Event,
                progress: Callable[[int], None] | None = None) -> WriteCliff:
    """Random O_DSYNC writes over the scratch file until the cliff is confirmed or time is up."""
    if not target.writable:
        raise DeviceError(f"the SMR test writes: {target.path} is not a scratch file")
    try:
        fd = os.open(target.path, os.O_WRONLY | os.O_DIRECT | os.O_DSYNC)
    except OSError as exc:
        raise DeviceError(f"cannot open {target.path} for the SMR test: {exc.strerror}") from None
    buffer = mmap.mmap(-1, BLOCK)
    buffer.write(os.urandom(BLOCK))
    blocks = max(1, target.size_bytes // BLOCK)
    rng = np.random.default_rng()
    latencies: list[float] = []
    deadline = time.monotonic() + budget_s
    cliff = None
    try:
        while time.monotonic() < deadline and not stop.is_set():
            for offset in (rng.integers(0, blocks, size=WINDOW) * BLOCK).tolist():
                began = time.monotonic_ns()
                os.pwrite(fd, buffer, offset)
                latencies.append((time.monotonic_ns() - began) / 1e6)
            if progress:
                progress(len(latencies))
            cliff = find_cliff(latencies)
            if cliff and len(latencies) - cliff[0] >= CONFIRM:
                break
    except OSError as exc:
        raise DeviceError(f"SMR test: write error on {target.path}: {exc.strerror}") from None
    finally:
        os.close(fd)
        buffer.close()
    cliff = find_cliff(latencies)
    early = float(np.median(latencies[SKIP:SKIP + WINDOW])) if len(latencies) > SKIP else 0.0
    return WriteCliff(
        writes=len(latencies),
        written_bytes=len(latencies) * BLOCK,
        block_size_bytes=BLOCK,
        before_p50_ms=cliff[1] if cliff else early,
        after_p50_ms=cliff[2] if cliff else None,
        cliff_after_bytes=cliff[0] * BLOCK if cliff else None,
        slow_share=cliff[3] if cliff else None,
        series_ms=tuple(round(value, 3) for value in latencies[:: max(1, len(latencies) // 200)]),
    )
