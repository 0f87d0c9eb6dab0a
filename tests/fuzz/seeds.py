"""The sound inputs the fuzz suite damages: real-layout reports and small but complete documents.

Reports are the AWR (HTML, text) and Statspack fixtures of tests/oracle, rendered in the
layouts of real reports. Documents are built with the model classes the way the collectors
fill them: a PostgreSQL and an Oracle snapshot pair (counters that grow, a layout, resets),
a workload with every kind of area, and a disk profile.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

from advisor.model import (
    CollectorRun,
    Device,
    DiskProfile,
    FileIO,
    HostLayout,
    Latency,
    Location,
    Partition,
    SegmentIO,
    ServerInfo,
    Snapshot,
    WaitProfile,
    ZonePoint,
)
from advisor.model.jsonio import encode

REPORTS = Path(__file__).resolve().parents[1] / "oracle" / "fixtures"


@cache
def reports() -> dict[str, bytes]:
    """Every report fixture by file name."""
    return {p.name: p.read_bytes() for p in sorted(REPORTS.iterdir()) if p.suffix in (".html", ".txt")}


def _pg_snapshot(taken_at: str, grow: int) -> Snapshot:
    server = ServerInfo("postgres", "17.2", 170002, "db1", "app", "7312001", "2026-11-21T08:00:00+00:00",
                        {"io": "2026-11-20T00:00:00+00:00", "database:app": None, "wal": None},
                        settings={"track_io_timing": "on", "block_size": "8192", "data_directory": "/pg"})
    files = tuple(
        FileIO(f"app/{16384 + n}", f"/pg/base/5/{16384 + n}", kind, "pg_default", "app", 8192 * (100 + n),
               reads=(n + 1) * 100 * grow, writes=None, read_bytes=(n + 1) * 100 * grow * 8192, write_bytes=None,
               read_time_ms=1.5 * (n + 1) * grow, name=f"t{n}")
        for n, kind in enumerate(("data", "index", "toast", "data")))
    wal = FileIO("wal", "/pg/pg_wal", "wal", "", "", 16 << 20, reads=0, writes=500 * grow, read_bytes=0,
                 write_bytes=500 * grow * 8192, syncs=250 * grow, sync_time_ms=0.8 * grow, write_time_ms=2.0 * grow)
    layout = HostLayout("db1", devices=(Device("sda", "/dev/sda", 10**12, rotational=True),),
                        partitions=(Partition("sda1", "sda", 1, 1 << 20, 10**11, ("/pg",), "ext4", True),),
                        locations=(Location("/pg/base/5/16384", "sda", "sda1", 0.1, 0.2, 3, 8192 * 100, 0.15),))
    return Snapshot(server, taken_at, (*files, wal), (CollectorRun("postgres", "ok", 0.2),),
                    wait=WaitProfile(0.4, 10, 1.5), layout=layout, tool_version="fuzz")


def _oracle_snapshot(taken_at: str, grow: int) -> Snapshot:
    server = ServerInfo("oracle", "19.21.0.0.0", 190000, "orahost", "ORCL", "1234567890",
                        "2026-11-01T08:00:00", {}, instance="orcl", settings={"db_block_size": "8192"})
    files = (
        FileIO("data:4:1001", "/u02/oradata/ORCL/users01.dbf", "data", "USERS", "ORCL", 1 << 30, 1000 * grow,
               300 * grow, 1000 * grow * 8192, 300 * grow * 8192, single_block_reads=900 * grow,
               read_time_ms=6.0 * 1000 * grow, write_time_ms=2.0 * 300 * grow),
        FileIO("temp:1:1", "/u03/oradata/ORCL/temp01.dbf", "temp", "TEMP", "ORCL", 1 << 29, 50 * grow, 50 * grow,
               50 * grow * 65536, 50 * grow * 65536),
        FileIO("redo:1", "/u04/redo01.log", "redo", "", "ORCL", 1 << 28, 0, 800 * grow, 0, 800 * grow * 4096,
               syncs=800 * grow, sync_time_ms=0.5 * 800 * grow),
    )
    segments = (SegmentIO("ORCL:APP.ORDERS", "APP", "ORDERS", "TABLE", "USERS", "ORCL", size_bytes=1 << 27,
                          block_size=8192, physical_reads=500 * grow, physical_read_requests=400 * grow,
                          physical_writes=100 * grow, segment_scans=3 * grow, object_id=70001),
                SegmentIO("ORCL:APP.ORDERS_PK", "APP", "ORDERS_PK", "INDEX", "USERS", "ORCL", parent="APP.ORDERS",
                          physical_reads=200 * grow, physical_read_requests=200 * grow))
    return Snapshot(server, taken_at, files, wait=WaitProfile(db_time_s=100.0 * grow, io_wait_s=40.0 * grow),
                    segments=segments, tool_version="fuzz")


def snapshot_pairs() -> dict[str, tuple[Snapshot, Snapshot]]:
    """Two snapshots five minutes apart of one PostgreSQL and one Oracle server."""
    return {
        "pg": (_pg_snapshot("2026-11-21T09:00:00+00:00", 1), _pg_snapshot("2026-11-21T09:05:00+00:00", 3)),
        "oracle": (_oracle_snapshot("2026-11-21T09:00:00", 1), _oracle_snapshot("2026-11-21T09:05:00", 3)),
    }


def other_server(snapshot: Snapshot) -> Snapshot:
    """The same snapshot as if taken on another server (the pair must be refused)."""
    return dataclasses.replace(snapshot, server=dataclasses.replace(snapshot.server, identity="999", host="db2"))


def disk_profile() -> DiskProfile:
    """A profile as ``advisor bench`` writes it for a small hard disk."""
    lat = Latency(8.0, 7.5, 20.0, 35.0)
    return DiskProfile("/dev/loop0", "loop0", 1 << 30, "2026-11-21T09:00:00+00:00", "builtin", 4096,
                       zones=(ZonePoint(0.0, 180e6), ZonePoint(0.5, 140e6), ZonePoint(1.0, 90e6)),
                       band_iops={"outer": 140.0, "middle": 120.0, "inner": 110.0}, band_latency={"outer": lat},
                       full_stroke_iops=80.0, full_stroke_latency=lat, cross_surface_iops=70.0, qd_iops={1: 80.0,
                       4: 120.0}, qd_latency={1: lat}, commit_per_s=110.0, rpm=7200, classification="rotational",
                       runs={"full_stroke": [79.0, 81.0]}, tool_version="fuzz")


def as_bytes(document: object) -> bytes:
    """The document's JSON as advisor writes it."""
    data = encode(document)
    return data if isinstance(data, bytes) else str(data).encode()


@cache
def documents() -> dict[str, bytes]:
    """Every seed document as advisor writes it, by a file name that says what it is."""
    from advisor.collectors.awr import read_report
    from advisor.rates.workload import diff
    from tests.helpers.workloads import sample_workload

    docs: dict[str, bytes] = {}
    for name, (a, b) in snapshot_pairs().items():
        docs[f"{name}-a.snapshot.json"] = as_bytes(a)
        docs[f"{name}-b.snapshot.json"] = as_bytes(b)
        docs[f"{name}.workload.json"] = as_bytes(diff(a, b))
    docs["synth.workload.json"] = as_bytes(sample_workload())
    docs["awr.workload.json"] = as_bytes(read_report(REPORTS / "awr_11.2.0.4.txt"))
    docs["bench.disk-profile.json"] = as_bytes(disk_profile())
    return docs
