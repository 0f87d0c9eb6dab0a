"""Map Oracle view rows to advisor's FileIO rows.

Data and temp files come from V$FILESTAT / V$TEMPSTAT (counts and centisecond times, summed
over RAC instances) joined to V$DATAFILE / V$TEMPFILE (path, size, block size) and
V$TABLESPACE. Bytes are blocks x block size: exact, where V$IOSTAT_FILE only counts whole
megabytes. Everything else (redo, archive, control, flashback, backups) exists in Oracle only
as one consolidated V$IOSTAT_FILE row per file type and instance, so those rows are spread
over the files honestly:

* redo: each instance writes its own thread; every write goes to every member of the current
  group (multiplexing), and groups take turns. One FileIO per thread and member position
  (member k of every group, usually one directory or disk) carries the thread's full write
  count; the groups of that position are its ``segment_paths``. Reads (archiver, RMAN) are
  put on the first position only, as Oracle reads one member.
* control files: every copy receives every write, reads go to the first copy.
* archive, flashback and backup types: one row each, placed at the archive destination or
  the fast recovery area.

File ids are ``<type>:<file#>:<creation_change#>`` so a file number reused after a drop is a
new file, and a temp file number never collides with a data file number.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from advisor.collectors.oracle import units
from advisor.collectors.oracle.rows import (
    ArchiveDestRow,
    ContainersRow,
    ControlfileRow,
    DatafileRow,
    FilestatRow,
    InstanceRow,
    IostatFileRow,
    LogfileRow,
    LogRow,
    RecoveryAreaUsageRow,
    RecoveryFileDestRow,
    TablespaceContentsRow,
    TablespaceRow,
)
from advisor.model import FileIO, FileKind
from advisor.secrets import mask_by_rule

_SUMMED = ("phyrds", "phywrts", "phyblkrd", "phyblkwrt", "singleblkrds", "readtim", "writetim", "singleblkrdtim")
_IOSTAT_SUMMED = (
    "small_read_megabytes", "small_write_megabytes", "large_read_megabytes", "large_write_megabytes",
    "small_read_reqs", "small_write_reqs", "large_read_reqs", "large_write_reqs",
    "small_read_servicetime", "small_write_servicetime", "large_read_servicetime", "large_write_servicetime",
)
BACKUP_TYPES = ("Data File Backup", "Data File Incremental Backup", "Archive Log Backup", "Data File Copy")


def con(row: DatafileRow | TablespaceRow | TablespaceContentsRow) -> int:
    """CON_ID of a row; 0 (whole CDB / non-CDB) before 12.1 where the column does not exist."""
    return units.count(row.con_id)


def sum_by_file(rows: Sequence[FilestatRow]) -> dict[int, dict[str, float]]:
    """GV$FILESTAT / GV$TEMPSTAT rows summed over instances, keyed by FILE#."""
    totals: dict[int, dict[str, float]] = defaultdict(lambda: dict.fromkeys(_SUMMED, 0.0))
    for row in rows:
        target = totals[units.count(row.file_no)]
        for column in _SUMMED:
            target[column] += units.number(getattr(row, column))
    return dict(totals)


def sum_iostat(rows: Sequence[IostatFileRow], filetype: str,
               inst_ids: set[int] | None = None) -> dict[str, float] | None:
    """The consolidated V$IOSTAT_FILE row of *filetype*, summed over (selected) instances."""
    chosen = [
        r for r in rows
        if r.filetype_name == filetype and (inst_ids is None or units.count(r.inst_id) in inst_ids)
    ]
    if not chosen:
        return None
    return {column: sum(units.number(getattr(r, column)) for r in chosen) for column in _IOSTAT_SUMMED}


