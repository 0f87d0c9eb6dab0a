"""Small hand-made snapshots: one server, one two-disk host layout, files with known counters.

The disk-map and first-use tests build their snapshots from these, so a figure a test asserts
can be read off the layout here.
"""

from __future__ import annotations

from advisor.model import (
    CollectorRun,
    Device,
    DiskStat,
    FileIO,
    HostLayout,
    Location,
    Partition,
    ServerInfo,
    Snapshot,
)

GIB = 1 << 30

SERVER = ServerInfo("postgres", "18.1", 180001, "db1", "postgres", "42", "2026-01-01T00:00:00+00:00")


def file_io(file_id: str, path: str, kind: str, tablespace: str, reads: int, writes: int | None) -> FileIO:
    """One file's cumulative counters; *reads*/*writes* count 8 KiB blocks, ``None`` writes are unknown."""
    return FileIO(file_id, path, kind, tablespace, "db", GIB, reads, writes, reads * 8192,  # type: ignore[arg-type]
                  None if writes is None else writes * 8192)


def two_disk_layout() -> HostLayout:
    """Host ``h``: sdb (two ext4 partitions, /fast and /slow) and sdc (xfs /arch, misaligned), with the
    files /fast/a, /fast/b, /slow/c, /wal placed, /tmpfs/t in memory and /split/x, /split/y on two disks."""
    disk = Device("sdb", "/dev/sdb", 100 * GIB, model="ST4000DM004", rotational=True, transport="sata")
    other = Device("sdc", "/dev/sdc", 100 * GIB, model="WD40EFRX", rotational=True, transport="sata")
    parts = (Partition("sdb1", "sdb", 1, 1 << 20, 20 * GIB, ("/fast",), "ext4", True),
             Partition("sdb2", "sdb", 2, 20 * GIB + (1 << 20), 80 * GIB - (2 << 20), ("/slow",), "ext4", True),
             Partition("sdc1", "sdc", 1, 1 << 20, 99 * GIB, ("/arch",), "xfs", False))
    locations = (
        Location("/fast/a", "sdb", "sdb1", 0.05, 0.06, 1, GIB, 0.055),
        Location("/fast/b", "sdb", "sdb1", 0.10, 0.12, 2, GIB, 0.11),
        Location("/slow/c", "sdb", "sdb2", 0.90, 0.95, 1, GIB, 0.92),
        Location("/wal", "sdc", "sdc1", 0.30, 0.31, 4, GIB, 0.305),
        Location("/tmpfs/t", None, None, None, None, 0, 0, placement_known=False, reason="tmpfs lives in memory"),
        Location("/split/x", "sdb", "sdb1", 0.2, 0.21, 1, GIB, 0.205),
        Location("/split/y", "sdc", "sdc1", 0.5, 0.51, 1, GIB, 0.505),
    )
    stats = (DiskStat("sdb", 1000, 0, 0, 1000, 0, 0, 0), DiskStat("sdb1", 1500, 0, 0, 0, 0, 0, 0, is_partition=True),
             DiskStat("sdb2", 500, 0, 0, 0, 0, 0, 0, is_partition=True), DiskStat("sdc", 10, 0, 0, 0, 0, 0, 0))
    return HostLayout("h", (disk, other), parts, locations, stats)


def small_snapshot() -> Snapshot:
    """One PostgreSQL file known by its reads only (writes unknown), a reset time known and one not, a
    second segment path, and a located layout: the fields a JSON round trip must keep as they are."""
    server = ServerInfo("postgres", "18.1", 180001, "db1", "app", "7312", "2026-11-21T09:00:00+00:00",
                        {"io": "2026-11-20T00:00:00+00:00", "database:app": None})
    files = (
        FileIO("app/16384", "/pg/base/5/16384", "data", "fast", "app", 8192 * 10, 12, None, 12 * 8192, None,
               read_time_ms=None, segment_paths=("/pg/base/5/16384.1",)),
    )
    layout = HostLayout("db1", devices=(Device("sda", "/dev/sda", 10**12, rotational=True),),
                        locations=(Location("/pg/base/5/16384", "sda", "sda1", 0.1, 0.2, 3),))
    return Snapshot(server, "2026-11-21T09:05:00+00:00", files, (CollectorRun("postgres", "ok", 0.2),), layout=layout)
