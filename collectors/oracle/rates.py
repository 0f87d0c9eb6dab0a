"""Per-file rates between two cumulative FileIO readings of the same Oracle instance.

Used by the Statspack / AWR history path, which reads two snapshots stored in the database
and returns a Workload directly. A counter that went backwards (file re-created, stats
cleared) is rated from zero and flagged ``lower_bound``; a file absent at the start (created
in the interval) is rated from zero too, which is exact.
"""

from __future__ import annotations

from advisor.model import FileIO, FileRate

MB = float(1 << 20)  # as advisor.workload: 1 MB = 1,048,576 bytes
KB = 1024.0


def _delta(end: float | None, begin: float | None) -> tuple[float | None, bool]:
    if end is None:
        return None, False
    if begin is None:
        return end, False
    if end < begin:
        return end, True
    return end - begin, False


def file_rate(begin: FileIO | None, end: FileIO, interval_s: float) -> FileRate:
    """Rates of *end* relative to *begin* (None when the file did not exist at the start)."""
    if interval_s <= 0:
        raise ValueError("interval must be positive")
    reads, r1 = _delta(end.reads, begin.reads if begin else None)
    writes, r2 = _delta(end.writes, begin.writes if begin else None)
    rbytes, r3 = _delta(end.read_bytes, begin.read_bytes if begin else None)
    wbytes, r4 = _delta(end.write_bytes, begin.write_bytes if begin else None)
    single, _ = _delta(end.single_block_reads, begin.single_block_reads if begin else None)
    rtime, _ = _delta(end.read_time_ms, begin.read_time_ms if begin else None)
    wtime, _ = _delta(end.write_time_ms, begin.write_time_ms if begin else None)
    reads = reads or 0.0
    rbytes = rbytes or 0.0
    return FileRate(
        file_id=end.file_id,
        path=end.path,
        kind=end.kind,
        tablespace=end.tablespace,
        container=end.container,
        size_bytes=end.size_bytes,
        read_iops=reads / interval_s,
        write_iops=None if writes is None else writes / interval_s,
        read_mb_s=rbytes / MB / interval_s,
        write_mb_s=None if wbytes is None else wbytes / MB / interval_s,
        mean_read_kb=rbytes / reads / KB if reads and rbytes else None,
        mean_write_kb=wbytes / writes / KB if writes and wbytes else None,
        random_share=single / reads if reads and single is not None else None,
        read_latency_ms=rtime / reads if reads and rtime is not None else None,
        write_latency_ms=wtime / writes if writes and wtime is not None else None,
        name=end.name,
        lower_bound=r1 or r2 or r3 or r4,
    )
