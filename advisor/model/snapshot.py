"""The vocabulary of advisor: frozen records that every stage reads and writes.

A snapshot (one point in time), a workload (rates between two snapshots), a host layout
(where each file's bytes sit on which disk), a disk profile (what the bench measured) and
a report (findings and plan). Units are in the field names; counters are ints; a figure the
source did not provide is ``None``, never a false zero. The JSON form of each document is
the record itself (:mod:`advisor.model.record`, :mod:`advisor.model.jsonio`), documented in docs/json-format.md.
Layout, disk-profile and report classes live in :mod:`advisor.model.layout`,
:mod:`advisor.model.disk` and :mod:`advisor.model.report`; :mod:`advisor.model` exports all of
them, so ``from advisor.model import X`` works for every class.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from advisor.model.coverage import CoverageCheck
from advisor.model.disk import DiskProfile
from advisor.model.jsonio import decode_document, encode, read_document, write_atomic
from advisor.model.kinds import Share, Timestamp
from advisor.model.layout import DiskStatRate, HostLayout
from advisor.model.readcache import ReadEvidence
from advisor.model.record import Record, field
from advisor.model.report import Report
from advisor.model.trace import BlockTrace
from advisor.model.validate import check

FORMAT_VERSION = 3
"""Version of the snapshot and workload documents; bump on incompatible change.

2: a PostgreSQL sequence is kind ``sequence`` (1 said ``data``, and the scripts then tried to
move it). 3: a workload file's ``size_bytes`` is ``null`` when unknown (AWR/Statspack imports
said 0) and ``sizes`` records a merged sizes file. Versions 1 and 2 are still read; a version 2
import's 0 sizes count as unknown (:func:`advisor.sizes.merge.size_unknown`)."""

Dbms = Literal["postgres", "oracle"]

ResetRule = Literal["identity", "recovery", "stats-reset", "stats-reset-views", "restart", "instance"]
"""The rules of :data:`advisor.rates.workload.RULES` that can fire between two snapshots (docs/collect.md)."""
FileKind = Literal[
    "data", "index", "toast", "sequence", "temp", "wal", "redo", "archive", "fra", "control", "undo", "backup", "other"
]
RunStatus = Literal["ok", "skipped", "failed"]
RateLevel = Literal["file", "tablespace", "file type"]
"""What one rate row stands for: a file, a whole tablespace (a report without per-file figures),
or every file of a type (redo, control, a global RAC report's data files)."""

__all__ = [
    "FORMAT_VERSION",
    "CollectorRun",
    "Dbms",
    "FileIO",
    "FileKind",
    "FileRate",
    "RunStatus",
    "SegmentIO",
    "SegmentRate",
    "ServerInfo",
    "SizesSource",
    "Snapshot",
    "WaitProfile",
    "Workload",
    "load_snapshot",
    "load_workload",
    "save",
]


class ServerInfo(Record):
    """Which server a snapshot came from, and the clocks that reveal resets and restarts.

    ``identity`` is PostgreSQL's system_identifier or Oracle's DBID; ``started_at`` is the
    postmaster start or instance startup_time; ``stats_reset`` maps each statistics kind
    (``io``, ``wal``, ``archiver``, ``database:<name>`` ...) to its reset time (ISO 8601) or
    None when the server has never reset it.
    """

    dbms: Dbms
    version: str  # e.g. "18.1", "19.21.0.0.0"
    version_num: int  # PostgreSQL server_version_num; Oracle major*10000+minor*100
    host: str
    name: str  # database (cluster) or DB_NAME / PDB
    identity: str
    started_at: Timestamp
    stats_reset: dict[str, str | None] = field(default_factory=dict)
    instance: str | None = None  # Oracle instance name(s); None for PostgreSQL
    in_recovery: bool = False
    settings: dict[str, str] = field(default_factory=dict)  # timing flags, data_directory, ...

    @property
    def major(self) -> int:
        """Major version: 18 for PostgreSQL 18.1, 19 for Oracle 19c."""
        return self.version_num // 10000


