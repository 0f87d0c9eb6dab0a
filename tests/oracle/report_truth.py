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
