"""Who the Oracle server is, and how much of its time goes to IO.

The identity fields are what the workload diff compares between two samples: ``identity``
is the DBID, ``instance`` the instance name(s) and ``started_at`` the instance startup
time(s). For RAC every instance's startup time is part of ``started_at``, so a restart of
any node between samples is seen as a restart (its counters started again from zero).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from advisor.collectors.oracle import units
from advisor.collectors.oracle.rows import DatabaseRow, InstanceRow, ParameterRow, SystemWaitClassRow, SysTimeModelRow
from advisor.model import ServerInfo, WaitProfile
from advisor.rates.io_share import time_share
from advisor.secrets import mask_settings


def iso(value: Any) -> str:
    """DATE / TIMESTAMP columns come back as naive datetimes in the server's time zone."""
    if isinstance(value, dt.datetime):
        return value.isoformat(timespec="seconds")
    return str(value)


def parameters(rows: Sequence[ParameterRow]) -> dict[str, str]:
    """V$PARAMETER rows as a name -> value mapping (values are strings)."""
    return {str(r.name).lower(): "" if r.value is None else str(r.value) for r in rows}


def server_info(instances: Sequence[InstanceRow], database: Sequence[DatabaseRow], params: Mapping[str, str],
                driver_version: str) -> ServerInfo:
    """Build the ServerInfo of one (possibly RAC) database from GV$INSTANCE and V$DATABASE."""
    if not instances or not database:
        raise ValueError("V$INSTANCE or V$DATABASE returned no row")
    ordered = sorted(instances, key=lambda r: units.count(r.inst_id))
    first = ordered[0]
    version = str(first.version_full or first.version or driver_version)
    db = database[0]
    if len(ordered) == 1:
        started = iso(first.startup_time)
    else:
        started = ";".join(f"{units.count(r.inst_id)}:{iso(r.startup_time)}" for r in ordered)
    settings = {
        "timed_statistics": params.get("timed_statistics", ""),
        "statistics_level": params.get("statistics_level", ""),
        "db_block_size": params.get("db_block_size", ""),
        "cdb": str(db.cdb or "NO"),
        "log_mode": str(db.log_mode or ""),
        "instances": str(len(ordered)),
    }
    if params.get("db_recovery_file_dest"):
        settings["db_recovery_file_dest"] = params["db_recovery_file_dest"]
    settings = mask_settings(settings)  # a destination or service string may carry user/password
    return ServerInfo(
        dbms="oracle",
        version=version,
        version_num=units.version_num(version),
        host=",".join(str(r.host_name) for r in ordered),
        name=str(db.name),
        identity=str(units.count(db.dbid)),
        started_at=started,
        instance=",".join(str(r.instance_name) for r in ordered),
        in_recovery=str(db.open_mode or "").upper().startswith(("MOUNTED", "READ ONLY WITH APPLY")),
        settings=settings,
    )


def wait_profile(time_model: Sequence[SysTimeModelRow], wait_classes: Sequence[SystemWaitClassRow],
                 timed: bool) -> WaitProfile:
    """Cumulative DB time and foreground IO wait time summed over every instance.

    Foreground (``_FG``) User I/O and System I/O waits are the part of DB time spent on IO;
    background waits (LGWR, DBWR) are not inside DB time and would inflate the share.
    """
    if not timed:
        return WaitProfile(source="oracle: TIMED_STATISTICS is FALSE, no times")
    db_time = sum(units.number(r.value) for r in time_model if r.stat_name == "DB time")
    io_cs = sum(units.number(r.time_waited_fg) for r in wait_classes if r.wait_class in ("User I/O", "System I/O"))
    db_time_s = units.microseconds_to_s(db_time, timed)
    io_wait_s = units.centiseconds_to_s(io_cs, timed)
    return WaitProfile(
        io_wait_share=time_share(db_time_s, io_wait_s),
        db_time_s=db_time_s,
        io_wait_s=io_wait_s,
        source="oracle: v$sys_time_model DB time, v$system_wait_class User+System I/O foreground",
    )


def plain_rows(rows: Sequence[Any]) -> list[dict[str, str | int | float | bool | None]]:
    """Rows (dataclass instances) made JSON-safe for Snapshot.views (datetimes and Decimals
    become str/float)."""
    out: list[dict[str, str | int | float | bool | None]] = []
    for row in rows:
        clean: dict[str, str | int | float | bool | None] = {}
        for column in dataclasses.fields(row):
            key, value = column.name, getattr(row, column.name)
            if value is None or isinstance(value, (str, bool, int, float)):
                clean[key] = value
            elif isinstance(value, dt.datetime):
                clean[key] = iso(value)
            else:
                clean[key] = float(value) if hasattr(value, "as_integer_ratio") else str(value)
        out.append(clean)
    return out