class FileIO(Record):
    """Cumulative IO counters of one file-like object, the same row for both databases.

    ``file_id`` is stable across samples of the same server (PostgreSQL:
    ``<dbname>/<relation oid>``, ``wal``, ``temp/<tablespace>``; Oracle:
    ``<type>:<file#>:<creation_change#>``). Writes and write bytes are None where the
    server keeps no such counter (PostgreSQL per-relation writes); times are None when the
    server does not time IO (track_io_timing off, TIMED_STATISTICS false).
    """

    file_id: str
    path: str  # first (or only) file; a directory for WAL/temp/archive areas
    kind: FileKind
    tablespace: str
    container: str  # database (PostgreSQL) or container/PDB name (Oracle)
    size_bytes: int
    reads: int
    writes: int | None
    read_bytes: int
    write_bytes: int | None
    single_block_reads: int | None = None
    read_time_ms: float | None = None
    write_time_ms: float | None = None
    syncs: int | None = None  # fsync/fdatasync calls (WAL, redo)
    sync_time_ms: float | None = None
    name: str | None = None  # relation, datafile or log group name
    segment_paths: tuple[str, ...] = ()  # further files of the same object (1 GB segments)
    parent: str | None = None  # PostgreSQL: file_id of the table an index or TOAST relation belongs to
    scans: int | None = None  # PostgreSQL: sequential scans of a table (pg_stat_get_numscans); None elsewhere
    collector_reads: int = 0  # PostgreSQL: the collector's own reads not yet in `reads`; the next diff subtracts them
    collector_scans: int = 0  # PostgreSQL: the collector's own scans not yet in `scans`; the next diff subtracts them


class SegmentIO(Record):
    """Cumulative IO counters of one Oracle segment (table, index, LOB, or one partition of it).

    From V$SEGSTAT / V$SEGMENT_STATISTICS (live), DBA_HIST_SEG_STAT or STATS$SEG_STAT
    (history) or an AWR/Statspack report's "Segments by ..." sections. Block counters are in
    blocks of ``block_size`` bytes; any counter the source does not give is None, never 0.
    ``segment_id`` is stable across samples: ``<container>:<owner>.<name>[:<partition>]``.
    ``file_ids`` are the FileIO ids of the files holding its extents when they were looked up
    (DBA_EXTENTS for the top segments); empty means "somewhere in its tablespace's files".
    ``parent`` names the table an index or LOB segment belongs to (``owner.table``).
    """

    segment_id: str
    owner: str
    name: str
    segment_type: str  # TABLE, INDEX, TABLE PARTITION, INDEX PARTITION, LOBSEGMENT, ...
    tablespace: str
    container: str  # PDB name in a CDB, else the database name
    partition: str | None = None
    parent: str | None = None
    size_bytes: int | None = None
    block_size: int | None = None
    physical_reads: int | None = None  # blocks
    physical_read_requests: int | None = None
    physical_reads_direct: int | None = None  # blocks
    physical_writes: int | None = None  # blocks
    physical_write_requests: int | None = None
    physical_writes_direct: int | None = None  # blocks
    segment_scans: int | None = None
    unoptimized_read_requests: int | None = None  # AWR "UnOptimized Reads" (reports only)
    object_id: int | None = None
    data_object_id: int | None = None
    file_ids: tuple[str, ...] = ()


class SegmentRate(Record):
    """Rates of one Oracle segment over a workload interval (per second).

    ``read_iops``/``write_iops`` come from the request counters where the source has them,
    else from blocks (then ``from_blocks`` is True: an upper bound on requests). A figure the
    source does not give is None, never 0: a report lists only its top N segments per
    statistic, so a segment missing from one list has that figure unknown, not zero.
    ``unoptimized_read_iops`` are the read requests not served by a flash cache (AWR's
    "UnOptimized Reads"); ``lower_bound`` marks a counter that went backwards (reset).
    """

    segment_id: str
    owner: str
    name: str
    segment_type: str
    tablespace: str
    container: str
    partition: str | None = None
    parent: str | None = None
    size_bytes: int | None = None
    read_iops: float | None = None
    write_iops: float | None = None
    read_mb_s: float | None = None
    write_mb_s: float | None = None
    direct_read_share: Share | None = None
    scans_per_s: float | None = None
    from_blocks: bool = False
    file_ids: tuple[str, ...] = ()
    unoptimized_read_iops: float | None = None
    direct_write_share: float | None = None
    lower_bound: bool = False


