"""Regenerate the field tables of docs/json-format.md from the model dataclasses.

    .venv/bin/python scripts/gen-json-format.py > docs/json-format.md

The prose lives here next to the field descriptions, so a new field without a description
shows up as "(undocumented)" in the diff and gets noticed.
"""

from __future__ import annotations

import dataclasses
import re
import typing

from advisor import model

INTRO = """# JSON documents: snapshot and workload

`advisor collect` writes a **snapshot** (one point in time); `advisor collect --interval`,
`advisor workload A B -o` and `advisor collect --from-report` write a **workload** (rates over
an interval). Both are plain JSON objects whose keys are exactly the fields below (generated
from `advisor/model.py` by `scripts/gen-json-format.py`). Readers refuse unknown keys, a
different `document` kind and a newer `format_version`, so a file is either understood
completely or rejected with exit code 6. They also refuse figures that cannot be true
(`advisor/validate.py`, run by every `load_*`): a negative, NaN or infinite count, size,
rate or time (only a plan's `predicted_gain` may be negative), a share (`random_share`,
`io_wait_share`, zone fractions ...) outside 0..1, a `file_id` or `segment_id` that repeats,
a time that is not ISO 8601; the message names the field, e.g.
`workload.json: rates[3].size_bytes is -1; a size cannot be negative`.

Conventions: times are ISO 8601 with offset (server clock for `taken_at`); units are in the
field names (`_bytes`, `_ms`, `_s`); counters are integers; **`null` means the source does not
provide the figure** (PostgreSQL keeps no per-relation write counter; latency without
`track_io_timing`), never a false zero. Rates: IOPS per second, MB/s with 1 MB = 1,048,576
bytes (as iostat), mean IO sizes in KiB, latency = Δtime / Δcount in ms.

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
    "CollectorRun.name": "collector (entry point) name",
    "CollectorRun.status": "`ok`, `skipped` (not applicable) or `failed`",
    "CollectorRun.duration_s": "wall time of the collector",
    "CollectorRun.reason": "one-line reason for skipped/failed",
    "WaitProfile.io_wait_share": "share of active sessions waiting on IO (PostgreSQL) or IO wait / DB time (Oracle)",
    "WaitProfile.samples": "pg_stat_activity samples taken",
    "WaitProfile.active_sessions": "mean active client sessions over the samples",
    "WaitProfile.db_time_s": "Oracle cumulative DB time (diffed in workloads)",
    "WaitProfile.io_wait_s": "Oracle cumulative user+system IO wait",
    "WaitProfile.source": "`pg_stat_activity`, `v$system_wait_class`, ...",
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
    "DiskStatRate.util": "fraction of the interval the device was busy (0..1)",
}

SEGMENTS_NOTE = """
## Oracle segments (snapshot `segments`, workload `segments`)

Per-segment counters and rates: live from V$SEGSTAT, from AWR/Statspack history, or from a
report's "Segments by ..." sections, which list only the top N (the workload's
`segment_coverage` says which share of all physical reads they account for; a segment that is
absent is unknown, not cold). Block counters are in blocks of `block_size` bytes.
"""

LAYOUT_NOTE = """
## Host layout (written by the host collector)

The classes below describe `layout`; docs/where.md explains how positions are measured.
"""


def _type_name(tp: object) -> str:
    text = re.sub(r"advisor\.model\.(?:\w+\.)?", "", str(tp).replace("typing.", ""))
    return text.replace("<class '", "").replace("'>", "").replace("|", "\\|")


def table(cls: type) -> str:
    """Markdown table of one dataclass's fields."""
    hints = typing.get_type_hints(cls)
    lines = [f"### {cls.__name__}", "", "| field | type | meaning |", "|---|---|---|"]
    for field in dataclasses.fields(cls):
        key = f"{cls.__name__}.{field.name}"
        shared = f"FileIO.{field.name}" if cls is model.FileRate else ""
        meaning = DESCRIPTIONS.get(key) or DESCRIPTIONS.get(shared) or ("" if cls not in MAIN else "(undocumented)")
        lines.append(f"| `{field.name}` | `{_type_name(hints[field.name])}` | {meaning} |")
    return "\n".join(lines) + "\n"


MAIN = (model.Snapshot, model.ServerInfo, model.FileIO, model.CollectorRun, model.WaitProfile, model.Workload,
        model.FileRate)
SEGMENTS = (model.SegmentIO, model.SegmentRate)
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


if __name__ == "__main__":
    main()
