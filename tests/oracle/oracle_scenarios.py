"""Recorded V$ rows for the replay harness: 11.2, 12.1, 19c non-CDB, 19c CDB and 2-node RAC.

Each scenario is one database with known per-interval IO, so tests assert rates that were
computed by hand: sample ``i`` holds the base counters plus ``i`` intervals of 60 seconds.
The figures the tests expect are in EXPECTED (per second, per file), derived from the DELTA
tables below by arithmetic written out in comments.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from tests.oracle.oracle_replay import Recorded, ReplayConnection
from tests.oracle.oracle_segments import history_rows, segment_recordings

INTERVAL_S = 60
STARTUP = dt.datetime(2026, 11, 1, 8, 0, 0)
SAMPLED = dt.datetime(2026, 11, 21, 9, 0, 0)
MIB = 1024 * 1024


@dataclass(frozen=True)
class DataFile:
    file_no: int
    creation: int
    ts_no: int
    tablespace: str
    path: str
    con_id: int
    # per-interval deltas: reads, writes, blocks read, blocks written, single-block reads, readtim cs, writetim cs
    delta: tuple[int, int, int, int, int, int, int]
    temp: bool = False


# USERS: 6000 reads/60 s = 100/s; 4800 single + 1200 x 16-block = 24000 blocks; 4800 cs -> 48000 ms / 6000 = 8 ms
FILES_NONCDB = (
    DataFile(1, 7, 0, "SYSTEM", "/u01/oradata/ORCL/system01.dbf", 0, (600, 120, 600, 120, 600, 300, 60)),
    DataFile(2, 1900, 1, "SYSAUX", "/u01/oradata/ORCL/sysaux01.dbf", 0, (60, 60, 60, 60, 60, 30, 30)),
    DataFile(3, 2300, 2, "UNDOTBS1", "/u01/oradata/ORCL/undotbs01.dbf", 0, (120, 600, 120, 600, 120, 60, 300)),
    DataFile(4, 9100, 4, "USERS", "/u02/oradata/ORCL/users01.dbf", 0, (6000, 1800, 24000, 1800, 4800, 4800, 900)),
    # TEMP: 300 reads of 32 blocks, 150 cs -> 5 ms each
    DataFile(1, 4000, 3, "TEMP", "/u03/oradata/ORCL/temp01.dbf", 0, (300, 300, 9600, 9600, 0, 150, 150), temp=True),
)
FILES_CDB = (
    DataFile(1, 7, 0, "SYSTEM", "/u01/oradata/CDB1/system01.dbf", 1, (600, 120, 600, 120, 600, 300, 60)),
    DataFile(4, 2300, 2, "UNDOTBS1", "/u01/oradata/CDB1/undotbs01.dbf", 1, (120, 600, 120, 600, 120, 60, 300)),
    DataFile(9, 3100, 0, "SYSTEM", "/u01/oradata/CDB1/SALES/system01.dbf", 3, (60, 6, 60, 6, 60, 30, 3)),
    DataFile(12, 9100, 5, "USERS", "/u02/oradata/CDB1/SALES/users01.dbf", 3,
             (6000, 1800, 24000, 1800, 4800, 4800, 900)),
    DataFile(13, 9200, 5, "USERS", "/u02/oradata/CDB1/HR/users01.dbf", 4, (1200, 60, 1200, 60, 1200, 1200, 30)),
    DataFile(1, 4000, 3, "TEMP", "/u03/oradata/CDB1/temp01.dbf", 1, (300, 300, 9600, 9600, 0, 150, 150), temp=True),
    DataFile(3, 4100, 3, "TEMP", "/u03/oradata/CDB1/SALES/temp01.dbf", 3, (600, 600, 19200, 19200, 0, 600, 300),
             temp=True),
)
CONTENTS = {"UNDOTBS1": "UNDO", "TEMP": "TEMPORARY"}

# Consolidated V$IOSTAT_FILE deltas per type and instance: (small_read_reqs, small_write_reqs, large_read_reqs,
# large_write_reqs, small_read_mb, small_write_mb, large_read_mb, large_write_mb, read_ms, write_ms)
# Log File: 3000 writes/60 s = 50/s, 60 MB; 1500 ms -> 0.5 ms per write. Archiver reads 100 x 1 MB.
TYPED = {
    "Log File": (0, 3000, 100, 0, 0, 60, 100, 0, 400, 1500),
    "Archive Log": (0, 0, 0, 100, 0, 0, 0, 100, 0, 2000),
    "Control File": (1200, 600, 0, 0, 19, 9, 0, 0, 1200, 900),
    "Flashback Log": (0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    "Data File Backup": (0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    "Other": (60, 60, 0, 0, 1, 1, 0, 0, 10, 10),
}
TYPE_IDS = {"Other": 0, "Control File": 1, "Data File": 2, "Log File": 3, "Archive Log": 4, "Temp File": 6,
            "Data File Backup": 9, "Flashback Log": 17}


@dataclass(frozen=True)
class Scenario:
    name: str
    version: str
    version_full: str | None
    cdb: bool
    instances: int
    files: tuple[DataFile, ...]
    timed: bool = True

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    def connection(self, sample: int, *, startup: dt.datetime = STARTUP) -> ReplayConnection:
        return ReplayConnection(self.version_full or self.version, recordings(self, sample, startup))


SCENARIOS = {
    "11.2": Scenario("11.2", "11.2.0.4.0", None, False, 1, FILES_NONCDB),
    "12.1": Scenario("12.1", "12.1.0.2.0", None, False, 1, FILES_NONCDB),
    "19c": Scenario("19c", "19.0.0.0.0", "19.21.0.0.0", False, 1, FILES_NONCDB),
    "19c-cdb": Scenario("19c-cdb", "19.0.0.0.0", "19.21.0.0.0", True, 1, FILES_CDB),
    "19c-rac": Scenario("19c-rac", "19.0.0.0.0", "19.21.0.0.0", False, 2, FILES_NONCDB),
}


def _share(inst: int, instances: int) -> float:
    """RAC split of a file's IO: instance 1 does two thirds, instance 2 one third."""
    if instances == 1:
        return 1.0
    return 2 / 3 if inst == 1 else 1 / 3


