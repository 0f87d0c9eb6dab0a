"""Recorded GV$SEGSTAT (named from the dictionary) and DBA_EXTENTS rows for the replay scenarios.

Sample ``i`` holds ``i + 10`` intervals of the per-minute DELTA figures below (as the file
rows do), split 2/3 and 1/3 over a 2-node RAC, so two samples 60 s apart give exact rates:
ORDERS reads 3,000 requests per minute = 50/s and writes 600 = 10/s. Each row is a joined row
with the documented column names of GV$SEGSTAT, DBA_OBJECTS, DBA_SEGMENTS, DBA_INDEXES and
DBA_LOBS (CDB_ views from 12.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.oracle.oracle_replay import Recorded

# statistic order of the DELTA tuples
STATISTICS = ("physical reads", "physical read requests", "physical reads direct", "physical writes",
              "physical write requests", "physical writes direct", "segment scans")


@dataclass(frozen=True)
class Seg:
    owner: str | None  # None: the object was dropped (no dictionary row)
    name: str | None
    subobject: str | None
    kind: str
    object_type: str
    obj: int
    dataobj: int
    con_id: int  # container in the CDB scenario (0 elsewhere)
    delta: tuple[int, int, int, int, int, int, int]
    size_mib: int = 64
    parent: tuple[str, str] | None = None  # index: (table owner, table); LOB: (table, column)
    extents: tuple[tuple[int, int], ...] = ()  # (file#, MiB) in the non-CDB scenarios


SEGMENTS = (
    Seg("SCOTT", "ORDERS", None, "TABLE", "TABLE", 74001, 74001, 3, (24_000, 3_000, 6_000, 1_200, 600, 0, 6),
        2048, extents=((4, 1536), (4, 512))),
    Seg("SCOTT", "ORDERS_PK", None, "INDEX", "INDEX", 74002, 74002, 3, (1_800, 1_800, 0, 600, 600, 0, 0), 256,
        parent=("SCOTT", "ORDERS"), extents=((4, 256),)),
    Seg("SCOTT", "SALES", "P2026Q4", "TABLE PARTITION", "TABLE PARTITION", 74010, 74011, 3,
        (6_000, 600, 4_800, 120, 60, 120, 3), 512, extents=((4, 512),)),
    Seg("SCOTT", "SYS_LOB0000074001C00004$$", None, "LOBSEGMENT", "LOB", 74005, 74005, 3,
        (600, 600, 600, 300, 300, 300, 0), 128, parent=("ORDERS", "DOC")),
    Seg("HR", "EMP", None, "TABLE", "TABLE", 75001, 75001, 4, (1_200, 1_200, 0, 60, 60, 0, 1), 32),
)
DROPPED = Seg(None, None, None, "", "", 74100, 74101, 3, (120, 120, 0, 0, 0, 0, 0))


def _share(inst: int, instances: int) -> float:
    return 1.0 if instances == 1 else (2 / 3 if inst == 1 else 1 / 3)


def segment_rows(major: int, cdb: bool, instances: int, sample: int,
                 segments: tuple[Seg, ...] = SEGMENTS) -> list[dict[str, Any]]:
    """The joined segment_stat rows of one sample (all in USERS: TS# 4, or 5 in the CDB's PDBs)."""
    rows = []
    for seg in segments:
        if not cdb and seg.con_id == 4:
            continue  # HR exists only as a PDB
        ts_no = 5 if cdb else 4
        for inst in range(1, instances + 1):
            for name, per_minute in zip(STATISTICS, seg.delta, strict=True):
                value = int(per_minute * _share(inst, instances)) * (sample + 10)
                if not value:
                    continue
                index = seg.kind.startswith("INDEX") and seg.parent
                lob = seg.kind.startswith("LOB") and seg.parent
                row: dict[str, Any] = {
                    "INST_ID": inst, "TS#": ts_no, "OBJ#": seg.obj, "DATAOBJ#": seg.dataobj, "STATISTIC_NAME": name,
                    "VALUE": value, "OWNER": seg.owner, "OBJECT_NAME": seg.name, "SUBOBJECT_NAME": seg.subobject,
                    "OBJECT_TYPE": seg.object_type if seg.owner else None,
                    "SEGMENT_TYPE": seg.kind if seg.owner else None,
                    "BYTES": seg.size_mib << 20 if seg.owner else None,
                    "BLOCKS": (seg.size_mib << 20) // 8192 if seg.owner else None,
                    "TABLE_OWNER": seg.parent[0] if index and seg.parent else None,
                    # DBA_INDEXES.TABLE_NAME and DBA_LOBS.TABLE_NAME: only one is non-null per row
                    "TABLE_NAME": seg.parent[1] if index and seg.parent else (seg.parent[0] if lob and seg.parent
                                                                               else None),
                    "COLUMN_NAME": seg.parent[1] if lob and seg.parent else None,
                }
                if major >= 12:
                    row["CON_ID"] = seg.con_id if cdb else 0
                rows.append(row)
    return rows


def extent_rows(cdb: bool) -> Recorded:
    """DBA_EXTENTS / CDB_EXTENTS rows served for the segment named in the binds."""
    def serve(binds: dict[str, Any]) -> list[dict[str, Any]]:
        for seg in SEGMENTS:
            if (seg.owner, seg.name, seg.subobject) == (binds["owner"], binds["segment_name"], binds["partition_name"]):
                if cdb and binds["con_id"] != seg.con_id:
                    return []
                files = [(12 if cdb else number, mib) for number, mib in seg.extents]
                return [{"FILE_ID": number, "BYTES": mib << 20} for number, mib in files]
        return []
    return serve


def segment_recordings(major: int, cdb: bool, instances: int, sample: int) -> dict[str, Recorded]:
    """Both segment queries' recordings for one sample."""
    return {"segment_stat": segment_rows(major, cdb, instances, sample), "segment_extents": extent_rows(cdb)}


def history_rows(prefix: str, major: int = 11, cdb: bool = False, snaps: tuple[int, ...] = (10, 11, 12)) -> Recorded:
    """``statspack_seg_stat`` (cumulative at snap k: k hours of DELTA) or ``awr_seg_stat`` (one hour of DELTA
    per snapshot) rows, served for the binds as the SQL would filter them. Statspack captured SALES:P2026Q4
    only from snap 11 on (below its threshold before)."""
    table = []
    for k in snaps:
        for seg in SEGMENTS:
            if (seg.con_id == 4 and not cdb) or (prefix == "statspack" and seg.name == "SALES" and k < 11):
                continue
            reads, read_reqs, direct_reads, writes, write_reqs, direct_writes, scans = (v * 60 for v in seg.delta)
            row: dict[str, Any] = {"SNAP_ID": k, "DBID": 1234567890, "INSTANCE_NUMBER": 1, "TS#": 4,
                                   "OBJ#": seg.obj, "DATAOBJ#": seg.dataobj, "OWNER": seg.owner,
                                   "OBJECT_NAME": seg.name, "SUBOBJECT_NAME": seg.subobject,
                                   "OBJECT_TYPE": seg.object_type, "TABLESPACE_NAME": "USERS"}
            if major >= 12 and prefix == "awr":
                row["CON_ID"] = seg.con_id if cdb else 0
            if prefix == "awr":
                row |= {"PHYSICAL_READS_DELTA": reads, "PHYSICAL_READ_REQUESTS_DELTA": read_reqs,
                        "PHYSICAL_READS_DIRECT_DELTA": direct_reads, "PHYSICAL_WRITES_DELTA": writes,
                        "PHYSICAL_WRITE_REQUESTS_DELTA": write_reqs, "PHYSICAL_WRITES_DIRECT_DELTA": direct_writes,
                        "TABLE_SCANS_DELTA": scans}
            else:
                row |= {"PHYSICAL_READS": reads * k, "PHYSICAL_WRITES": writes * k,
                        "DIRECT_PHYSICAL_READS": direct_reads * k, "DIRECT_PHYSICAL_WRITES": direct_writes * k}
            table.append(row)

    def serve(binds: dict[str, Any]) -> list[dict[str, Any]]:
        def wanted(snap: int) -> bool:
            if prefix == "awr":
                return bool(binds["begin_snap"] < snap <= binds["end_snap"])
            return snap in (binds["begin_snap"], binds["end_snap"])
        return [r for r in table if wanted(r["SNAP_ID"]) and r["DBID"] == binds["dbid"]
                and r["INSTANCE_NUMBER"] == binds["instance_number"]]
    return serve
