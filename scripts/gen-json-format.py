"""Regenerate the field tables of docs/json-format.md from the model dataclasses.

    .venv/bin/python scripts/gen-json-format.py > docs/json-format.md

The prose lives here next to the field descriptions, so a new field without a description
shows up as "(undocumented)" in the diff and gets noticed.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import typing

from advisor import model

INTRO = """# JSON documents: snapshot, workload, report, audit and disk profile

`advisor collect` writes a **snapshot** (one point in time); `advisor collect --interval`,
`advisor workload A B -o` and `advisor collect --from-report` write a **workload** (rates over
an interval); `advisor report`/`plan --format json` write a **report**, `advisor audit --format
json` an **audit** and `advisor bench` a **disk profile**. All are plain JSON objects whose
keys are exactly the fields below (generated from `advisor/model/` by
`scripts/gen-json-format.py`). Readers refuse unknown keys, a
different `document` kind and a newer `format_version`, so a file is either understood
completely or rejected with exit code 6. They also refuse figures that cannot be true
(`advisor/model/validate.py`, run by every `load_*`): a negative, NaN or infinite count, size,
rate or time (only a plan's `predicted_gain` may be negative), a share (type `float (0..1)`:
`random_share`, `io_wait_share`, zone fractions ...) outside 0..1, a `file_id` or `segment_id`
that repeats, a time (`str (ISO 8601)`) that is not ISO 8601; the message names the field, e.g.
`workload.json: rates[3].size_bytes is -1; a size cannot be negative`.

Conventions: times are ISO 8601 with offset (server clock for `taken_at`); units are in the
field names (`_bytes`, `_ms`, `_s`); counters are integers; **`null` means the source does not
provide the figure** (PostgreSQL keeps no per-relation write counter; latency without
`track_io_timing`), never a false zero. Rates: IOPS per second; every `_mb_s` field is MB/s
with 1 MB = 1,048,576 bytes (MiB/s, as iostat and the databases count), mean IO sizes in KiB,
latency = Δtime / Δcount in ms.

Units, one meaning per name. Drive datasheets count a megabyte as 10^6 bytes, and the disk side
keeps their figures as stated (drive presets, drive specs, the disk models, `advisor disk` and
`advisor bench` output print MB/s of 10^6 bytes). No document carries such a figure under an
`_mb_s` name: a disk profile's zone rates are in bytes per second (`bytes_per_s`, format 2), and
a report's `zone_curve` pairs say in their description which megabyte they hold. Why two
megabytes rather than one: converting the drive figures would make every preset disagree with
its datasheet, converting the workload figures would make them disagree with `iostat -m` and the
database views; the names keep them apart instead. Constants come from `advisor/units.py`
(`MIB` = 2^20, `DISK_MB` = 10^6). The terminal, Markdown and HTML output label them apart: the
database's rates as `MiB/s` (`rMiB/s`/`wMiB/s` in `workload`, the report's area table), a
drive's as `MB/s`. An inventory capacity of `"16 TB"` is 16 × 10^12 bytes, as
drives are sold.

Older versions are read: a disk profile of format 1 (zone rates as MB/s of 10^6 bytes under
`mb_s`, and `runs["zones"]` likewise) is converted to bytes per second when it is loaded, by
`advisor report --disk`, `advisor disk fit`, an inventory's `profile` and `advisor push`.

A snapshot's `views` keeps raw rows of the statistics views the collector read (PostgreSQL:
`pg_stat_io` (16+; on 16/17 `read_bytes` etc. are derived as count × `op_bytes`, and
`count_unit` says `blocks` or `operations`), `pg_stat_wal` (18+: write/sync columns taken from
pg_stat_io's `wal` object), `pg_stat_archiver`, `pg_stat_checkpointer` (with the 17 column
names on every version), `pg_stat_database`, `pg_tablespace` (with `relation_bytes`, the sum of
the relation files of that tablespace in the snapshot), and `relation_visits` (per database:
`relations` rows, `files` kept, `seconds` to connect, query and transfer, `files_seconds` to
turn the rows into files, `error`)). `server.stats_reset` keys are `io`,
`wal`, `archiver`, `bgwriter`, `checkpointer` and `database:<name>`; `null` = never reset.