class Catalog:
    """Names that the file rows need: containers, tablespaces and their contents."""

    def __init__(self, db_name: str, containers: Sequence[ContainersRow], tablespaces: Sequence[TablespaceRow],
                 contents: Sequence[TablespaceContentsRow]) -> None:
        self.db_name = db_name
        self.containers = {units.count(r.con_id): str(r.name) for r in containers}
        self.tablespaces = {(units.count(r.ts_no), con(r)): str(r.name) for r in tablespaces}
        self.contents = {(str(r.tablespace_name), con(r)): str(r.contents) for r in contents}

    def container(self, con_id: int) -> str:
        """PDB (or CDB$ROOT) name for a CON_ID; the database name for a non-CDB (CON_ID 0)."""
        if con_id == 0:
            return self.db_name
        return self.containers.get(con_id, f"con_id {con_id}")

    def tablespace(self, ts_no: int, con_id: int) -> str:
        return self.tablespaces.get((ts_no, con_id), f"ts# {ts_no}")

    def kind(self, tablespace: str, con_id: int, default: FileKind) -> FileKind:
        contents = self.contents.get((tablespace, con_id), "")
        if contents == "UNDO":
            return "undo"
        if contents == "TEMPORARY":
            return "temp"
        return default


def stat_files(prefix: str, inventory: Sequence[DatafileRow], stats: Sequence[FilestatRow], catalog: Catalog,
               timed: bool) -> list[FileIO]:
    """Data ("data") or temp ("temp") files: one FileIO per inventory row with its summed counters."""
    totals = sum_by_file(stats)
    default_kind: FileKind = "temp" if prefix == "temp" else "data"
    files = []
    for row in sorted(inventory, key=lambda r: units.count(r.file_no)):
        number = units.count(row.file_no)
        con_id = con(row)
        tablespace = catalog.tablespace(units.count(row.ts_no), con_id)
        t = totals.get(number, dict.fromkeys(_SUMMED, 0.0))
        files.append(
            FileIO(
                file_id=f"{prefix}:{number}:{units.count(row.creation_change)}",
                path=str(row.name),
                kind=catalog.kind(tablespace, con_id, default_kind),
                tablespace=tablespace,
                container=catalog.container(con_id),
                size_bytes=units.count(row.bytes),
                reads=units.count(t["phyrds"]),
                writes=units.count(t["phywrts"]),
                read_bytes=units.blocks_to_bytes(t["phyblkrd"], row.block_size),
                write_bytes=units.blocks_to_bytes(t["phyblkwrt"], row.block_size),
                single_block_reads=units.count(t["singleblkrds"]),
                read_time_ms=units.centiseconds_to_ms(t["readtim"], timed),
                write_time_ms=units.centiseconds_to_ms(t["writetim"], timed),
                name=f"{prefix} file {number}",
            )
        )
    return files


def _typed_row(
    file_id: str, path: str, kind: FileKind, io: Mapping[str, float] | None, timed: bool, *,
    reads: bool = True, size: int = 0, container: str = "", name: str | None = None,
    segments: tuple[str, ...] = (),
) -> FileIO:
    """One FileIO from a consolidated V$IOSTAT_FILE row (or zeros when the type has no row)."""
    z: Mapping[str, float] = io or dict.fromkeys(_IOSTAT_SUMMED, 0.0)
    take = 1.0 if reads else 0.0
    return FileIO(
        file_id=file_id,
        path=path,
        kind=kind,
        tablespace="",
        container=container,
        size_bytes=size,
        reads=units.count(take * (z["small_read_reqs"] + z["large_read_reqs"])),
        writes=units.count(z["small_write_reqs"] + z["large_write_reqs"]),
        read_bytes=units.megabytes_to_bytes(take * (z["small_read_megabytes"] + z["large_read_megabytes"])),
        write_bytes=units.megabytes_to_bytes(z["small_write_megabytes"] + z["large_write_megabytes"]),
        single_block_reads=units.count(take * z["small_read_reqs"]),
        read_time_ms=units.ms(take * (z["small_read_servicetime"] + z["large_read_servicetime"]), timed),
        write_time_ms=units.ms(z["small_write_servicetime"] + z["large_write_servicetime"], timed),
        name=name,
        segment_paths=segments,
    )


