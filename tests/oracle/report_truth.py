"""The known figures every generated AWR / Statspack fixture is rendered from.

One hour (3,600 s) of a small database. The tests parse each fixture and compare what the
reader found with these numbers, so a column mapped to the wrong header, a unit applied
twice or a split line glued to the wrong file shows up as a wrong figure.
"""

from __future__ import annotations

from dataclasses import dataclass

INTERVAL_S = 3600.0
BLOCK_SIZE = 8192
DB_NAME, DBID, INSTANCE, HOST = "ORCL", "1234567890", "orcl", "dbhost1"
BEGIN_SNAP, END_SNAP = 100, 101
BEGIN_TIME, END_TIME, STARTUP = "20-Nov-26 10:00:00", "20-Nov-26 11:00:00", "01-Nov-26 08:00"
DB_TIME_S = 7200.0


@dataclass(frozen=True)
class TruthFile:
    tablespace: str
    path: str
    reads: int
    av_rd_ms: float
    av_blks_rd: float
    single_share: float  # share of single-block reads (1-bk Rds/s over Av Rds/s)
    writes: int
    buffer_waits: int
    kind: str

    @property
    def reads_s(self) -> float:
        return self.reads / INTERVAL_S

    @property
    def writes_s(self) -> float:
        return self.writes / INTERVAL_S


FILES = (
    TruthFile("SYSAUX", "/u01/oradata/ORCL/sysaux01.dbf", 36_000, 4.0, 1.0, 1.0, 18_000, 0, "data"),
    TruthFile("SYSTEM", "/u01/oradata/ORCL/system01.dbf", 72_000, 5.0, 1.0, 1.0, 7_200, 12, "data"),
    TruthFile("TEMP", "/u03/oradata/ORCL/temp01.dbf", 18_000, 2.0, 16.0, 0.0, 18_000, 0, "temp"),
    TruthFile("UNDOTBS1", "/u01/oradata/ORCL/undotbs01.dbf", 3_600, 6.0, 1.0, 1.0, 36_000, 0, "undo"),
    TruthFile("USERS", "/u02/oradata/ORCL/users01.dbf", 360_000, 8.0, 2.5, 0.8, 108_000, 360, "data"),
    TruthFile("USERS", "/u02/oradata/ORCL/users02.dbf", 180_000, 7.0, 1.0, 1.0, 36_000, 0, "data"),
)

# IOStat by Filetype summary, per second (Data per sec in MiB/s, latencies in ms)
# name: (read reqs/s, read MiB/s, write reqs/s, write MiB/s, small read ms, large read ms, kind)
FILETYPES = {
    "Data File": (181.0, 2.0, 57.0, 0.5, 5.8, 12.0, "data"),
    "Log File": (0.5, 0.5, 50.0, 1.0, 0.0, 4.0, "redo"),
    "Archive Log": (0.0, 0.0, 0.5, 0.5, 0.0, 0.0, "archive"),
    "Temp File": (5.0, 0.6, 5.0, 0.6, 0.0, 2.0, "temp"),
    "Control File": (20.0, 0.3, 5.0, 0.1, 0.4, 0.0, "control"),
}

# events: name -> (waits, total seconds); averages: 6, 8, 0.5, 1, 2 ms
EVENTS = {
    "db file sequential read": (600_000, 3600.0),
    "db file scattered read": (50_000, 400.0),
    "direct path read": (18_000, 36.0),
    "log file sync": (150_000, 150.0),
}
BACKGROUND_EVENTS = {"log file parallel write": (180_000, 90.0), "db file parallel write": (20_000, 40.0)}
WAIT_CLASSES = {"User I/O": (668_000, 4036.0), "System I/O": (10_000, 14.0), "Commit": (150_000, 150.0)}
IO_WAIT_SHARE = (4036.0 + 14.0) / DB_TIME_S

# Statspack File Read Histogram: single-block reads per bucket (0-2, 2-4, 4-8, 8-16, 16-32, 32+ ms)
HISTOGRAM = {f.path: [f.reads * f.single_share * s for s in (0.05, 0.15, 0.40, 0.30, 0.08, 0.02)]
             for f in FILES if f.kind != "temp"}

# 12.1.0.2 quirk: this file prints an impossible Av Rd(ms) (the reader must refuse it)
IMPLAUSIBLE_FILE, IMPLAUSIBLE_MS = "/u02/oradata/ORCL/users02.dbf", 36_250.0


