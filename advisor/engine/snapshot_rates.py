"""Read a single snapshot as a workload: cumulative counters over the server's uptime.

``advisor audit`` may have only one snapshot. Placement findings need relative rates (which
area takes which share of the IO), which cumulative counters divided by the time since the
statistics began give; absolute rates are then averages over that whole period.
"""

from __future__ import annotations

import datetime as dt

from advisor.model import FileIO, FileRate, Snapshot, Workload


def _seconds_between(start: str, end: str) -> float:
    try:
        a = dt.datetime.fromisoformat(start)
        b = dt.datetime.fromisoformat(end)
    except ValueError:
        return 1.0
    if (a.tzinfo is None) != (b.tzinfo is None):
        return 1.0
    return max(1.0, (b - a).total_seconds())


def _rate(f: FileIO, seconds: float) -> FileRate:
    writes = f.writes or 0
    return FileRate(
        file_id=f.file_id, path=f.path, kind=f.kind, tablespace=f.tablespace, container=f.container,
        size_bytes=f.size_bytes,
        read_iops=f.reads / seconds,
        write_iops=writes / seconds if f.writes is not None else None,
        read_mb_s=f.read_bytes / seconds / 1e6,
        write_mb_s=(f.write_bytes or 0) / seconds / 1e6 if f.write_bytes is not None else None,
        mean_read_kb=f.read_bytes / f.reads / 1000 if f.reads else None,
        mean_write_kb=(f.write_bytes or 0) / writes / 1000 if writes and f.write_bytes is not None else None,
        random_share=(f.single_block_reads / f.reads) if f.single_block_reads is not None and f.reads else None,
        read_latency_ms=f.read_time_ms / f.reads if f.read_time_ms is not None and f.reads else None,
        write_latency_ms=f.write_time_ms / writes if f.write_time_ms is not None and writes else None,
        syncs_per_s=f.syncs / seconds if f.syncs is not None else None,
        name=f.name,
        parent=f.parent,
    )


def as_workload(snapshot: Snapshot) -> Workload:
    """Counters since the server started (or its stats began) as average rates."""
    seconds = _seconds_between(snapshot.server.started_at, snapshot.taken_at)
    return Workload(
        server=snapshot.server, started_at=snapshot.server.started_at, ended_at=snapshot.taken_at,
        interval_s=seconds, rates=tuple(_rate(f, seconds) for f in snapshot.files), wait=snapshot.wait,
        layout=snapshot.layout, warnings=snapshot.warnings + ("rates are averages since the server started",),
        source="snapshot",
    )