def redo_files(instances: Sequence[InstanceRow], logs: Sequence[LogRow], members: Sequence[LogfileRow],
               iostat: Sequence[IostatFileRow], db_name: str, timed: bool) -> list[FileIO]:
    """One FileIO per redo thread and member position (see the module docstring)."""
    inst_of_thread: dict[int, set[int]] = defaultdict(set)
    for inst in instances:
        inst_of_thread[units.count(inst.thread_no)].add(units.count(inst.inst_id))
    paths_of_group: dict[int, list[str]] = defaultdict(list)
    for m in members:
        if str(m.type or "ONLINE") == "ONLINE" and str(m.status or "") != "INVALID":
            paths_of_group[units.count(m.group_no)].append(str(m.member))
    groups_of_thread: dict[int, list[LogRow]] = defaultdict(list)
    for log in logs:
        groups_of_thread[units.count(log.thread_no)].append(log)
    files = []
    for thread in sorted(groups_of_thread):
        groups = sorted(groups_of_thread[thread], key=lambda g: units.count(g.group_no))
        ordered = [sorted(paths_of_group.get(units.count(g.group_no), [])) for g in groups]
        positions = max((len(p) for p in ordered), default=0)
        io = sum_iostat(iostat, "Log File", inst_of_thread.get(thread) or {thread})
        size = sum(units.count(g.bytes) for g in groups)
        for k in range(positions):
            paths = tuple(p[k] for p in ordered if len(p) > k)
            files.append(
                _typed_row(
                    f"redo:{thread}:{k + 1}", paths[0], "redo", io, timed, reads=k == 0, size=size,
                    container=db_name, name=f"redo thread {thread} member {k + 1}", segments=paths[1:],
                )
            )
    return files


def control_files(controls: Sequence[ControlfileRow], iostat: Sequence[IostatFileRow], db_name: str,
                  timed: bool) -> list[FileIO]:
    """One FileIO per control file copy: all get the writes, the first gets the reads."""
    io = sum_iostat(iostat, "Control File")
    files = []
    for index, row in enumerate(controls):
        size = units.count(row.block_size) * units.count(row.file_size_blks)
        files.append(
            _typed_row(
                f"control:{index + 1}", str(row.name), "control", io, timed, reads=index == 0,
                size=size, container=db_name, name=f"control file {index + 1}",
            )
        )
    return files


def _usage_bytes(usage: Sequence[RecoveryAreaUsageRow], file_type: str, limit: int) -> int:
    """Bytes of one V$RECOVERY_AREA_USAGE file type (the view gives percent of the limit)."""
    percent = sum(units.number(r.percent_space_used) for r in usage if r.file_type == file_type)
    return int(limit * percent / 100.0)


def archive_path(dests: Sequence[ArchiveDestRow], fra: str) -> str:
    """The first valid local archive destination; USE_DB_RECOVERY_FILE_DEST means the FRA."""
    for row in sorted(dests, key=lambda r: units.count(r.dest_id)):
        destination = str(row.destination or "").strip()
        if str(row.status or "") != "VALID" or not destination:
            continue
        if destination.upper() == "USE_DB_RECOVERY_FILE_DEST":
            return fra
        if str(row.target or "PRIMARY") in ("PRIMARY", "LOCAL"):
            return mask_by_rule(destination)  # a path; a service string with user/password is stored masked
    return fra


def recovery_files(
    dests: Sequence[ArchiveDestRow], fra_rows: Sequence[RecoveryFileDestRow], usage: Sequence[RecoveryAreaUsageRow],
    iostat: Sequence[IostatFileRow], db_name: str, timed: bool,
) -> list[FileIO]:
    """Archive log, flashback log and backup rows, placed at the archive destination or FRA."""
    fra = str(fra_rows[0].name) if fra_rows and fra_rows[0].name else ""
    limit = units.count(fra_rows[0].space_limit) if fra_rows else 0
    files = []
    arch_path = archive_path(dests, fra)
    if arch_path or sum_iostat(iostat, "Archive Log"):
        size = _usage_bytes(usage, "ARCHIVED LOG", limit) if arch_path == fra else 0
        files.append(
            _typed_row("archive", arch_path, "archive", sum_iostat(iostat, "Archive Log"), timed,
                       size=size, container=db_name, name="archived redo logs")
        )
    flashback = sum_iostat(iostat, "Flashback Log")
    if flashback is not None and fra:
        files.append(
            _typed_row("fra:flashback", fra, "fra", flashback, timed, size=_usage_bytes(usage, "FLASHBACK LOG", limit),
                       container=db_name, name="flashback logs")
        )
    for filetype in BACKUP_TYPES:
        io = sum_iostat(iostat, filetype)
        if io is None:
            continue
        slug = filetype.lower().replace(" ", "_")
        files.append(_typed_row(f"backup:{slug}", fra, "backup", io, timed, container=db_name, name=filetype))
    return files
