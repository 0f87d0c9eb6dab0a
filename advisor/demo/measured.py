"""Per-IO latencies PostgreSQL itself measured between two snapshots (track_io_timing).

pgbench times statements, which mix CPU, several IOs and cache hits; the server's own IO
timing gives the mean time of one read of a tablespace's relations and of one WAL flush,
the quantities the disk model predicts. PostgreSQL times reads per backend type, not per
relation, so the read figure is pg_stat_io's (client backends, all relations: in the demo
almost all of them are the hot tablespace's). Both come from the snapshots ``advisor collect``
wrote, so they cover exactly the interval the report analysed.
"""

from __future__ import annotations

from pathlib import Path

from advisor.model import FileIO, load_snapshot


def _delta(before: dict[str, FileIO], after: FileIO, field: str) -> float:
    old = before.get(after.file_id)
    new_value = getattr(after, field)
    old_value = getattr(old, field) if old is not None else 0
    return float((new_value or 0) - (old_value or 0))


def io_latencies(first: Path, second: Path, tablespace: str) -> dict[str, float | None]:
    """Mean ms per read of *tablespace*'s relations, per WAL write and per WAL flush."""
    a, b = load_snapshot(first), load_snapshot(second)
    before = {f.file_id: f for f in a.files}
    reads = read_ms = 0.0
    writes = write_ms = syncs = sync_ms = 0.0
    for file in b.files:
        if file.kind == "wal":
            writes += _delta(before, file, "writes")
            write_ms += _delta(before, file, "write_time_ms")
            syncs += _delta(before, file, "syncs")
            sync_ms += _delta(before, file, "sync_time_ms")
        elif file.tablespace == tablespace:
            reads += _delta(before, file, "reads")
            read_ms += _delta(before, file, "read_time_ms")
    if read_ms <= 0:  # no per-relation timing in PostgreSQL: fall back to pg_stat_io (all relations)
        reads, read_ms = _io_view_reads(a.views.get("pg_stat_io", []), b.views.get("pg_stat_io", []))
    return {
        "read_ms": read_ms / reads if reads > 0 and read_ms > 0 else None,
        "reads": reads,
        "wal_write_ms": write_ms / writes if writes > 0 and write_ms > 0 else None,
        "wal_sync_ms": sync_ms / syncs if syncs > 0 and sync_ms > 0 else None,
        "wal_syncs": syncs,
    }


Row = dict[str, str | int | float | bool | None]


def _io_view_reads(first: list[Row], second: list[Row]) -> tuple[float, float]:
    """(reads, read ms) of client backends' relation reads between two pg_stat_io samples.

    >>> row = {"backend_type": "client backend", "object": "relation", "context": "normal"}
    >>> _io_view_reads([row | {"reads": 10, "read_time": 50.0}], [row | {"reads": 30, "read_time": 250.0}])
    (20.0, 200.0)
    """
    def pick(rows: list[Row]) -> tuple[float, float]:
        for row in rows:
            if (row.get("backend_type"), row.get("object"), row.get("context")) == \
                    ("client backend", "relation", "normal"):
                return float(str(row.get("reads") or 0)), float(str(row.get("read_time") or 0))
        return 0.0, 0.0

    (reads_a, ms_a), (reads_b, ms_b) = pick(first), pick(second)
    return reads_b - reads_a, ms_b - ms_a
