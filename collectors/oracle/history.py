"""History stored in the database: Statspack (free) or AWR (Diagnostics Pack) between two snaps.

Statspack's PERFSTAT.STATS$FILESTATXS / STATS$TEMPSTATXS are cumulative copies of
V$FILESTAT / V$TEMPSTAT at each snap, so two snaps give a workload directly. AWR's
DBA_HIST_FILESTATXS is the same data, but reading any DBA_HIST_* view needs the Diagnostics
Pack licence (the parameter CONTROL_MANAGEMENT_PACK_ACCESS is no proof of it), so those
queries run only when ``options["diagnostics_pack"]`` is true. Like Oracle's own report
scripts, an interval whose two snaps have different instance startup times is refused.

CLI contract: ``advisor collect --statspack BEGIN:END`` sets ``options["statspack"] =
(BEGIN, END)``; ``--awr BEGIN:END`` sets ``options["awr"]`` and needs ``--diagnostics-pack``
(``options["diagnostics_pack"] = True``). Call :func:`history_workload` with the connection
from ``OracleCollector.connect`` and save the returned Workload.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from advisor import __version__
from advisor.collectors.oracle import server, units
from advisor.collectors.oracle.connect import run_query
from advisor.collectors.oracle.live import driver_major
from advisor.collectors.oracle.rows import (
    DatabaseRow,
    HistoryEventRow,
    HistoryFileRow,
    HistorySnapshotRow,
    HistoryTimeModelRow,
    InstanceRow,
    LogfileRow,
    OracleConnection,
    ParameterRow,
    TablespaceContentsRow,
)
from advisor.collectors.oracle.segments_history import history_segments
from advisor.errors import BadInput, StatsReset, Unsupported
from advisor.model import FileIO, FileKind, FileRate, WaitProfile, Workload
from advisor.rates.io_share import RESET_NOTE, interval_times, time_share
from advisor.rates.workload import file_rate, zero_baseline

USER_IO_EVENTS = (
    "db file sequential read", "db file scattered read", "db file parallel read", "direct path read",
    "direct path read temp", "direct path write", "direct path write temp", "read by other session",
)



def _rate(begin: FileIO | None, end: FileIO, interval_s: float) -> FileRate:
    """The shared per-file rate; a file absent at the first snap was created since: rate from zero.

    History tables keep no file sizes, so the size is unknown (None), never 0: ``--sizes``
    gives it (docs/awr-import.md).
    """
    rate = file_rate(begin if begin is not None else zero_baseline(end), end, interval_s, timing=True)
    return replace(rate, size_bytes=None)

def snap_range(value: Any) -> tuple[int, int]:
    """``(begin, end)`` from a tuple or a ``"BEGIN:END"`` string; begin must precede end."""
    try:
        if isinstance(value, str):
            first, second = value.split(":", 1)
            begin, end = int(first), int(second)
        else:
            begin, end = (int(v) for v in value)
    except (TypeError, ValueError):
        raise BadInput(f"snapshot range {value!r} is not BEGIN:END (two snap ids)") from None
    if begin >= end:
        raise BadInput(f"snapshot range {begin}:{end}: the begin snap must be lower than the end snap")
    return begin, end


def _pick_source(options: Mapping[str, Any]) -> tuple[str, tuple[int, int]]:
    if options.get("awr") is not None:
        if not options.get("diagnostics_pack"):
            raise Unsupported(
                "AWR history (DBA_HIST_*) needs the Oracle Diagnostics Pack licence",
                hint="pass --diagnostics-pack only if it is licensed; Statspack (--statspack) is free",
            )
        return "awr", snap_range(options["awr"])
    if options.get("statspack") is not None:
        return "statspack", snap_range(options["statspack"])
    raise BadInput("no snapshot range: pass --statspack BEGIN:END (or --awr BEGIN:END with --diagnostics-pack)")


def _files(rows: Sequence[HistoryFileRow], snap: int, prefix: str, block: int, timed: bool,
           contents: Mapping[str, str], container: str) -> dict[str, FileIO]:
    files = {}
    for row in rows:
        if units.count(row.snap_id) != snap:
            continue
        number = units.count(row.file_no)
        tablespace = str(row.tsname)
        kind: FileKind = "undo" if contents.get(tablespace) == "UNDO" else ("temp" if prefix == "temp" else "data")
        file_id = f"{prefix}:{number}:{row.filename}"
        files[file_id] = FileIO(
            file_id=file_id, path=str(row.filename), kind=kind, tablespace=tablespace, container=container,
            size_bytes=0, reads=units.count(row.phyrds), writes=units.count(row.phywrts),
            read_bytes=units.blocks_to_bytes(row.phyblkrd, block),
            write_bytes=units.blocks_to_bytes(row.phyblkwrt, block),
            single_block_reads=units.count(row.singleblkrds),
            read_time_ms=units.centiseconds_to_ms(row.readtim, timed),
            write_time_ms=units.centiseconds_to_ms(row.writetim, timed),
            name=f"{prefix} file {number}",
        )
    return files


def _event(rows: Sequence[HistoryEventRow], snap: int, name: str) -> tuple[int, float]:
    for row in rows:
        if units.count(row.snap_id) == snap and row.event == name:
            return units.count(row.total_waits), units.number(row.time_waited_micro)
    return 0, 0.0


def _redo(events: Sequence[HistoryEventRow], snaps: tuple[int, int], timed: bool, path: str,
          name: str) -> tuple[FileIO, FileIO]:
    """Redo as seen by LGWR's 'log file parallel write' event: one wait per redo write."""
    pair = []
    for snap in snaps:
        waits, micro = _event(events, snap, "log file parallel write")
        pair.append(FileIO(
            file_id="redo:1:1", path=path, kind="redo", tablespace="", container=name, size_bytes=0,
            reads=0, writes=waits, read_bytes=0, write_bytes=None,
            write_time_ms=units.microseconds_to_ms(micro, timed), name="redo (log file parallel write)",
        ))
    return pair[0], pair[1]