class CollectorRun(Record):
    """Outcome of one collector in one snapshot (postgres_exporter's success + duration)."""

    name: str
    status: RunStatus
    duration_s: float
    reason: str | None = None


class SessionSeen(Record):
    """A server process seen while the interval was sampled: whose requests a block-layer trace holds.

    PostgreSQL: a pg_stat_activity row (its pid, database and ``backend_type``). Only these three
    columns are read: never a user, an address or a query.
    """

    pid: int  # the server process's pid, the kernel's pid of its requests
    database: str | None = None  # its database (None: a process serving none, as the checkpointer)
    role: str = ""  # what it is: "client backend", "checkpointer", "walwriter", "parallel worker", ...


class WaitProfile(Record):
    """How much of the database's time goes to IO: the response-time gate's input.

    PostgreSQL: IO time over active time from cumulative counters when the timing settings
    are on (:mod:`advisor.rates.io_share`), else the share of active sessions waiting on IO,
    sampled from pg_stat_activity; ``io_wait_share`` is the one the gate uses and ``source``
    says which. Oracle: user IO + system IO wait time over DB time (cumulative, diffed).
    """

    io_wait_share: Share | None = None
    samples: int = 0
    active_sessions: float | None = None  # mean active sessions over the samples
    db_time_s: float | None = None  # Oracle cumulative DB time; PostgreSQL Δ active_time
    io_wait_s: float | None = None  # Oracle cumulative user+system IO wait; PostgreSQL Δ IO time
    source: str = ""  # "counters", "pg_stat_activity", Oracle's source
    counter_io_wait_share: float | None = None  # PostgreSQL: from cumulative counters
    sampled_io_wait_share: float | None = None  # PostgreSQL: from pg_stat_activity samples
    io_time_parts_s: dict[str, float] = field(default_factory=dict)  # data reads, data writes, WAL
    notes: tuple[str, ...] = ()  # timing settings to turn on, caveats of the share
    sessions: tuple[SessionSeen, ...] = ()  # the server's processes seen while sampling (names a trace's pids)