@dataclass(frozen=True)
class TruthSegment:
    """One segment's interval totals (blocks and requests), as the Segments by ... sections print them."""

    owner: str
    name: str
    subobject: str
    kind: str  # full type name (HTML); the text reports print the short form
    tablespace: str
    obj: int
    dataobj: int
    counts: dict[str, int]
    pdb: str = "SALES"  # container in the 12.2 CDB report

    @property
    def missing(self) -> bool:
        return self.owner == "** MISSING **"


def _counts(reads: int, read_reqs: int, direct_reads: int, writes: int, write_reqs: int, direct_writes: int,
            scans: int) -> dict[str, int]:
    return {"physical_reads": reads, "physical_read_requests": read_reqs, "unoptimized_read_requests": read_reqs,
            "physical_reads_direct": direct_reads, "physical_writes": writes, "physical_write_requests": write_reqs,
            "physical_writes_direct": direct_writes, "segment_scans": scans}


SEGMENTS = (
    TruthSegment("SCOTT", "ORDERS", "", "TABLE", "USERS", 74001, 74001,
                 _counts(240_000, 120_000, 60_000, 30_000, 20_000, 0, 40)),
    TruthSegment("SCOTT", "ORDERS_PK", "", "INDEX", "USERS", 74002, 74002,
                 _counts(90_000, 90_000, 0, 18_000, 15_000, 0, 0)),
    TruthSegment("SCOTT", "SALES", "P2026Q4", "TABLE PARTITION", "USERS", 74010, 74011,
                 _counts(150_000, 30_000, 120_000, 6_000, 1_000, 6_000, 300)),
    TruthSegment("SCOTT", "SYS_LOB0000074001C00004$$", "", "LOBSEGMENT", "USERS", 74005, 74005,
                 _counts(12_000, 12_000, 12_000, 8_000, 8_000, 8_000, 0)),
    TruthSegment("SYS", "OBJ$", "", "TABLE", "SYSTEM", 18, 18, _counts(6_000, 6_000, 0, 600, 600, 0, 12),
                 pdb="CDB$ROOT"),
    TruthSegment("SCOTT", "AUDIT_TRAIL", "", "TABLE", "AUDIT_TS", 74020, 74020,
                 _counts(5_000, 5_000, 0, 9_000, 9_000, 0, 0)),
    TruthSegment("** MISSING **", "** MISSING **", "", "UNDEFINED", "USERS", 74100, 74101,
                 _counts(4_000, 4_000, 0, 500, 500, 0, 2)),
)
SEGMENT_STATISTICS = tuple(SEGMENTS[0].counts)
TOP_N = 5
# the report's totals: what every segment did, captured or not ("Captured Segments account for X%")
SEGMENT_TOTALS = {stat: int(sum(s.counts[stat] for s in SEGMENTS) / 0.9) + 1 for stat in SEGMENT_STATISTICS}


def listed(statistic: str) -> list[TruthSegment]:
    """The top N segments a report prints for *statistic* (those with a non-zero figure)."""
    ranked = sorted((s for s in SEGMENTS if s.counts[statistic]), key=lambda s: -s.counts[statistic])
    return ranked[:TOP_N]


def captured_pct(statistic: str) -> float:
    return 100.0 * sum(s.counts[statistic] for s in SEGMENTS) / SEGMENT_TOTALS[statistic]


# statistic -> (section title, value column header, total note label), as AWR prints them
SEGMENT_SECTIONS = {
    "physical_reads": ("Segments by Physical Reads", "Physical Reads", "Total Physical Reads"),
    "physical_read_requests": ("Segments by Physical Read Requests", "Phys Read Requests",
                               "Total Physical Read Requests"),
    "unoptimized_read_requests": ("Segments by UnOptimized Reads", "UnOptimized Reads",
                                  "Total UnOptimized Read Requests"),
    "physical_reads_direct": ("Segments by Direct Physical Reads", "Direct Reads", "Total Direct Physical Reads"),
    "physical_writes": ("Segments by Physical Writes", "Physical Writes", "Total Physical Writes"),
    "physical_write_requests": ("Segments by Physical Write Requests", "Phys Write Requests",
                                "Total Physical Write Requests"),
    "physical_writes_direct": ("Segments by Direct Physical Writes", "Direct Writes", "Total Direct Physical Writes"),
    "segment_scans": ("Segments by Table Scans", "Table Scans", "Total Table Scans"),
}


