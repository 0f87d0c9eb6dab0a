"""Reading the emulated disk's request trace: how long each request spent in the modelled disk.

While ``io_trace`` is on, the FUSE server records every request it serves (read, write,
flush) with the real monotonic times it arrived and was replied to, and the real seconds
the modelled disk took for it (the virtual service time, queueing for the head included,
divided by the time scale). CLOCK_MONOTONIC is one clock for every process, so these
times line up with the ones a reader takes around its own run. Whatever the reader waited
beyond the modelled time is the host's: CPU, the kernel path, a late wake-up.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.disk.emulator.calibrate import control

OPS = ("read", "write", "flush")


@dataclass(frozen=True, slots=True)
class TraceRecord:
    """One request the emulated disk served."""

    op: str  # read | write | flush
    offset_bytes: int
    length_bytes: int
    arrived_s: float  # real monotonic time it reached the emulator
    replied_s: float  # real monotonic time the emulator replied
    model_s: float  # real seconds the modelled disk took (virtual service time / time scale)


@dataclass(frozen=True)
class IoTrace:
    """The records of one traced interval, and how many did not fit."""

    records: tuple[TraceRecord, ...]
    dropped: int = 0


def parse_records(rows: Any) -> tuple[TraceRecord, ...]:
    """Typed records from the ``io_trace`` list of ``stats.json``; ValueError on another shape.

    >>> parse_records([["read", 8192, 8192, 10.0, 10.004, 0.0041]])[0].model_s
    0.0041
    """
    if not isinstance(rows, list):
        raise ValueError("io_trace is not a list")
    out: list[TraceRecord] = []
    for index, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 6 or row[0] not in OPS:
            raise ValueError(f"io_trace[{index}] is not [op, offset, length, arrived, replied, model_s]")
        op, offset, length, arrived, replied, model = row
        out.append(TraceRecord(str(op), int(offset), int(length), float(arrived), float(replied), float(model)))
    return tuple(out)


def read_trace(mountpoint: Path) -> IoTrace:
    """The records held by the server whose FUSE mount is *mountpoint*."""
    stats: dict[str, Any] = json.loads((mountpoint / "stats.json").read_bytes())
    return IoTrace(parse_records(stats.get("io_trace", [])), int(stats.get("io_trace_dropped", 0)))


@contextlib.contextmanager
def recording(mountpoint: Path) -> Iterator[list[IoTrace]]:
    """Trace every request served inside the ``with`` block; the trace is in the yielded list after it."""
    box: list[IoTrace] = []
    control(mountpoint, io_trace=True)
    try:
        yield box
    finally:
        control(mountpoint, io_trace=False)
    box.append(read_trace(mountpoint))
