"""Row types of the Oracle queries: field names equal the SQL column aliases.

Every ``sql/oracle/<query>.v<N>.sql`` selects exactly the fields of ``ROWS[<query>]``; a
field marked "not in every version's file" is missing from the files of older releases
(CON_ID before 12.1, VERSION_FULL before 18c, CDB before 12.1) and is None there. A test
parses each file's select list and compares it with the fields, and the replay cursor of
the tests serves rows in the types python-oracledb returns for the documented column types
(NUMBER: int, float or Decimal; DATE/TIMESTAMP: naive datetime; VARCHAR2: str).

:class:`OracleConnection` is the part of the python-oracledb connection the collector uses,
so the plugin can check what advisor hands back to it without importing the driver.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol, runtime_checkable

from advisor.sizes.formats import SizesQueryRow

Number = int | float | Decimal
"""An Oracle NUMBER as python-oracledb returns it."""


@runtime_checkable
class OracleCursor(Protocol):
    """The cursor calls :func:`advisor.collectors.oracle.connect.run_query` makes."""

    @property
    def description(self) -> Any: ...

    rowfactory: Any

    def execute(self, statement: str, parameters: Any = None) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def close(self) -> None: ...


@runtime_checkable
class OracleConnection(Protocol):
    """The part of a python-oracledb connection the collector reads from (the tests replay it)."""

    @property
    def version(self) -> str: ...

    def cursor(self) -> OracleCursor: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class ArchiveDestRow:
    """archive_dest.v11.sql"""

    dest_id: Number | None
    dest_name: str | None
    status: str | None
    target: str | None
    destination: str | None


@dataclass(frozen=True, slots=True)
class HistoryFileRow:
    """awr_filestat.v11.sql, awr_tempstat.v11.sql, statspack_filestat.v11.sql, statspack_tempstat.v11.sql"""

    snap_id: Number | None
    file_no: Number | None
    tsname: str | None
    filename: str | None
    phyrds: Number | None
    phywrts: Number | None
    singleblkrds: Number | None
    readtim: Number | None
    writetim: Number | None
    singleblkrdtim: Number | None
    phyblkrd: Number | None
    phyblkwrt: Number | None


@dataclass(frozen=True, slots=True)
class ParameterRow:
    """awr_parameter.v11.sql, parameter.v11.sql, statspack_parameter.v11.sql"""

    name: str | None
    value: str | None


@dataclass(frozen=True, slots=True)
class HistorySnapshotRow:
    """awr_snapshot.v11.sql, statspack_snapshot.v11.sql"""

    snap_id: Number | None
    dbid: Number | None
    instance_number: Number | None
    snap_time: dt.datetime | None
    startup_time: dt.datetime | None


@dataclass(frozen=True, slots=True)
class HistoryEventRow:
    """awr_system_event.v11.sql, statspack_system_event.v11.sql"""

    snap_id: Number | None
    event: str | None
    total_waits: Number | None
    time_waited_micro: Number | None


@dataclass(frozen=True, slots=True)
class HistoryTimeModelRow:
    """awr_time_model.v11.sql, statspack_time_model.v11.sql"""

    snap_id: Number | None
    stat_name: str | None
    value: Number | None


@dataclass(frozen=True, slots=True)
class ContainersRow:
    """containers.v12.sql"""

    con_id: Number | None
    name: str | None
    open_mode: str | None


@dataclass(frozen=True, slots=True)
class ControlfileRow:
    """controlfile.v11.sql"""

    name: str | None
    status: str | None
    is_recovery_dest_file: str | None
    block_size: Number | None
    file_size_blks: Number | None


@dataclass(frozen=True, slots=True)
class DatabaseRow:
    """database.v11.sql, database.v12.sql"""

    dbid: Number | None
    name: str | None
    db_unique_name: str | None
    log_mode: str | None
    open_mode: str | None
    sampled_at: dt.datetime | None
    cdb: str | None = None  # not in every version's file


@dataclass(frozen=True, slots=True)
class DatafileRow:
    """datafile.v11.sql, datafile.v12.sql, tempfile.v11.sql, tempfile.v12.sql"""

    file_no: Number | None
    creation_change: Number | None
    ts_no: Number | None
    name: str | None
    bytes: Number | None
    block_size: Number | None
    status: str | None
    con_id: Number | None = None  # not in every version's file


@dataclass(frozen=True, slots=True)
class EventHistogramRow:
    """event_histogram.v11.sql"""

    inst_id: Number | None
    event: str | None
    wait_time_milli: Number | None
    wait_count: Number | None


@dataclass(frozen=True, slots=True)
class FilestatRow:
    """filestat.v11.sql, filestat.v12.sql, tempstat.v11.sql, tempstat.v12.sql"""

    inst_id: Number | None
    file_no: Number | None
    phyrds: Number | None
    phywrts: Number | None
    phyblkrd: Number | None
    phyblkwrt: Number | None
    singleblkrds: Number | None
    readtim: Number | None
    writetim: Number | None
    singleblkrdtim: Number | None
    con_id: Number | None = None  # not in every version's file


@dataclass(frozen=True, slots=True)
class InstanceRow:
    """instance.v11.sql, instance.v18.sql"""

    inst_id: Number | None
    instance_number: Number | None
    instance_name: str | None
    host_name: str | None
    version: str | None
    thread_no: Number | None
    startup_time: dt.datetime | None
    status: str | None
    version_full: str | None = None  # not in every version's file


@dataclass(frozen=True, slots=True)
class IostatFileRow:
    """iostat_file.v11.sql, iostat_file.v12.sql"""

    inst_id: Number | None
    file_no: Number | None
    filetype_id: Number | None
    filetype_name: str | None
    small_read_megabytes: Number | None
    small_write_megabytes: Number | None
    large_read_megabytes: Number | None
    large_write_megabytes: Number | None
    small_read_reqs: Number | None
    small_write_reqs: Number | None
    small_sync_read_reqs: Number | None
    large_read_reqs: Number | None
    large_write_reqs: Number | None
    small_read_servicetime: Number | None
    small_write_servicetime: Number | None
    small_sync_read_latency: Number | None
    large_read_servicetime: Number | None
    large_write_servicetime: Number | None
    con_id: Number | None = None  # not in every version's file


@dataclass(frozen=True, slots=True)
class LogRow:
    """log.v11.sql"""

    group_no: Number | None
    thread_no: Number | None
    sequence_no: Number | None
    bytes: Number | None
    members: Number | None
    archived: str | None
    status: str | None


@dataclass(frozen=True, slots=True)
class LogfileRow:
    """logfile.v11.sql"""

    group_no: Number | None
    status: str | None
    type: str | None
    member: str | None
    is_recovery_dest_file: str | None


@dataclass(frozen=True, slots=True)
class RecoveryAreaUsageRow:
    """recovery_area_usage.v11.sql"""

    file_type: str | None
    percent_space_used: Number | None
    percent_space_reclaimable: Number | None
    number_of_files: Number | None


@dataclass(frozen=True, slots=True)
class RecoveryFileDestRow:
    """recovery_file_dest.v11.sql"""

    name: str | None
    space_limit: Number | None
    space_used: Number | None
    space_reclaimable: Number | None
    number_of_files: Number | None


@dataclass(frozen=True, slots=True)
class SysTimeModelRow:
    """sys_time_model.v11.sql"""

    inst_id: Number | None
    stat_name: str | None
    value: Number | None


@dataclass(frozen=True, slots=True)
class SystemEventRow:
    """system_event.v11.sql"""

    inst_id: Number | None
    event: str | None
    wait_class: str | None
    total_waits: Number | None
    time_waited_micro: Number | None


@dataclass(frozen=True, slots=True)
class SystemWaitClassRow:
    """system_wait_class.v11.sql"""

    inst_id: Number | None
    wait_class: str | None
    total_waits: Number | None
    time_waited: Number | None
    total_waits_fg: Number | None
    time_waited_fg: Number | None


@dataclass(frozen=True, slots=True)
class TablespaceRow:
    """tablespace.v11.sql, tablespace.v12.sql"""

    ts_no: Number | None
    name: str | None
    con_id: Number | None = None  # not in every version's file


@dataclass(frozen=True, slots=True)
class TablespaceContentsRow:
    """tablespace_contents.v11.sql, tablespace_contents.v12.sql"""

    tablespace_name: str | None
    contents: str | None
    con_id: Number | None = None  # not in every version's file


ROWS: dict[str, type] = {
    "archive_dest": ArchiveDestRow,
    "awr_filestat": HistoryFileRow,
    "awr_parameter": ParameterRow,
    "awr_snapshot": HistorySnapshotRow,
    "awr_system_event": HistoryEventRow,
    "awr_tempstat": HistoryFileRow,
    "awr_time_model": HistoryTimeModelRow,
    "containers": ContainersRow,
    "controlfile": ControlfileRow,
    "database": DatabaseRow,
    "datafile": DatafileRow,
    "event_histogram": EventHistogramRow,
    "filestat": FilestatRow,
    "instance": InstanceRow,
    "iostat_file": IostatFileRow,
    "log": LogRow,
    "logfile": LogfileRow,
    "parameter": ParameterRow,
    "recovery_area_usage": RecoveryAreaUsageRow,
    "recovery_file_dest": RecoveryFileDestRow,
    "sizes": SizesQueryRow,  # run by hand (SQL*Plus), read from its output by advisor.sizes
    "statspack_filestat": HistoryFileRow,
    "statspack_parameter": ParameterRow,
    "statspack_snapshot": HistorySnapshotRow,
    "statspack_system_event": HistoryEventRow,
    "statspack_tempstat": HistoryFileRow,
    "statspack_time_model": HistoryTimeModelRow,
    "sys_time_model": SysTimeModelRow,
    "system_event": SystemEventRow,
    "system_wait_class": SystemWaitClassRow,
    "tablespace": TablespaceRow,
    "tablespace_contents": TablespaceContentsRow,
    "tempfile": DatafileRow,
    "tempstat": FilestatRow,
}
"""Query name → row type; every SQL file's select-list aliases must equal the type's fields."""


@dataclass(frozen=True, slots=True)
class LiveRows:
    """The rows of one live sample, one field per query (its name), in the order they run."""

    instance: list[InstanceRow]
    database: list[DatabaseRow]
    parameter: list[ParameterRow]
    filestat: list[FilestatRow]
    tempstat: list[FilestatRow]
    datafile: list[DatafileRow]
    tempfile: list[DatafileRow]
    tablespace: list[TablespaceRow]
    tablespace_contents: list[TablespaceContentsRow]
    iostat_file: list[IostatFileRow]
    log: list[LogRow]
    logfile: list[LogfileRow]
    controlfile: list[ControlfileRow]
    recovery_file_dest: list[RecoveryFileDestRow]
    recovery_area_usage: list[RecoveryAreaUsageRow]
    archive_dest: list[ArchiveDestRow]
    system_event: list[SystemEventRow]
    event_histogram: list[EventHistogramRow]
    sys_time_model: list[SysTimeModelRow]
    system_wait_class: list[SystemWaitClassRow]
    containers: list[ContainersRow]  # on a CDB only; empty otherwise