PostgreSQL `FileIO` rows: one per relation with storage (`file_id` `<database>/<oid>`; shared
catalogs `global/<oid>`, counted once), `wal` (the WAL directory), `temp/<tablespace>` and
`archive`. See docs/collect.md for what each counter means.
"""

DESCRIPTIONS: dict[str, str] = {
    "Snapshot.server": "which server, its identity and reset clocks",
    "Snapshot.taken_at": "when the counters were read (server clock)",
    "Snapshot.files": "cumulative IO counters per file-like object",
    "Snapshot.runs": "one entry per collector: ok, skipped or failed, with the reason",
    "Snapshot.wait": "IO wait profile (PostgreSQL: one pg_stat_activity sample)",
    "Snapshot.layout": "host side: disks, partitions, file locations, diskstats (host collector)",
    "Snapshot.views": "raw rows of the statistics views read, by view name",
    "Snapshot.warnings": "what could not be read or is only estimated",
    "Snapshot.tool_version": "advisor version that wrote the file",
    "Snapshot.document": "always `snapshot`",
    "Snapshot.format_version": "format version; newer versions are refused",
    "ServerInfo.dbms": "`postgres` or `oracle`",
    "ServerInfo.version": "server version text, e.g. `18.6`",
    "ServerInfo.version_num": "PostgreSQL server_version_num; Oracle major*10000+minor*100",
    "ServerInfo.host": "server address as the server reports it",
    "ServerInfo.name": "host:port (PostgreSQL) or database name (Oracle)",
    "ServerInfo.identity": "system_identifier (PostgreSQL) or DBID (Oracle): changes mean another cluster",
    "ServerInfo.started_at": "postmaster start / instance startup time",
    "ServerInfo.stats_reset": "reset time per statistics kind; `null` = never reset",
    "ServerInfo.instance": "Oracle instance name(s); `null` for PostgreSQL",
    "ServerInfo.in_recovery": "standby (PostgreSQL pg_is_in_recovery)",
    "ServerInfo.settings": "settings that decide paths and timing (track_io_timing, data_directory, ...)",
    "FileIO.file_id": "stable id across samples of one server",
    "FileIO.path": "first file, or the directory for WAL/temp/archive (empty when unknown)",
    "FileIO.kind": "data, index, toast, temp, wal, redo, archive, fra, control, undo, backup, other",
    "FileIO.tablespace": "tablespace name (`pg_wal`, `archive` for those areas)",
    "FileIO.container": "database (PostgreSQL; `global` for shared catalogs) or PDB (Oracle)",
    "FileIO.size_bytes": "bytes on disk, all segments (PostgreSQL: from the files when visible, else relpages)",
    "FileRate.size_bytes": "bytes on disk, all segments; `null` when unknown (AWR/Statspack imports: see "
                           "docs/awr-import.md#sizes, `--sizes`)",
    "InstanceShare.instance_number": "the instance's number (`I#` of the global report)",
    "InstanceShare.instance": "instance name",
    "InstanceShare.host": "host the instance ran on",
    "InstanceShare.interval_s": "the instance's own elapsed time; `null` when the report does not say",
    "InstanceShare.read_iops": "the instance's read requests per second, every file type",
    "InstanceShare.write_iops": "the instance's write requests per second, every file type; `null` when not stated",
    "InstanceShare.db_time_s": "the instance's DB time over its interval",
    "InstanceShare.io_wait_s": "the instance's foreground User I/O + System I/O wait",
    "SizesSource.path": "the sizes file given with `--sizes`",
    "Workload.read_evidence": "a report import's read-time evidence beside each file's Av Rd(ms) (docs/awr-import.md#"
                              "cached-reads); `null` for other workloads",
    "ReadEvidence.single_block_ms": "file_id -> Av 1-bk Rd(ms) (11.2.0.4+), for files with single-block reads",
    "ReadEvidence.file_histograms": "file_id -> single-block reads per 0-2, 2-4, 4-8, 8-16, 16-32, 32+ ms bucket "
                                    "(Statspack File Read Histogram)",
    "ReadEvidence.events": "the read events of the Wait Event Histogram",
    "ReadEvidence.timed": "false when the report's timings are all zero (timed_statistics off)",
    "ReadEvidence.rounding_ms": "half the last digit Av Rd(ms) is printed with (0.05 text, 0.005 HTML)",
    "EventHistogram.event": "`db file sequential read`, `db file scattered read` or `db file parallel read`",
    "EventHistogram.total_waits": "Total Waits as printed (K/M/G in multiples of 1000); `null` when unreadable",
    "EventHistogram.bucket_ms": "each bucket's upper bound in ms (`<1ms` 1, `<=1s` 1024); `null` for the open last",
    "EventHistogram.percent": "% of the waits in each bucket (an empty cell is 0)",
    "SizesSource.file_format": "`sqlplus-csv`, `sqlplus-grid`, `psql-csv` or `psql-aligned`",
    "SizesSource.taken_at": "when the sizes query ran (its TAKEN_AT column; empty when the file has none)",
    "SizesSource.merged_at": "when advisor merged it (UTC)",
    "SizesSource.rows": "rows read from the file",
    "SizesSource.files_by_name": "workload files that took their size by file name",
    "SizesSource.files_by_tablespace": "workload files that took a share of their tablespace's (or kind's) rows",
    "SizesSource.files_unknown": "workload files still without a size",
    "SizesSource.db_name": "DB name the file states",
    "SizesSource.dbid": "DBID (Oracle) or system identifier (PostgreSQL) the file states",
    "FileIO.reads": "read operations (PostgreSQL relations: shared_buffers misses, in blocks)",
    "FileIO.writes": "write operations; `null` when not counted",
    "FileIO.read_bytes": "bytes read",
    "FileIO.write_bytes": "bytes written; `null` when not counted",
    "FileIO.single_block_reads": "reads of one block (random IO); `null` when unknown",
    "FileIO.read_time_ms": "cumulative read time; `null` when the server does not time IO",
    "FileIO.write_time_ms": "cumulative write time; `null` when not timed",
    "FileIO.syncs": "fsync/fdatasync calls (WAL, redo)",
    "FileIO.sync_time_ms": "cumulative sync time; `null` when not timed",
    "FileIO.name": "relation, datafile or log group name",
    "FileIO.segment_paths": "further files of the same object (`<path>.1`, `.2` ... 1 GB segments)",
    "FileIO.parent": "PostgreSQL: `file_id` of the table an index or TOAST relation belongs to; `null` for tables "
                     "and other rows",
    "CollectorRun.name": "collector (entry point) name",
    "CollectorRun.status": "`ok`, `skipped` (not applicable) or `failed`",
    "CollectorRun.duration_s": "wall time of the collector",
    "CollectorRun.reason": "one-line reason for skipped/failed",
    "WaitProfile.io_wait_share": "the share the gate uses: PostgreSQL IO time / active time from counters, else "
                                 "sampled IO waits; Oracle IO wait / DB time",
    "WaitProfile.samples": "pg_stat_activity samples taken",
    "WaitProfile.active_sessions": "mean active client sessions over the samples",
    "WaitProfile.db_time_s": "Oracle cumulative DB time (diffed in workloads); PostgreSQL workloads: Δ active_time "
                             "over the interval",
    "WaitProfile.io_wait_s": "Oracle cumulative user+system IO wait; PostgreSQL workloads: Δ IO time (data files "
                             "and WAL)",
    "WaitProfile.source": "`counters`, `pg_stat_activity`, `v$system_wait_class`, ...",
    "WaitProfile.counter_io_wait_share": "PostgreSQL: IO time / active time from the cumulative counters; `null` "
                                         "when timing is off",
    "WaitProfile.sampled_io_wait_share": "PostgreSQL: share from the pg_stat_activity samples, kept beside the "
                                         "counters'",
    "WaitProfile.io_time_parts_s": "PostgreSQL: seconds of IO per part (`data reads`, `data writes`, `WAL write+sync`)",
    "WaitProfile.notes": "timing settings to turn on and caveats of the share",
    "Workload.server": "ServerInfo of the later snapshot",
    "Workload.started_at": "taken_at of snapshot A",
    "Workload.ended_at": "taken_at of snapshot B",
    "Workload.interval_s": "seconds between the two (server clock)",
    "Workload.rates": "per-file rates for files present in both snapshots",
    "Workload.wait": "wait profile over the interval",
    "Workload.layout": "host layout of the later snapshot",
    "Workload.diskstats": "iostat -x figures per disk/partition (both snapshots had diskstats)",
    "Workload.warnings": "rules that fired without refusing; new, vanished and reset files",
    "Workload.source": "`snapshots`, `statspack`, `awr-html`, ...",
    "Workload.tool_version": "advisor version that wrote the file",
    "Workload.document": "always `workload`",
    "Workload.format_version": "format version; newer versions are refused",
    "FileRate.read_iops": "reads per second",
    "FileRate.write_iops": "writes per second; `null` when not counted",
    "FileRate.read_mb_s": "MB read per second",
    "FileRate.write_mb_s": "MB written per second; `null` when not counted",
    "FileRate.mean_read_kb": "mean read size (KiB); `null` without reads",
    "FileRate.mean_write_kb": "mean write size (KiB)",
    "FileRate.random_share": "single-block reads / reads; `null` when unknown",
    "FileRate.read_latency_ms": "Δread time / Δreads; `null` without timing",
    "FileRate.write_latency_ms": "Δwrite time / Δwrites; `null` without timing",
    "FileRate.syncs_per_s": "fsync calls per second",
    "FileRate.lower_bound": "a counter went backwards (reset): the rate counts only since the reset",
    "FileRate.parent": "`file_id` of the owning table (PostgreSQL index or TOAST relation), as in FileIO",
    "DiskStatRate.util": "fraction of the interval the device was busy (0..1)",
    "Snapshot.segments": "Oracle per-segment cumulative counters (empty for PostgreSQL)",
    "Workload.temp_high_water_bytes": "temp directory -> the largest size its files had while `collect --interval` "
    "sampled it (a lower bound of its peak; the plan sizes temp from it or the temp_bytes bound, the larger); a "
    "directory this host could not see is absent, never 0",
    "Workload.segments": "Oracle per-segment rates; a report's segments are its top-N lists only",
    "Workload.segment_coverage": "share of all physical reads the listed segments account for (report, "
                                 "else `null`)",
    "Workload.segment_coverages": "the same per statistic (`physical_reads`, `physical_write_requests`, ...); "
                                  "`<statistic>:captured` is the report's own \"Captured Segments account for\" "
                                  "figure",
    "SegmentIO.segment_id": "`<container>:<owner>.<name>[:<partition>]`, or `<container>:obj#<n>` for a dropped "
                            "object",
    "SegmentIO.owner": "schema (empty for a dropped object)",
    "SegmentIO.name": "segment (object) name; empty for a dropped object",
    "SegmentIO.segment_type": "TABLE, INDEX, TABLE PARTITION, LOBSEGMENT, ...",
    "SegmentIO.tablespace": "tablespace holding the segment (`ts# <n>` when unnamed)",
    "SegmentIO.container": "PDB name in a CDB, else the database name",
    "SegmentIO.partition": "partition or subpartition name",
    "SegmentIO.parent": "`owner.table` an index or LOB segment belongs to",
    "SegmentIO.size_bytes": "segment size (DBA_SEGMENTS); `null` when unknown (reports, dropped objects)",
    "SegmentIO.block_size": "bytes per block of the block counters",
    "SegmentIO.physical_reads": "blocks read",
    "SegmentIO.physical_read_requests": "read requests",
    "SegmentIO.physical_reads_direct": "blocks read by direct path (bypassing the buffer cache)",
    "SegmentIO.physical_writes": "blocks written",
    "SegmentIO.physical_write_requests": "write requests",
    "SegmentIO.physical_writes_direct": "blocks written by direct path",
    "SegmentIO.segment_scans": "full scans of the segment (AWR: table scans)",
    "SegmentIO.unoptimized_read_requests": "read requests not served by a flash cache (AWR \"UnOptimized Reads\")",
    "SegmentIO.object_id": "OBJ#",
    "SegmentIO.data_object_id": "DATAOBJ#: changes on truncate or move (the counters restart)",
    "SegmentIO.file_ids": "FileIO ids of the files holding its extents, busiest first (top segments only); "
                          "empty: somewhere in its tablespace's files",
    "SegmentRate.read_iops": "read requests per second (blocks when `from_blocks`); `null` when unknown",
    "SegmentRate.write_iops": "write requests per second (blocks when `from_blocks`); `null` when unknown",
    "SegmentRate.read_mb_s": "MB read per second (blocks × block size)",
    "SegmentRate.write_mb_s": "MB written per second",
    "SegmentRate.direct_read_share": "direct-path blocks / blocks read",
    "SegmentRate.scans_per_s": "full scans per second",
    "SegmentRate.from_blocks": "an IOPS figure counts blocks (no request counter): an upper bound",
    "SegmentRate.unoptimized_read_iops": "reads not served by a flash cache per second",
    "SegmentRate.direct_write_share": "direct-path blocks / blocks written",
    "SegmentRate.lower_bound": "the counters restarted during the interval: rates count only since then",
}

SEGMENTS_NOTE = """
## Oracle segments (snapshot `segments`, workload `segments`)

