"""``/proc/diskstats``: cumulative per-disk and per-partition counters, and iostat-style rates.

This is the only place where writes per tablespace become visible when each tablespace has
its own partition, and the only true per-device latency (Δms / Δios). Field layout
(Documentation/admin-guide/iostats.rst): major minor name, then reads, reads merged,
sectors read, ms reading, writes, writes merged, sectors written, ms writing, in flight,
ms doing IO, weighted ms; kernel 4.18+ adds four discard fields and 5.5+ two flush fields.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from advisor.model import DiskStat, DiskStatRate

SECTOR = 512
MB = float(1 << 20)  # as iostat and advisor.rates.workload: 1 MB = 1,048,576 bytes


def parse(text: str, partitions: set[str] | None = None) -> list[DiskStat]:
    """Parse diskstats text; *partitions* names the rows that are partitions (from sysfs).

    >>> row = parse("   8       1 sda1 10 0 80 5 4 1 64 9 0 12 14 0 0 0 0 3 2")[0]
    >>> (row.name, row.reads, row.read_sectors, row.writes, row.write_time_ms, row.io_time_ms, row.flushes)
    ('sda1', 10, 80, 4, 9, 12, 3)
    """
    rows = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 14:
            continue
        counters = [int(x) for x in fields[3:]]
        has_flush = len(counters) >= 17
        rows.append(DiskStat(
            name=fields[2],
            reads=counters[0],
            read_sectors=counters[2],
            read_time_ms=counters[3],
            writes=counters[4],
            write_sectors=counters[6],
            write_time_ms=counters[7],
            io_time_ms=counters[9],
            flushes=counters[15] if has_flush else None,
            flush_time_ms=counters[16] if has_flush else None,
            is_partition=partitions is not None and fields[2] in partitions,
        ))
    return rows


def partition_names(sys_root: Path = Path("/sys")) -> set[str]:
    """Names of block devices that are partitions (``/sys/class/block/*/partition``)."""
    return {p.parent.name for p in (sys_root / "class" / "block").glob("*/partition")}


def sample(names: Iterable[str] | None = None, proc: Path = Path("/proc/diskstats")) -> tuple[list[DiskStat], float]:
    """Read diskstats now; returns the rows (all, or only *names*) and ``time.monotonic()``."""
    at = time.monotonic()
    rows = parse(proc.read_text(), partition_names())
    if names is not None:
        wanted = set(names)
        rows = [r for r in rows if r.name in wanted]
    return rows, at


def diskstats_rates(a: Iterable[DiskStat], b: Iterable[DiskStat], seconds: float) -> list[DiskStatRate]:
    """iostat -x figures for every device present in both samples, in b's order.

    A counter that went backwards (device detached and reused, counters wrapped) drops that
    device rather than produce a negative rate. Awaits are None when no IO completed.

    >>> a = [DiskStat("sda", 100, 800, 50, 10, 80, 30, 40)]
    >>> b = [DiskStat("sda", 300, 2800, 250, 20, 160, 130, 540)]
    >>> r = diskstats_rates(a, b, 2.0)[0]
    >>> (r.r_s, r.w_s, round(r.read_mb_s, 6), r.r_await_ms, r.w_await_ms, r.util)
    (100.0, 5.0, 0.488281, 1.0, 10.0, 0.25)
    """
    if seconds <= 0:
        raise ValueError("interval must be positive")
    before = {row.name: row for row in a}
    rates = []
    for now in b:
        then = before.get(now.name)
        if then is None:
            continue
        d_reads, d_writes = now.reads - then.reads, now.writes - then.writes
        d_rsect, d_wsect = now.read_sectors - then.read_sectors, now.write_sectors - then.write_sectors
        d_rms, d_wms = now.read_time_ms - then.read_time_ms, now.write_time_ms - then.write_time_ms
        d_io = now.io_time_ms - then.io_time_ms
        if min(d_reads, d_writes, d_rsect, d_wsect, d_rms, d_wms, d_io) < 0:
            continue
        rates.append(DiskStatRate(
            name=now.name,
            r_s=d_reads / seconds,
            w_s=d_writes / seconds,
            read_mb_s=d_rsect * SECTOR / MB / seconds,
            write_mb_s=d_wsect * SECTOR / MB / seconds,
            r_await_ms=d_rms / d_reads if d_reads else None,
            w_await_ms=d_wms / d_writes if d_writes else None,
            util=min(1.0, d_io / (seconds * 1000.0)),
            is_partition=now.is_partition,
        ))
    return rates