def history_workload(conn: OracleConnection, options: Mapping[str, Any]) -> Workload:
    """The workload between two Statspack (or, when licensed, AWR) snapshots."""
    source, (begin, end) = _pick_source(options)
    major = driver_major(conn)
    instances = run_query(conn, InstanceRow, "instance", major)
    database = run_query(conn, DatabaseRow, "database", major)
    params = server.parameters(run_query(conn, ParameterRow, "parameter", major))
    info = server.server_info(instances[:1], database, params, str(getattr(conn, "version", "")))
    binds = {
        "begin_snap": begin, "end_snap": end,
        "dbid": int(options.get("dbid") or info.identity),
        "instance_number": int(options.get("instance_number") or units.count(instances[0].instance_number)),
    }
    snaps = {units.count(r.snap_id): r for r in run_query(conn, HistorySnapshotRow, f"{source}_snapshot", major, binds)}
    for snap in (begin, end):
        if snap not in snaps:
            raise BadInput(f"{source} snapshot {snap} not found for DBID {binds['dbid']} instance "
                           f"{binds['instance_number']}")
    b_row, e_row = snaps[begin], snaps[end]
    if server.iso(b_row.startup_time) != server.iso(e_row.startup_time):
        raise StatsReset(f"the instance was restarted between {source} snapshots {begin} and {end}: "
                         "its counters started again, choose snapshots within one instance lifetime")
    recorded = server.parameters(run_query(conn, ParameterRow, f"{source}_parameter", major, binds))
    timed = units.is_true(recorded.get("timed_statistics", params.get("timed_statistics", "TRUE")))
    block = int(recorded.get("db_block_size") or params.get("db_block_size") or 8192)
    contents = {str(r.tablespace_name): str(r.contents)
                for r in run_query(conn, TablespaceContentsRow, "tablespace_contents", major)}
    started, ended = b_row.snap_time, e_row.snap_time
    if not (isinstance(started, dt.datetime) and isinstance(ended, dt.datetime)) or ended <= started:
        raise BadInput(f"{source} snapshots {begin} and {end} have no positive time between them")
    interval = (ended - started).total_seconds()
    rates = []
    for prefix, query in (("data", f"{source}_filestat"), ("temp", f"{source}_tempstat")):
        rows = run_query(conn, HistoryFileRow, query, major, binds)
        first = _files(rows, begin, prefix, block, timed, contents, info.name)
        last = _files(rows, end, prefix, block, timed, contents, info.name)
        rates += [_rate(first.get(key), item, interval) for key, item in sorted(last.items())]
    events = run_query(conn, HistoryEventRow, f"{source}_system_event", major, binds)
    members = run_query(conn, LogfileRow, "logfile", major)
    redo_path = sorted(str(m.member) for m in members)[0] if members else ""
    redo_begin, redo_end = _redo(events, (begin, end), timed, redo_path, info.name)
    rates.append(_rate(redo_begin, redo_end, interval))
    model = run_query(conn, HistoryTimeModelRow, f"{source}_time_model", major, binds)
    db_time = [units.number(r.value) for snap in (begin, end) for r in model if units.count(r.snap_id) == snap]
    io_micro = [sum(_event(events, snap, e)[1] for e in USER_IO_EVENTS) for snap in (begin, end)]
    wait = WaitProfile(source=f"{source}: DB time and foreground user IO events")
    if timed and len(db_time) == 2:  # the recorded times are cumulative: the one reset rule makes them the interval's
        db_us, io_us, reset = interval_times(db_time[0], db_time[1], io_micro[0], io_micro[1])
        db_s = units.microseconds_to_s(db_us, timed)
        io_s = units.microseconds_to_s(io_us, timed)
        wait = replace(wait, db_time_s=db_s, io_wait_s=io_s, io_wait_share=time_share(db_s, io_s),
                       notes=(RESET_NOTE,) if reset else ())
    warnings = [] if timed else ["TIMED_STATISTICS was FALSE: no latencies"]
    segments, segment_warnings = history_segments(conn, source, major, binds, interval, info.name, block)
    info = replace(info, started_at=server.iso(e_row.startup_time))
    return Workload(
        server=info, started_at=server.iso(started), ended_at=server.iso(ended), interval_s=interval,
        rates=tuple(rates), wait=wait, warnings=tuple(warnings + segment_warnings), source=source,
        tool_version=__version__, segments=segments,
    )