Per-segment counters and rates: live from V$SEGSTAT, from AWR/Statspack history, or from a
report's "Segments by ..." sections, which list only the top N (the workload's
`segment_coverage` says which share of all physical reads they account for; a segment that is
absent is unknown, not cold). Block counters are in blocks of `block_size` bytes.
"""

TRACE_NOTE = """
## Block-layer trace (workload `traces`, `advisor collect --interval N --trace`)

One `BlockTrace` per traced disk: every request the block layer issued to it during the
interval (tracepoints `block_rq_issue`/`block_rq_complete`), the extents of the database files
on that disk (to map a request to its file and area), and what the trace may have lost. It
holds positions, sizes, times and process names: never file contents, never SQL. See
docs/collect.md#block-layer-trace.

`data` (encoding `advisor-trace-2`) is the base64 of the zlib-compressed concatenation of six
little-endian columns of `requests` values each, in issue order:

| column | type | value |
|---|---|---|
| issue | u32 | µs since the previous request's issue (the first: since `started_s`; 0 at a clock step) |
| service | u32 | µs from issue to completion |
| sector | i64 | start sector (512 bytes) minus the previous request's end sector (0: sequential) |
| sectors | u32 | length in 512-byte sectors (0 for a flush) |
| op | u8 | 0 read, 1 write, 2 flush, 3 discard; + 128: a FUA write (on the media when it completes) |
| process | u32 | index into `processes` |