# --- the Statspack 11.2 data warehouse report (statspack_11.2.0.4_dwh.txt) -----------------
# Eleven tablespaces, eleven data files and one temp file. Its File IO Stats prints the way
# the report that lost ten files did: the Mx Rd Bkt column, a row one cell short when its
# Buffer Waits is 0 (no Av BufWt), a blank Mx Rd Bkt in the temp file's row, a blank line
# between tablespace groups, and a file name longer than its 52-character column wrapped
# onto the next line. (A test blanks the repeated tablespace names, as SQL*Plus prints them
# when the report breaks on the tablespace.)

DWH_DB, DWH_DBID, DWH_INSTANCE, DWH_HOST = "DWH", "3141592653", "dwh1", "dwhhost"
DWH_SEQUENTIAL_READ = (2_400_000, 3600.0)  # waits, seconds: 1.50 ms, an instance average dominated by cache


@dataclass(frozen=True)
class DwhFile:
    tablespace: str
    path: str
    reads: int
    av_rd_ms: float
    bucket: int | None  # Mx Rd Bkt (None for a temp file: no histogram)
    av_blks_rd: float
    writes: int
    buffer_waits: int
    kind: str = "data"


LONG_PATH = "/u05/oradata/DWH/dwh_summary_materialized_views_2026_q4_part01.dbf"  # 67 characters: wraps
DWH_FILES = (
    DwhFile("DWH_INDEX", "/u02/oradata/DWH/dwh_index01.dbf", 1_440_000, 3.2, 16, 1.0, 216_000, 45),
    DwhFile("DWH_LOB", "/u03/oradata/DWH/dwh_lob01.dbf", 36_000, 16.7, 64, 1.0, 3_600, 0),
    DwhFile("DWH_STAGE", "/u03/oradata/DWH/dwh_stage01.dbf", 288_000, 9.5, 128, 14.2, 576_000, 0),
    DwhFile("DWH_STAGE", "/u03/oradata/DWH/dwh_stage02.dbf", 720_000, 3.4, 16, 1.0, 108_000, 0),
    DwhFile("DWH_SUMMARY", LONG_PATH, 180_000, 6.1, 32, 7.9, 18_000, 0),
    DwhFile("PERFSTAT", "/u01/oradata/DWH/perfstat01.dbf", 3_600, 2.0, 8, 1.0, 7_200, 0),
    DwhFile("SYSAUX", "/u01/oradata/DWH/sysaux01.dbf", 54_000, 1.9, 32, 1.1, 36_000, 0),
    DwhFile("SYSTEM", "/u01/oradata/DWH/system01.dbf", 72_000, 0.8, 8, 1.0, 3_600, 9),
    DwhFile("TEMP", "/u04/oradata/DWH/temp01.dbf", 108_000, 0.4, None, 31.0, 108_000, 0, "temp"),
    DwhFile("UNDOTBS1", "/u01/oradata/DWH/undotbs01.dbf", 7_200, 1.2, 4, 1.0, 90_000, 0, "undo"),
    DwhFile("USERS", "/u01/oradata/DWH/users01.dbf", 360, 5.0, 16, 1.0, 36, 0),
    DwhFile("XDB", "/u01/oradata/DWH/xdb01.dbf", 36, 4.0, 8, 1.0, 0, 0),
)


# ASH "Top Sessions" and "Top Blocking Sessions" rows as AWR prints them: the session is a
# "Sid, Serial#" pair joined by a comma (13071,63938), neither a decimal nor a grouping, and
# the blocking session carries its instance (2581,52211( 1)). No figure of these is read.
ASH_TOP_SESSIONS = (
    ("13071,63938", "12.34", "db file sequential read", "8.76", "DWHUSER", "JDBC Thin Client", "1,234/3,600 [ 34%]",
     "0"),
    ("", "", "CPU + Wait for CPU", "3.58", "", "", "129/3,600 [  4%]", "0"),
    ("907,11", "5.02", "direct path read", "5.02", "ETL", "sqlplus@dwhhost (TNS V1-V3)", "181/3,600 [  5%]", "2"),
)
ASH_BLOCKING_SESSIONS = (
    ("2581,52211( 1)", "3.21", "enq: TX - row lock contention", "3.21", "APP", "oracle@dbhost1 (J001)",
     "116/3,600 [  3%]", "1"),
)

# Load Profile per second: "Read IO requests" counts every physical read request of the
# instance (data and temp files, and control file reads), "Write IO requests" the data and
# temp file writes (DBWR and direct writes; redo is not in it).
LOAD_PROFILE_READS_S = sum(f.reads for f in FILES) / INTERVAL_S + 20.0  # + control file reads
LOAD_PROFILE_WRITES_S = sum(f.writes for f in FILES) / INTERVAL_S