def _con(s: Scenario, con_id: int) -> dict[str, int]:
    return {"CON_ID": con_id} if s.major >= 12 else {}


def _stat_rows(s: Scenario, sample: int, temp: bool) -> list[dict[str, Any]]:
    rows = []
    for f in (f for f in s.files if f.temp == temp):
        for inst in range(1, s.instances + 1):
            share = _share(inst, s.instances)
            n = [int(v * share) * (sample + 10) for v in f.delta]
            times = (n[5], n[6], n[5] // 2) if s.timed else (0, 0, 0)
            rows.append({
                "INST_ID": inst, "FILE#": f.file_no, "PHYRDS": n[0], "PHYWRTS": n[1], "PHYBLKRD": n[2],
                "PHYBLKWRT": n[3], "SINGLEBLKRDS": n[4], "READTIM": times[0], "WRITETIM": times[1],
                "SINGLEBLKRDTIM": times[2], **_con(s, f.con_id),
            })
    return rows


def _inventory(s: Scenario, temp: bool) -> list[dict[str, Any]]:
    return [
        {"FILE#": f.file_no, "CREATION_CHANGE#": f.creation, "TS#": f.ts_no, "NAME": f.path,
         "BYTES": 1024 * MIB, "BLOCK_SIZE": 8192, "STATUS": "ONLINE" if temp else "SYSTEM", **_con(s, f.con_id)}
        for f in s.files if f.temp == temp
    ]


def _iostat(s: Scenario, sample: int) -> list[dict[str, Any]]:
    rows = []
    for inst in range(1, s.instances + 1):
        for name, d in TYPED.items():
            # RAC: instance 2 writes 1200 redo per interval (20/s) on its own thread
            scale = (sample + 10) * (0.4 if inst == 2 else 1.0)
            v = [int(x * scale) for x in d]
            rows.append({
                "INST_ID": inst, "FILE_NO": 0, "FILETYPE_ID": TYPE_IDS[name], "FILETYPE_NAME": name,
                "SMALL_READ_MEGABYTES": v[4], "SMALL_WRITE_MEGABYTES": v[5], "LARGE_READ_MEGABYTES": v[6],
                "LARGE_WRITE_MEGABYTES": v[7], "SMALL_READ_REQS": v[0], "SMALL_WRITE_REQS": v[1],
                "SMALL_SYNC_READ_REQS": v[0], "LARGE_READ_REQS": v[2], "LARGE_WRITE_REQS": v[3],
                "SMALL_READ_SERVICETIME": v[8] if s.timed else 0, "SMALL_WRITE_SERVICETIME": v[9] if s.timed else 0,
                "SMALL_SYNC_READ_LATENCY": v[8] if s.timed else 0, "LARGE_READ_SERVICETIME": 0,
                "LARGE_WRITE_SERVICETIME": 0, **_con(s, 0),
            })
        for f in s.files:
            n = [int(x * _share(inst, s.instances)) * (sample + 10) for x in f.delta]
            rows.append({
                "INST_ID": inst, "FILE_NO": f.file_no, "FILETYPE_ID": 6 if f.temp else 2,
                "FILETYPE_NAME": "Temp File" if f.temp else "Data File", "SMALL_READ_MEGABYTES": n[4] * 8192 // MIB,
                "SMALL_WRITE_MEGABYTES": n[3] * 8192 // MIB, "LARGE_READ_MEGABYTES": (n[2] - n[4]) * 8192 // MIB,
                "LARGE_WRITE_MEGABYTES": 0, "SMALL_READ_REQS": n[4], "SMALL_WRITE_REQS": n[1],
                "SMALL_SYNC_READ_REQS": n[4], "LARGE_READ_REQS": n[0] - n[4], "LARGE_WRITE_REQS": 0,
                "SMALL_READ_SERVICETIME": n[5] * 8, "SMALL_WRITE_SERVICETIME": n[6] * 10,
                "SMALL_SYNC_READ_LATENCY": n[5] * 8, "LARGE_READ_SERVICETIME": n[5] * 2, "LARGE_WRITE_SERVICETIME": 0,
                **_con(s, f.con_id),
            })
    return rows


def _logs(s: Scenario) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    logs, members = [], []
    group = 0
    for thread in range(1, s.instances + 1):
        for _ in range(2):
            group += 1
            logs.append({"GROUP#": group, "THREAD#": thread, "SEQUENCE#": 100 + group, "BYTES": 512 * MIB,
                         "MEMBERS": 2, "ARCHIVED": "YES", "STATUS": "INACTIVE", **_con(s, 0)})
            for disk, suffix in (("u05", "b"), ("u04", "a")):  # deliberately not in path order
                members.append({"GROUP#": group, "STATUS": None, "TYPE": "ONLINE",
                                "MEMBER": f"/{disk}/redo/redo{group:02d}{suffix}.log",
                                "IS_RECOVERY_DEST_FILE": "NO", **_con(s, 0)})
        members.append({"GROUP#": 90 + thread, "STATUS": None, "TYPE": "STANDBY", "MEMBER": f"/u09/srl{thread}.log",
                        "IS_RECOVERY_DEST_FILE": "NO", **_con(s, 0)})
    return logs, members


def _events(s: Scenario, sample: int) -> tuple[list[dict[str, Any]], ...]:
    k = sample + 10
    events, hist, model, classes = [], [], [], []
    for inst in range(1, s.instances + 1):
        for name, wc, waits, micro in (
            ("db file sequential read", "User I/O", 6000, 36_000_000),
            ("db file scattered read", "User I/O", 1200, 12_000_000),
            ("log file parallel write", "System I/O", 3000, 1_500_000),
            ("log file sync", "Commit", 2400, 2_400_000),
        ):
            events.append({"INST_ID": inst, "EVENT": name, "WAIT_CLASS": wc, "TOTAL_WAITS": waits * k,
                           "TIME_WAITED_MICRO": micro * k if s.timed else 0, **_con(s, 0)})
        for bucket, count in ((1, 100), (2, 200), (4, 900), (8, 3000), (16, 1500), (32, 300)):
            hist.append({"INST_ID": inst, "EVENT": "db file sequential read", "WAIT_TIME_MILLI": bucket,
                         "WAIT_COUNT": count * k, "LAST_UPDATE_TIME": "21-NOV-26 09.00.00.000000 AM +00:00",
                         **_con(s, 0)})
        # DB time 120 s per interval and instance; foreground IO: User I/O 60 s + System I/O 6 s -> share 0.55
        model.append({"INST_ID": inst, "STAT_NAME": "DB time", "VALUE": 120_000_000 * k, **_con(s, 0)})
        model.append({"INST_ID": inst, "STAT_NAME": "DB CPU", "VALUE": 40_000_000 * k, **_con(s, 0)})
        for wc, cs_total, cs_fg in (("User I/O", 6500, 6000), ("System I/O", 1200, 600), ("Commit", 240, 240)):
            classes.append({"INST_ID": inst, "WAIT_CLASS": wc, "TOTAL_WAITS": 1000 * k,
                            "TIME_WAITED": cs_total * k if s.timed else 0, "TOTAL_WAITS_FG": 900 * k,
                            "TIME_WAITED_FG": cs_fg * k if s.timed else 0, **_con(s, 0)})
    return events, hist, model, classes


def recordings(s: Scenario, sample: int, startup: dt.datetime = STARTUP) -> dict[str, Recorded]:
    """Every query's rows for sample number *sample* of scenario *s*."""
    timed = "TRUE" if s.timed else "FALSE"
    name = "CDB1" if s.cdb else "ORCL"
    instance: dict[str, Any] = {}
    rows: dict[str, Recorded] = {}
    inst_rows = []
    for inst in range(1, s.instances + 1):
        instance = {"INST_ID": inst, "INSTANCE_NUMBER": inst, "INSTANCE_NAME": f"{name.lower()}{inst}",
                    "HOST_NAME": f"dbhost{inst}", "VERSION": s.version, "THREAD#": inst, "STATUS": "OPEN",
                    "STARTUP_TIME": startup + dt.timedelta(minutes=inst - 1), **_con(s, 0)}
        if s.version_full:
            instance["VERSION_FULL"] = s.version_full
        inst_rows.append(instance)
    rows["instance"] = inst_rows
    database: dict[str, Any] = {"DBID": 1234567890 if not s.cdb else 987654321, "NAME": name, "DB_UNIQUE_NAME": name,
                                "LOG_MODE": "ARCHIVELOG", "OPEN_MODE": "READ WRITE",
                                "SAMPLED_AT": SAMPLED + dt.timedelta(seconds=INTERVAL_S * sample)}
    if s.major >= 12:
        database["CDB"] = "YES" if s.cdb else "NO"
    rows["database"] = [database]
    rows["parameter"] = [
        {"NAME": k, "VALUE": v, **_con(s, 0)} for k, v in (
            ("timed_statistics", timed), ("statistics_level", "TYPICAL" if s.timed else "BASIC"),
            ("db_block_size", "8192"), ("db_recovery_file_dest", "/u07/fra"),
            ("db_recovery_file_dest_size", "107374182400"),
        )
    ]
    rows["filestat"] = _stat_rows(s, sample, temp=False)
    rows["tempstat"] = _stat_rows(s, sample, temp=True)
    rows["datafile"] = _inventory(s, temp=False)
    rows["tempfile"] = _inventory(s, temp=True)
    seen = {(f.ts_no, f.con_id): f.tablespace for f in s.files}
    rows["tablespace"] = [{"TS#": ts, "NAME": n, **_con(s, c)} for (ts, c), n in sorted(seen.items())]
    rows["tablespace_contents"] = [
        {"TABLESPACE_NAME": n, "CONTENTS": CONTENTS.get(n, "PERMANENT"), **_con(s, c)}
        for (_, c), n in sorted(seen.items())
    ]
    rows["iostat_file"] = _iostat(s, sample)
    rows["log"], rows["logfile"] = _logs(s)
    rows["controlfile"] = [
        {"NAME": p, "STATUS": None, "IS_RECOVERY_DEST_FILE": "NO", "BLOCK_SIZE": 16384, "FILE_SIZE_BLKS": 1200,
         **_con(s, 0)} for p in (f"/u01/oradata/{name}/control01.ctl", f"/u05/oradata/{name}/control02.ctl")
    ]
    rows["recovery_file_dest"] = [{"NAME": "/u07/fra", "SPACE_LIMIT": 100 * 1024 * MIB, "SPACE_USED": 20 * 1024 * MIB,
                                   "SPACE_RECLAIMABLE": 0, "NUMBER_OF_FILES": 40, **_con(s, 0)}]
    rows["recovery_area_usage"] = [
        {"FILE_TYPE": t, "PERCENT_SPACE_USED": p, "PERCENT_SPACE_RECLAIMABLE": 0, "NUMBER_OF_FILES": n, **_con(s, 0)}
        for t, p, n in (("ARCHIVED LOG", 10.5, 30), ("FLASHBACK LOG", 0, 0), ("BACKUP PIECE", 9.5, 10))
    ]
    rows["archive_dest"] = [
        {"DEST_ID": 1, "DEST_NAME": "LOG_ARCHIVE_DEST_1", "STATUS": "VALID", "TARGET": "PRIMARY",
         "DESTINATION": "/u06/arch", **_con(s, 0)},
        {"DEST_ID": 2, "DEST_NAME": "LOG_ARCHIVE_DEST_2", "STATUS": "INACTIVE", "TARGET": "PRIMARY",
         "DESTINATION": None, **_con(s, 0)},
    ]
    rows.update(segment_recordings(s.major, s.cdb, s.instances, sample))
    events = _events(s, sample)
    rows["system_event"], rows["event_histogram"], rows["sys_time_model"], rows["system_wait_class"] = events
    if s.cdb:
        rows["containers"] = [
            {"CON_ID": c, "NAME": n, "OPEN_MODE": m}
            for c, n, m in ((1, "CDB$ROOT", "READ WRITE"), (2, "PDB$SEED", "READ ONLY"), (3, "SALES", "READ WRITE"),
                            (4, "HR", "READ WRITE"))
        ]
    return rows


def statspack_recordings(s: Scenario, *, restart: bool = False, prefix: str = "statspack") -> dict[str, Recorded]:
    """Live rows of *s* plus Statspack (or AWR) tables holding snaps 10, 11 and 12, one hour apart.

    Snap k holds k hours of the per-minute DELTA figures, so rates are the same per second
    as the live scenario (USERS: 100 reads/s). With *restart* the instance restarted
    between snaps 10 and 11.
    """
    rows = recordings(s, 1)
    snaps = (10, 11, 12)

    def when(snap: int) -> dt.datetime:
        return dt.datetime(2026, 11, 20, snap, 0, 0)

    def startup(snap: int) -> dt.datetime:
        return STARTUP + dt.timedelta(days=19) if restart and snap >= 11 else STARTUP

    time_col = "END_INTERVAL_TIME" if prefix == "awr" else "SNAP_TIME"
    snap_rows = [{"SNAP_ID": k, "DBID": 1234567890, "INSTANCE_NUMBER": 1, time_col: when(k),
                  "STARTUP_TIME": startup(k)} for k in snaps]

    def stat(temp: bool) -> list[dict[str, Any]]:
        out = []
        for k in snaps:
            for f in (f for f in s.files if f.temp == temp):
                n = [v * 60 * k for v in f.delta]
                out.append({"SNAP_ID": k, "DBID": 1234567890, "INSTANCE_NUMBER": 1, "FILE#": f.file_no,
                            "TSNAME": f.tablespace, "FILENAME": f.path, "PHYRDS": n[0], "PHYWRTS": n[1],
                            "SINGLEBLKRDS": n[4], "READTIM": n[5], "WRITETIM": n[6], "SINGLEBLKRDTIM": n[5] // 2,
                            "PHYBLKRD": n[2], "PHYBLKWRT": n[3]})
        return out

    event_col = "EVENT_NAME" if prefix == "awr" else "EVENT"
    events = [{"SNAP_ID": k, "DBID": 1234567890, "INSTANCE_NUMBER": 1, event_col: name, "TOTAL_WAITS": w * 60 * k,
               "TIME_WAITED_MICRO": m * 60 * k}
              for k in snaps for name, w, m in (("db file sequential read", 6000, 36_000_000),
                                                ("log file parallel write", 3000, 1_500_000))]
    model = [{"SNAP_ID": k, "DBID": 1234567890, "INSTANCE_NUMBER": 1, "STAT_NAME": "DB time",
              "VALUE": 120_000_000 * 60 * k} for k in snaps]
    name_col = "PARAMETER_NAME" if prefix == "awr" else "NAME"
    params = [{"SNAP_ID": k, "DBID": 1234567890, "INSTANCE_NUMBER": 1, name_col: n, "VALUE": v}
              for k in snaps for n, v in (("db_block_size", "8192"), ("timed_statistics", "TRUE"))]

    def by_snap(table: list[dict[str, Any]], single: bool = False) -> Recorded:
        def serve(binds: Any) -> list[dict[str, Any]]:
            wanted = {binds["end_snap"]} if single else {binds["begin_snap"], binds["end_snap"]}
            return [r for r in table if r["SNAP_ID"] in wanted and r["DBID"] == binds["dbid"]
                    and r["INSTANCE_NUMBER"] == binds["instance_number"]]
        return serve

    rows[f"{prefix}_snapshot"] = by_snap(snap_rows)
    rows[f"{prefix}_filestat"] = by_snap(stat(False))
    rows[f"{prefix}_tempstat"] = by_snap(stat(True))
    rows[f"{prefix}_system_event"] = by_snap(events)
    rows[f"{prefix}_time_model"] = by_snap(model)
    rows[f"{prefix}_parameter"] = by_snap(params, single=True)
    rows[f"{prefix}_seg_stat"] = history_rows(prefix, s.major, s.cdb)
    return rows