`advisor-trace-1` (advisor before the FUA flag) is the same without the 128 and still reads
(its writes carry no FUA). A flush is the device's flush request (`FF`): its `service` is the
time to its own completion (traces of `advisor-trace-1` paired a flush with the completion of
an `fsync`'s empty write instead, which could be several flushes later).

25 raw bytes a request; the deltas make sequential streams runs of zeros and zlib takes a
database workload to about 9-13 bytes a request, under the format's bound of 16
(`benchmarks/trace_size.py`). `extents` (encoding `advisor-extents-1`) wraps the same way
rows of (file index u32, file offset u64, disk byte u64, length u64), one per extent of the
files in `files`; a request belongs to the file whose extent holds its first byte.
"""

REPORT_NOTE = """
## Report (`advisor report`, `advisor plan`)

What the advisor concludes: findings with their evidence and predicted gain, the plan
(partitions from the outer edge, which area goes where, service times before and after, the
scripts), the disk models used, the layout now and every area as classified and located.
Fractions of a disk run from 0 (outer edge) to 1 (inner edge). See docs/report.md.

What the advice amounts to is typed (format 4): `no_plan` says why there is no plan to carry out
as a code (`not-io-bound`, `sizes-unknown`, `not-worth-it`, `model-does-not-fit`, `solid-state`,
`no-files`, `nothing-located`) and its words; `model_basis` which disk model was assumed and why;
`outcome` the verdict the fleet ranks by and the disk time the plan saves. Reports of formats 1-3
are still read: their model basis was their first warning ("disk model: ..."), their reason the
warning that began "No "; both are read into the typed fields when the document is loaded.
"""

AUDIT_NOTE = """
## Audit (`advisor audit --format json`)

Per disk, where each partition and database area sits and its IO: per second between two
snapshots, or (one snapshot) cumulative counts and shares since the counters started. See
docs/audit.md.
"""

PROFILE_NOTE = """
## Disk profile (`advisor bench`)

The figures measured on one disk, partition or file; `advisor report --disk` fits a disk model
to them. See docs/bench.md. Format 2: zone rates in bytes per second (`ZonePoint.bytes_per_s`,
`runs["zones"]`); `advisor bench` prints them in MB/s of 10^6 bytes, as datasheets do.
"""

LAYOUT_NOTE = """
## Host layout (written by the host collector)

The classes below describe `layout`; docs/where.md explains how positions are measured.
"""


def _type_name(tp: object) -> str:
    """The annotation as the table shows it; a constrained type says its rule (``float (0..1)``)."""
    from advisor.model.kinds import SHARE, TIMESTAMP

    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return " \\| ".join(_type_name(arg) for arg in typing.get_args(tp))
    if typing.get_origin(tp) is typing.Annotated:
        base, *metas = typing.get_args(tp)
        rule = " (0..1)" if SHARE in metas else " (ISO 8601)" if TIMESTAMP in metas else ""
        return _type_name(base) + rule
    if tp is type(None):
        return "None"
    text = re.sub(r"advisor\.model\.(?:\w+\.)?", "", str(tp).replace("typing.", ""))
    return text.replace("<class '", "").replace("'>", "").replace("|", "\\|")


def _comments(cls: type) -> dict[str, str]:
    """The trailing ``# comment`` of each field in the class's source: its meaning when
    DESCRIPTIONS has none."""
    found = {}
    for line in inspect.getsource(cls).splitlines():
        match = re.match(r"\s+(\w+): [^#]*#\s*(.+)$", line)
        if match:
            found[match.group(1)] = match.group(2).replace("|", "\\|")
    return found


def table(cls: type) -> str:
    """Markdown table of one dataclass's fields."""
    hints = typing.get_type_hints(cls, include_extras=True)
    comments = _comments(cls)
    lines = [f"### {cls.__name__}", "", "| field | type | meaning |", "|---|---|---|"]
    for field in dataclasses.fields(cls):
        key = f"{cls.__name__}.{field.name}"
        shared = {model.FileRate: "FileIO", model.SegmentRate: "SegmentIO"}.get(cls, "") + f".{field.name}"
        meaning = (DESCRIPTIONS.get(key) or DESCRIPTIONS.get(shared) or comments.get(field.name)
                   or ("" if cls not in MAIN else "(undocumented)"))
        lines.append(f"| `{field.name}` | `{_type_name(hints[field.name])}` | {meaning} |")
    return "\n".join(lines) + "\n"


MAIN = (model.Snapshot, model.ServerInfo, model.FileIO, model.CollectorRun, model.WaitProfile, model.SessionSeen,
        model.Workload, model.FileRate, model.CoverageCheck, model.InstanceShare, model.SizesSource, model.ReadEvidence,
        model.EventHistogram)
SEGMENTS = (model.SegmentIO, model.SegmentRate)
REPORT = (model.Report, model.ServerSummary, model.DiskSummary, model.LayoutSummary, model.LayoutDisk,
          model.LayoutPartition, model.AreaRow, model.Finding, model.Plan, model.PlannedPartition,
          model.AreaPlacement, model.ServiceTime, model.Script, model.ReplayCheck, model.ReplayArea,
          model.ReplayIssuer, model.MigrationStage, model.NoPlan, model.Outcome)
TRACE = (model.BlockTrace, model.TraceProcess, model.TraceLoss)
AUDIT = (model.AuditReport, model.AuditMaps, model.DiskMap, model.MapRow)
PROFILE = (model.DiskProfile, model.ZonePoint, model.Latency)
LAYOUT = (model.HostLayout, model.Device, model.Partition, model.Location, model.Extent, model.DiskStat,
          model.DiskStatRate)


def main() -> None:
    """Print the whole document."""
    print(INTRO)
    print("## Snapshot and workload\n")
    for cls in MAIN:
        print(table(cls))
    print(SEGMENTS_NOTE)
    for cls in SEGMENTS:
        print(table(cls))
    print(LAYOUT_NOTE)
    for cls in LAYOUT:
        print(table(cls))
    for note, classes in ((TRACE_NOTE, TRACE), (REPORT_NOTE, REPORT), (AUDIT_NOTE, AUDIT), (PROFILE_NOTE, PROFILE)):
        print(note)
        for cls in classes:
            print(table(cls))


if __name__ == "__main__":
    main()
