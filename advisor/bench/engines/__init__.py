"""IO engines: one interface, two implementations (the built-in threads engine and fio).

A bench test describes *what* to read (``Job``: pattern, regions, block size, queue depth,
duration); an engine decides *how*. Keeping fio behind the same interface lets the built-in
engine be checked against the reference tool on the same target (``benchmarks/bench_vs_fio.py``).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from advisor.errors import BadInput, Unsupported
from advisor.model.disk import Latency

Pattern = Literal["read", "randread", "commit"]
EngineName = Literal["auto", "builtin", "fio"]

#: Percentiles every engine reports (fio's default list contains them all).
PERCENTILES = (1.0, 5.0, 20.0, 50.0, 80.0, 95.0, 99.0)


@dataclass(frozen=True, slots=True)
class Region:
    """A byte range of the target: ``[offset, offset + length)``."""

    offset: int
    length: int


@dataclass(frozen=True, slots=True)
class Job:
    """One measurement.

    ``read``: sequential reads from the start of each region until its end or ``runtime_s``,
    whichever comes first; the rate is that of :func:`streaming_rate`.
    ``randread``: uniformly random aligned reads inside each region (with ``depth`` reads
    outstanding per region) for ``runtime_s``. ``commit``: rewrite the
    same block at the region's offset and ``fdatasync`` after each write (pg_test_fsync's
    loop); the target must be a scratch file. Several regions run at the same time: that
    is how the cross-surface test puts one worker at each edge.
    """

    name: str
    pattern: Pattern
    regions: tuple[Region, ...]
    block_size: int
    runtime_s: float
    depth: int = 1
    ramp_s: float = 0.0


@dataclass(frozen=True, slots=True)
class JobResult:
    """What one job measured; ``latency`` and ``percentiles_ms`` are per IO, in ms."""

    name: str
    ios: int
    seconds: float
    iops: float
    bytes_per_s: float
    latency: Latency
    percentiles_ms: dict[float, float] = field(default_factory=dict)
    complete: bool = True
    io_path: str = ""  # how the engine issued the IOs (builtin: "threads" or "linux-aio"; fio: its ioengine)


class Engine(Protocol):
    """Runs jobs one after the other on one target path."""

    name: str
    #: Fixed cost of starting one job (fio waits ~0.3 s around each stonewalled job).
    job_overhead_s: float

    def run(self, path: str, jobs: Sequence[Job], stop: threading.Event) -> list[JobResult]:
        """Run *jobs* in order; return the results of those that ran (stop early on *stop*)."""
        ...


def streaming_rate(ios: int, mean_ns: float, max_ns: float, block_size: int) -> tuple[float, float]:
    """(bytes/s, busy seconds) of a QD1 sequential read, without its slowest read.

    The rate is over the time the device was busy (reads x mean latency), so neither the
    host's gap between two reads nor fio's whole-millisecond runtime counts. The slowest
    read is left out: it is the first one, which pays the seek to the zone and a rotational
    wait that streaming does not (on a short zone read that alone costs several per cent).

    >>> rate, busy = streaming_rate(11, 32e6 / 11, 12e6, 1 << 20)  # ten 2 ms reads of 1 MiB after a 12 ms one
    >>> round(rate / 1e6, 3), round(busy, 3)
    (524.288, 0.02)
    """
    if ios <= 0 or mean_ns <= 0:
        return 0.0, 0.0
    if ios == 1:
        busy_ns = mean_ns
        return block_size / (busy_ns / 1e9), busy_ns / 1e9
    busy_ns = ios * mean_ns - max_ns
    return (ios - 1) * block_size / (busy_ns / 1e9), busy_ns / 1e9


def fio_available() -> bool:
    """True when a ``fio`` binary is on PATH."""
    return shutil.which("fio") is not None


def pick_engine(name: str) -> Engine:
    """Resolve ``--engine``: ``auto`` means fio when installed, else the built-in engine."""
    if name not in ("auto", "builtin", "fio"):
        raise BadInput(f"unknown engine {name!r}", hint="use auto, builtin or fio")
    if name == "fio" and not fio_available():
        raise Unsupported("fio is not installed", hint="apt-get install fio, or use --engine builtin")
    if name == "fio" or (name == "auto" and fio_available()):
        from advisor.bench.engines.fio import FioEngine

        return FioEngine()
    from advisor.bench.engines.builtin import BuiltinEngine

    return BuiltinEngine()
