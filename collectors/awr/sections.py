"""What advisor reads from an AWR or Statspack report, whatever its layout.

The HTML, AWR text and Statspack text readers all fill a :class:`ReportData`; the workload
builder (:mod:`advisor.collectors.awr.build`) turns it into a Workload and runs the cross-checks.
Rates are kept as the report prints them; counts (reads, writes) are interval totals.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from advisor.errors import BadInput

if TYPE_CHECKING:
    from advisor.collectors.awr.segments import SegmentTable
    from advisor.model import EventHistogram


@dataclass
class FileRow:
    """One row of "File IO Stats"."""

    tablespace: str
    filename: str
    reads: float | None  # None only when the report printed an overflow mark
    reads_s: float | None
    av_rd_ms: float | None
    av_blks_rd: float | None
    writes: float | None
    writes_s: float | None
    single_reads_s: float | None = None  # "1-bk Rds/s" (11.2.0.4+)
    av_single_rd_ms: float | None = None  # "Av 1-bk Rd(ms)"
    buffer_waits: float | None = None
    pdb: str | None = None  # "PDB Name" (12.2 CDB)
    line: int = 0


@dataclass
class TablespaceRow:
    """One row of "Tablespace IO Stats", cells by column key (only used to cross-check files)."""

    tablespace: str
    values: dict[str, float | None]
    pdb: str | None = None
    line: int = 0


@dataclass
class FiletypeRow:
    """One row of "IOStat by Filetype summary": per-type requests and bytes per second."""

    filetype: str
    read_bytes: float | None
    read_reqs_s: float | None
    read_bytes_s: float | None
    write_bytes: float | None
    write_reqs_s: float | None
    write_bytes_s: float | None
    small_read_ms: float | None
    large_read_ms: float | None
    instance: int | None = None  # a global RAC report: the row's I#


@dataclass
class InstanceRow:
    """One instance of a global RAC report ("Database Instances Included In Report", Time Model, waits)."""

    number: int
    name: str
    host: str = ""
    begin_time: str = ""
    end_time: str = ""
    elapsed_s: float | None = None
    db_time_s: float | None = None
    io_wait_s: float | None = None


@dataclass
class ReportData:
    """Everything the readers extract; None means "the report does not say"."""

    kind: str  # "awr-html", "awr-text", "statspack"
    path: str
    db_name: str = ""
    dbid: str = ""
    instance: str = ""
    inst_num: str = ""
    release: str = ""
    host: str = ""
    rac: bool = False
    cdb: bool = False
    startup_time: str = ""
    begin_snap: str = ""
    end_snap: str = ""
    begin_time: str = ""
    end_time: str = ""
    elapsed_s: float | None = None
    db_time_s: float | None = None
    block_size: int | None = None
    files: list[FileRow] = field(default_factory=list)
    tablespaces: list[TablespaceRow] = field(default_factory=list)
    filetypes: list[FiletypeRow] = field(default_factory=list)
    events: dict[str, tuple[float, float]] = field(default_factory=dict)  # name -> (waits, total seconds)
    wait_classes: dict[str, float] = field(default_factory=dict)  # class -> total seconds (foreground)
    histogram: dict[str, list[float]] = field(default_factory=dict)  # filename -> single-block read buckets
    load_profile: dict[str, float] = field(default_factory=dict)  # "reads"/"writes" -> IO requests per second
    event_histograms: list[EventHistogram] = field(default_factory=list)  # "Wait Event Histogram" read events
    empty_sections: list[str] = field(default_factory=list)
    segment_tables: list[SegmentTable] = field(default_factory=list)  # "Segments by ..." sections
    instances: list[InstanceRow] = field(default_factory=list)  # a global RAC report's instances
    exadata: bool = False  # the report has Exadata storage cell sections
    file_io_absent: bool = False  # no File IO Stats heading at all (cut out, or a layout without it)
    left_out: list[str] = field(default_factory=list)  # File IO Stats rows printed but not read (their names)
    warnings: list[str] = field(default_factory=list)

    def event_avg_ms(self, name: str) -> float | None:
        """Average wait of an event in ms, from its waits and total time."""
        waits, seconds = self.events.get(name, (0.0, 0.0))
        return seconds * 1000.0 / waits if waits else None


def optional_section(data: ReportData, title: str, read: Callable[[], None]) -> None:
    """Read a section the workload does not need; one that cannot be read is skipped with a warning.

    The sections that feed the workload (File IO, Tablespace IO, IOStat by Filetype, Load
    Profile, wait events and classes, segments) are read strictly: their errors refuse the
    report. The others (the wait event and file read histograms) only add evidence, so a
    layout advisor does not know there never costs the import (docs/report-quirks.md).
    """
    try:
        read()
    except BadInput as exc:
        data.warnings.append(f"{title}: skipped, the workload does not need it ({exc.message})")


def release_tuple(release: str) -> tuple[int, ...]:
    """``"11.2.0.4.0"`` -> (11, 2, 0, 4, 0); BadInput when the header has no usable release."""
    parts = re.findall(r"\d+", release)
    if not parts:
        raise BadInput(f"report header has no database release (found {release!r})")
    if any(len(p) > 4 for p in parts):  # 19.21.0.0.0, 23.4.0.24.05: a 40-digit part is damage
        raise BadInput(f"report header: Release {release[:40]!r} is not a database release")
    return tuple(int(p) for p in parts)


def block_size_from(text: str) -> int | None:
    """``8K`` / ``8,192`` / ``16K`` as printed under "Std Block Size" or db_block_size."""
    cleaned = text.replace(",", "").strip().upper()
    match = re.match(r"^(\d+)\s*(K?)$", cleaned)
    if not match:
        return None
    return int(match.group(1)) * (1024 if match.group(2) else 1)


COLUMN_KEYS = {
    "Reads": "reads", "AvReads/s": "reads_s", "AvRds/s": "reads_s", "AvRd(ms)": "av_rd_ms",
    "AvBlks/Rd": "av_blks_rd", "1-bkRds/s": "single_reads_s", "Av1-bkRd(ms)": "av_single_rd_ms",
    "%OptReads": "opt_reads", "Writes": "writes", "AvWrites/s": "writes_s", "Writesavg/s": "writes_s",
    "AvWrites(ms)": "av_wr_ms", "BufferWaits": "buffer_waits", "AvBufWt(ms)": "av_buf_ms",
    "MxRdBkt": "max_read_bucket", "PDBName": "pdb", "Tablespace": "tablespace", "Filename": "filename",
    "Event": "event", "WaitClass": "wait_class", "Waits": "waits", "TotalWaitTime(s)": "total_s",
    "TotalWait(s)": "total_s", "TotalWaitTime(sec)": "total_s",
}


LOAD_PROFILE_ROWS = {"Read IO requests:": "reads", "Write IO requests:": "writes"}
"""The Load Profile rows (11.2.0.2+) the reconciliation compares the files with, per second."""


COLUMN_LABELS = {
    "reads": "Reads", "reads_s": "Av Reads/s", "av_rd_ms": "Av Rd(ms)", "av_blks_rd": "Av Blks/Rd",
    "single_reads_s": "1-bk Rds/s", "av_single_rd_ms": "Av 1-bk Rd(ms)", "opt_reads": "% Opt Reads",
    "writes": "Writes", "writes_s": "Av Writes/s", "av_wr_ms": "Av Writes(ms)", "buffer_waits": "Buffer Waits",
    "av_buf_ms": "Av Buf Wt(ms)", "max_read_bucket": "Mx Rd Bkt", "waits": "Waits", "total_s": "Total Wait Time (s)",
}
"""How a report heads the columns advisor reads, for messages (keys as :func:`column_key` gives them)."""


def column_key(header: str) -> str:
    """Canonical key of a column header, whatever its spacing or line breaks ("Av Rd (ms)")."""
    squashed = "".join(header.split())
    return COLUMN_KEYS.get(squashed, squashed)


ROW_CELLS = frozenset({"reads", "reads_s", "writes", "writes_s"})
"""The figures a File IO row stands on: one unreadable leaves the row out; any other is left unknown."""


def file_figures(keys: Iterable[str], read: Callable[[str], float | None], name: str,
                 warnings: list[str]) -> dict[str, float | None]:
    """Each figure of a File IO row: an unreadable latency (``NaN`` under Av Rd(ms)) is left unknown
    with a warning, so it does not hide the file's reads; an unreadable count raises BadInput."""
    figures: dict[str, float | None] = {}
    for key in keys:
        try:
            figures[key] = read(key)
        except BadInput as exc:
            if key in ROW_CELLS:
                raise
            figures[key] = None
            warnings.append(f"{exc.message}; left unknown for {name}")
    return figures


def file_row(tablespace: str, filename: str, cells: dict[str, float | None], pdb: str | None,
             line: int, where: str, overflowed: Collection[str] = ()) -> FileRow:
    """A FileRow from cells keyed by column key; BadInput when Reads or Writes are missing.

    A figure in *overflowed* (printed as ``######``) is unknown, not missing: the row stays.
    """
    reads, writes = cells.get("reads"), cells.get("writes")
    if (reads is None and "reads" not in overflowed) or (writes is None and "writes" not in overflowed):
        raise BadInput(f"{where} line {line}: no Reads/Writes figures for {filename} (garbled or truncated report)")
    return FileRow(
        tablespace=tablespace, filename=filename, reads=reads, reads_s=cells.get("reads_s"),
        av_rd_ms=cells.get("av_rd_ms"), av_blks_rd=cells.get("av_blks_rd"), writes=writes,
        writes_s=cells.get("writes_s"), single_reads_s=cells.get("single_reads_s"),
        av_single_rd_ms=cells.get("av_single_rd_ms"), buffer_waits=cells.get("buffer_waits"), pdb=pdb, line=line,
    )
