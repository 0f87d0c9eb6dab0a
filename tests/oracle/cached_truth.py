"""Figures of the cached-read fixtures: an 11.2 instance whose hottest file is read from a cache.

TS_UNIAUTH is the file of the 11.2 report that read 647 MB/s, 1,226 reads a second, at an Av
Rd(ms) of 0.03: no rotating disk reads that fast. USERS reads at an ordinary 8 ms (a disk's
reads), SYSAUX at 2.4 ms with most of its single-block reads in the 0-2 ms bucket of the
Statspack File Read Histogram (the histogram proves part of them cached where the mean alone
cannot). The untimed Statspack report prints every time as 0 (timed_statistics off).
"""

from __future__ import annotations

from tests.oracle.report_truth import INTERVAL_S, TruthFile

UNIAUTH_PATH = "/u02/oradata/ORCL/ts_uniauth01.dbf"
UNIAUTH_READS_S = 1226.0
UNIAUTH_MS = 0.03
UNIAUTH_BLOCKS = 67.6  # 1,226 r/s x 67.6 x 8 KiB = 647 MiB/s
USERS_PATH = "/u02/oradata/ORCL/users01.dbf"
SYSAUX_PATH = "/u01/oradata/ORCL/sysaux01.dbf"

FILES = (
    TruthFile("SYSAUX", SYSAUX_PATH, 36_000, 2.4, 1.0, 1.0, 18_000, 0, "data"),
    TruthFile("SYSTEM", "/u01/oradata/ORCL/system01.dbf", 72_000, 5.0, 1.0, 1.0, 7_200, 12, "data"),
    TruthFile("TEMP", "/u03/oradata/ORCL/temp01.dbf", 18_000, 2.0, 16.0, 0.0, 18_000, 0, "temp"),
    TruthFile("TS_UNIAUTH", UNIAUTH_PATH, int(UNIAUTH_READS_S * INTERVAL_S), UNIAUTH_MS, UNIAUTH_BLOCKS, 0.03,
              483_955, 0, "data"),
    TruthFile("UNDOTBS1", "/u01/oradata/ORCL/undotbs01.dbf", 3_600, 6.0, 1.0, 1.0, 36_000, 0, "undo"),
    TruthFile("USERS", USERS_PATH, 540_000, 8.0, 1.0, 1.0, 108_000, 360, "data"),
)

_SHARES = {  # File Read Histogram shares of single-block reads (0-2, 2-4, 4-8, 8-16, 16-32, 32+ ms)
    SYSAUX_PATH: (0.70, 0.05, 0.10, 0.10, 0.05, 0.0),
    USERS_PATH: (0.05, 0.15, 0.40, 0.30, 0.08, 0.02),
    "/u01/oradata/ORCL/system01.dbf": (0.05, 0.15, 0.40, 0.30, 0.08, 0.02),
}
FILE_HISTOGRAM = {f.path: [f.reads * f.single_share * s for s in _SHARES[f.path]] for f in FILES if f.path in _SHARES}

# IOStat by Filetype summary per second, as report_truth.FILETYPES (Data File: the files' reads and MiB)
_DATA_READS_S = sum(f.reads for f in FILES if f.kind != "temp") / INTERVAL_S
_DATA_MIB_S = sum(f.reads * f.av_blks_rd * 8192 for f in FILES if f.kind != "temp") / INTERVAL_S / (1 << 20)
FILETYPES = {
    "Data File": (round(_DATA_READS_S, 1), round(_DATA_MIB_S, 1), 57.0, 0.5, 0.3, 0.1, "data"),
    "Log File": (0.5, 0.5, 50.0, 1.0, 0.0, 4.0, "redo"),
    "Temp File": (5.0, 0.6, 5.0, 0.6, 0.0, 2.0, "temp"),
    "Control File": (20.0, 0.3, 5.0, 0.1, 0.4, 0.0, "control"),
}

# Wait Event Histogram: event -> (Total Waits as printed, % of waits <1ms <2ms <4ms <8ms <16ms <32ms <=1s >1s)
EVENT_HISTOGRAMS: dict[str, tuple[str, tuple[float | None, ...]]] = {
    "db file scattered read": ("4281K", (99.2, 0.5, 0.2, 0.1, None, None, None, None)),
    "db file sequential read": ("784K", (20.1, 4.4, 14.9, 35.2, 19.8, 4.6, 1.0, None)),
    "log file parallel write": ("180K", (81.0, 12.0, 5.0, 2.0, None, None, None, None)),
}
SEQUENTIAL_UNDER_1MS = 0.201