class Snapshot(Record):
    """Everything advisor knows at one instant about one server and its host."""

    server: ServerInfo
    taken_at: Timestamp  # ISO 8601 UTC, server clock where available
    files: tuple[FileIO, ...]
    runs: tuple[CollectorRun, ...] = ()
    wait: WaitProfile = field(default_factory=WaitProfile)
    layout: HostLayout | None = None
    views: dict[str, list[dict[str, str | int | float | bool | None]]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    tool_version: str = ""
    segments: tuple[SegmentIO, ...] = ()  # Oracle per-segment counters (empty for PostgreSQL)
    document: Literal["snapshot"] = "snapshot"
    format_version: int = FORMAT_VERSION


class FileRate(Record):
    """Rates of one file over a workload interval (per second unless the name says).

    ``size_bytes`` is None when the source does not state it (AWR and Statspack reports
    carry no file sizes): ``--sizes FILE`` fills it (:mod:`advisor.sizes`), a plan refuses
    without it.
    """

    file_id: str
    path: str
    kind: FileKind
    tablespace: str
    container: str
    size_bytes: int | None
    read_iops: float
    write_iops: float | None
    read_mb_s: float
    write_mb_s: float | None
    mean_read_kb: float | None
    mean_write_kb: float | None
    random_share: Share | None  # single-block reads / reads
    read_latency_ms: float | None
    write_latency_ms: float | None
    syncs_per_s: float | None = None
    name: str | None = None
    lower_bound: bool = False  # a counter went backwards: rate counts only since reset
    parent: str | None = None  # file_id of the owning table (PostgreSQL index/TOAST), see FileIO
    level: RateLevel = "file"  # "tablespace": the row sums a tablespace's files (moved whole)
    blocks_read_per_s: float | None = None  # the server counted blocks; read_iops are its combined IOs


class SizesSource(Record):
    """Where a workload's file sizes came from when they were merged from a sizes file.

    ``taken_at`` is the time the query ran (its ``taken_at`` column; empty when the file has
    none); ``merged_at`` when advisor merged it. ``files_by_name``/``files_by_tablespace``
    count the workload files that took their size each way; ``files_unknown`` those still
    without a size.
    """

    path: str
    file_format: str  # sqlplus-csv, sqlplus-grid, psql-csv, psql-aligned
    taken_at: Timestamp
    merged_at: str
    rows: int
    files_by_name: int
    files_by_tablespace: int
    files_unknown: int
    db_name: str | None = None
    dbid: str | None = None


class InstanceShare(Record):
    """One instance's part of a workload read from a global RAC report (awrgrpt.sql).

    The workload's rates are the database's (every instance summed); each instance keeps its
    own requests, DB time and IO wait here, so the shares stay visible. None: the report does
    not say.
    """

    instance_number: int
    instance: str
    host: str
    interval_s: float | None
    read_iops: float
    write_iops: float | None
    db_time_s: float | None = None
    io_wait_s: float | None = None


class Workload(Record):
    """Rates between two snapshots of the same server, with the rules that fired.

    ``sizes`` records the sizes file merged into it (``--sizes``), None when the sizes are
    the collector's own.
    """

    server: ServerInfo
    started_at: Timestamp
    ended_at: Timestamp
    interval_s: float
    rates: tuple[FileRate, ...]
    wait: WaitProfile = field(default_factory=WaitProfile)
    layout: HostLayout | None = None
    diskstats: tuple[DiskStatRate, ...] = ()
    warnings: tuple[str, ...] = ()
    source: str = ""  # "snapshots", "awr-html", "statspack", ...
    tool_version: str = ""
    segments: tuple[SegmentRate, ...] = ()  # Oracle per-segment rates (top N from a report)
    segment_coverage: Share | None = None  # share of all physical reads the segments account for
    segment_coverages: dict[str, float] = field(default_factory=dict)  # statistic -> share the segments cover
    coverage: tuple[CoverageCheck, ...] = ()  # a report import checked against the report's own totals
    sizes: SizesSource | None = None  # the sizes file merged in (--sizes), with its time
    read_evidence: ReadEvidence | None = None  # a report's latency histograms (cached reads)
    traces: tuple[BlockTrace, ...] = ()  # the block layer's requests per disk (collect --trace)
    instances: tuple[InstanceShare, ...] = ()  # a global RAC report: each instance's share of the rates
    relation_write_mb_s: float | None = None  # data pages the server wrote (PostgreSQL pg_stat_io), None: not counted
    resets: tuple[ResetRule, ...] = ()  # the rules that fired in the interval (each also said in warnings)
    # a directory this host could not see is absent (unknown), never 0
    temp_high_water_bytes: dict[str, int] = field(default_factory=dict)  # temp dir -> most bytes sampled (--interval)
    document: Literal["workload"] = "workload"
    format_version: int = FORMAT_VERSION


def save(document: Snapshot | Workload | DiskProfile | Report, path: Path | str) -> None:
    """Write any advisor document atomically as JSON."""
    write_atomic(path, encode(document))


def load_snapshot(path: Path | str) -> Snapshot:
    """Read a snapshot written by ``advisor collect``; foreign, newer or impossible files are refused.

    Impossible figures (negative, infinite, repeated ids, bad times) are refused by
    :func:`advisor.model.validate.check`, here rather than in each command.
    """
    return check(read_document(path, "snapshot", Snapshot, FORMAT_VERSION), Path(path).name)


def decode_snapshot(raw: bytes | str, source: str) -> Snapshot:
    """A snapshot held in memory (a repository row), read and checked as :func:`load_snapshot` reads a file."""
    return check(decode_document(raw, source, "snapshot", Snapshot, FORMAT_VERSION), source)


def load_workload(path: Path | str) -> Workload:
    """Read a workload written by ``advisor collect --interval`` or ``--from-report``."""
    return check(read_document(path, "workload", Workload, FORMAT_VERSION), Path(path).name)
