"""Merge a sizes file into a workload: by file name, else by tablespace, with its provenance.

AWR and Statspack reports state no file sizes, so an imported workload's sizes are unknown
(None). The DBA runs ``advisor sql show sizes`` on the database and gives the output with
``--sizes``; each workload file then takes

1. the size of the row with the same file name (data and temp files, redo members, control
   files; PostgreSQL's WAL directory), else
2. when its size is unknown or 0 (a PostgreSQL role without pg_ls_waldir/pg_ls_tmpdir reads
   the WAL and temp sizes as 0), a share of what its tablespace's unmatched rows hold, in
   equal parts over its files the workload lists without a name match (the tablespace total,
   which is what a plan moves, is exact; the split between its files is not). Rows without
   a file of their own are matched by kind: the redo members sum to the report's redo row,
   the FRA's use per file type to its archive and flashback rows, all data files to a
   report's type-level "Data File" row.

Files of a listed tablespace that the report does not list (no IO in the interval) are added
with no IO and their size, so the tablespace is planned at its full size. Refused, with one
line naming the file and line: rows of another database (DB name or DBID present and
different), a file named twice, a name match of another kind of file or another tablespace,
a row two groups of files would take, and a file of which no row matches anything. A file's
size below one database block (V$DATAFILE's 0 for a file it cannot read) is unknown, not a
size; on a container database, rows without CONTAINER match by name only. Only the rows that
can match are read into memory (:func:`wanted`, given to ``read_sizes``). The merged workload
records the file, its shape, when the query ran and what matched
(:class:`~advisor.model.SizesSource`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace

from advisor.errors import BadInput
from advisor.model import FileRate, SizesSource, Workload
from advisor.model.validate import timestamp_problem
from advisor.sizes.formats import Keep, SizeRow, SizesTable
from advisor.units import KIB

REPORT_SOURCES = frozenset({"awr-html", "awr-text", "statspack", "awr"})
"""Workload sources whose files carry no size: a size of 0 in a document written before
sizes were kept as unknown (None) means unknown too."""

_RATE_FAMILY = {"data": "data", "index": "data", "undo": "data", "other": "data", "toast": "data",
                "sequence": "data", "temp": "temp", "redo": "redo", "wal": "wal", "control": "control",
                "archive": "archive", "fra": "fra", "backup": "backup"}
_ROW_FAMILY = {"datafile": "data", "tempfile": "temp", "redo": "redo", "control": "control",
               "tablespace": "data", "wal": "wal", "temp": "temp"}
_FRA_FAMILY = {"ARCHIVED LOG": "archive", "FOREIGN ARCHIVED LOG": "archive", "FLASHBACK LOG": "fra"}
_NAMED = frozenset({"datafile", "tempfile", "redo", "control", "wal"})
"""Row kinds whose FILE_NAME is one file of its own (matched by name; twice is an error)."""
_BY_TABLESPACE = frozenset({"data", "temp"})
_FILES = frozenset({"datafile", "tempfile", "redo", "control"})
"""Row kinds that are one Oracle file each, at least a block long."""
ROOTS = frozenset({"", "CDB$ROOT"})
SMALLEST_BLOCK = 2 * KIB
"""Oracle's smallest DB_BLOCK_SIZE: a size below it is no file's (when the workload states no block size)."""


def size_unknown(rate: FileRate, workload: Workload) -> bool:
    """True when *rate*'s size is not known (None, or a report import's 0 from an older document)."""
    if rate.size_bytes is None:
        return True
    return rate.size_bytes == 0 and workload.sizes is None and workload.source in REPORT_SOURCES


def _row_family(path: str, row: SizeRow) -> str:
    if row.kind == "fra":
        return _FRA_FAMILY.get(row.tablespace.upper(), "backup")
    family = _ROW_FAMILY.get(row.kind)
    if family is None:
        raise BadInput(f"{path} line {row.line}: KIND {row.kind!r} is not one the sizes query prints")
    return family


def _check_identity(table: SizesTable, workload: Workload) -> None:
    server = workload.server
    for line, db_name, dbid in table.identities:
        other_id = dbid and server.identity and dbid != server.identity
        other_name = (server.dbms == "oracle" and db_name and server.name
                      and db_name.upper() != server.name.upper())
        if other_id or other_name:
            raise BadInput(
                f"{table.path} line {line}: sizes of database {db_name or '?'} (DBID {dbid or '?'}), "
                f"but the workload is of {server.name or '?'} (DBID {server.identity or '?'}); refused "
                "(run the sizes query on the database the report is of)")


def is_cdb(workload: Workload) -> bool:
    """Whether the workload is of a container database (a PDB's files: a CONTAINER tells them apart)."""
    if workload.server.dbms != "oracle":  # PostgreSQL's container is the database, of one cluster
        return False
    db_name = workload.server.name.upper()
    return (workload.server.settings.get("cdb", "").upper() == "YES"
            or any(r.container.upper() not in ROOTS | {db_name} for r in workload.rates))


def block_bytes(workload: Workload) -> int:
    """The database's block size (its settings), else the smallest a database has: a size below it is no file's."""
    settings = workload.server.settings
    for key in ("db_block_size", "block_size"):
        text = settings.get(key, "")
        if text.isdigit() and int(text) > 0:
            return int(text)
    return SMALLEST_BLOCK


def wanted(workload: Workload) -> Keep:
    """Which rows of a sizes file can matter to *workload*: a file it names, a kind it lists (redo, control,
    FRA), or a tablespace it lists; :func:`~advisor.sizes.formats.read_sizes` keeps only those."""
    paths = {r.path for r in workload.rates if r.path}
    families = {_RATE_FAMILY.get(r.kind, "data") for r in workload.rates}
    tablespaces = {(f, _ts_key(f, r.tablespace)) for r in workload.rates
                   if (f := _RATE_FAMILY.get(r.kind, "data")) in _BY_TABLESPACE}

    def keep(kind: str, tablespace: str, file_name: str) -> bool:
        if file_name in paths:
            return True
        family = _FRA_FAMILY.get(tablespace.upper(), "backup") if kind == "fra" else _ROW_FAMILY.get(kind, "")
        if family not in families:
            return False
        return family not in _BY_TABLESPACE or bool({(family, "*"), (family, _ts_key(family, tablespace))}
                                                     & tablespaces)
    return keep


def _unknown_rows(table: SizesTable, block: int) -> set[int]:
    """Rows of a database file whose size is below one block: V$DATAFILE prints 0 for a file it cannot
    read. A sum is not a file (an FRA's use per file type, PostgreSQL's WAL and temp directories,
    a tablespace): its 0 is a size, nothing of that kind being kept."""
    return {j for j, row in enumerate(table.rows) if row.kind in _FILES and row.size_bytes < block}


def _kind_disagrees(row: SizeRow, family: str, rate: FileRate) -> str | None:
    """Why a name match cannot stand: the row is another kind of file, or of another tablespace."""
    theirs = _RATE_FAMILY.get(rate.kind, "data")
    if family != theirs:
        return f"a {row.kind} row, but the workload's {rate.file_id} is a {rate.kind} file"
    if (family in _BY_TABLESPACE and row.tablespace and rate.tablespace
            and row.tablespace.upper() != rate.tablespace.upper()):
        return f"of tablespace {row.tablespace}, but the workload's file is of {rate.tablespace}"
    return None


def _container_ok(row: SizeRow, rate: FileRate, db_name: str, cdb: bool = False) -> bool:
    """Whether *row* may size a file of *rate*'s container; on a CDB a row without CONTAINER may not
    (it could be any PDB's or the root's: a name match is the only match it gets)."""
    theirs, ours = row.container.upper(), rate.container.upper()
    if not theirs:
        return not cdb
    if theirs == ours:
        return True
    return ours in ("", db_name.upper()) and theirs in ROOTS | {db_name.upper()}


def _ts_key(family: str, tablespace: str) -> str:
    return tablespace.upper() if family in _BY_TABLESPACE and tablespace else "*"


def merge_sizes(workload: Workload, table: SizesTable, now: dt.datetime | None = None) -> Workload:
    """*workload* with the sizes of *table* merged in, its provenance and a warning saying what matched."""
    return merge_sizes_noted(workload, table, now)[0]


def merge_sizes_noted(workload: Workload, table: SizesTable,
                      now: dt.datetime | None = None) -> tuple[Workload, list[str]]:
    """:func:`merge_sizes`, and the warnings a person must see at once (sizes taken as unknown, rows
    used by name only), which the commands print on stderr as well as keeping them in the workload."""
    _check_identity(table, workload)
    families = [_row_family(table.path, row) for row in table.rows]
    unknown_rows = _unknown_rows(table, block_bytes(workload))
    cdb = is_cdb(workload)
    by_name: dict[str, int] = {}
    for index, row in enumerate(table.rows):
        if row.kind in _NAMED and row.file_name:
            if row.file_name in by_name:
                first = table.rows[by_name[row.file_name]].line
                raise BadInput(f"{table.path} line {row.line}: {row.file_name} is listed twice (also line {first}); "
                               "it would match its file twice")
            by_name[row.file_name] = index
    sizes: list[int | None] = [None if size_unknown(r, workload) else r.size_bytes for r in workload.rates]
    claimed: dict[int, str] = {}
    named = 0
    for i, rate in enumerate(workload.rates):
        index_of = by_name.get(rate.path) if rate.path else None
        if index_of is not None:
            row = table.rows[index_of]
            if why := _kind_disagrees(row, families[index_of], rate):
                raise BadInput(f"{table.path} line {row.line}: {row.file_name} is {why}; refused "
                               "(is the sizes file of this database, and unedited?)")
            if index_of not in unknown_rows:  # else the size stays what the workload said (unknown)
                sizes[i] = row.size_bytes
            claimed[index_of] = rate.file_id
            named += 1
    by_ts, added = _by_tablespace(workload, table, families, sizes, claimed, unknown_rows, cdb)
    if not claimed:
        raise BadInput(f"{table.path}: none of its {table.row_count or len(table.rows)} rows matches a file or "
                       f"tablespace of the workload ({table.head or 'no row'}); is it of another database?")
    rates = tuple(r if s == r.size_bytes else replace(r, size_bytes=s)
                  for r, s in zip(workload.rates, sizes, strict=True)) + tuple(added)
    unknown = sum(1 for s in sizes if s is None) + sum(1 for r in added if r.size_bytes is None)
    taken = table.taken_at or next((r.taken_at for r in table.rows if r.taken_at), "")
    notes: list[str] = []
    if taken and (why := timestamp_problem(taken)):
        notes.append(f"{table.path}: TAKEN_AT {taken!r}: {why}; when the sizes were taken is left unstated")
        taken = ""
    identity = next(((db, dbid) for _line, db, dbid in table.identities if db or dbid), ("", ""))
    source = SizesSource(
        path=table.path, file_format=table.file_format, taken_at=taken,
        merged_at=(now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
        rows=table.row_count or len(table.rows), files_by_name=named, files_by_tablespace=by_ts,
        files_unknown=unknown, db_name=identity[0] or None, dbid=identity[1] or None)
    notes[:0] = [f"sizes from {table.path} ({table.file_format}, taken {taken or 'at an unstated time'}): "
             f"{named} files by name, {by_ts} by tablespace, {len(added)} added (files of listed tablespaces "
             f"the report does not list: no IO), {unknown} still unknown"]
    urgent = _unknown_note(table, unknown_rows, claimed, block_bytes(workload))
    if cdb and not table.containers:
        urgent.append(f"{table.path} has no CONTAINER column and the workload is of a container database: its rows "
                     "size files by name only (a tablespace's rows could be any PDB's or the root's); run the "
                     "12.2+ sizes query, which prints CONTAINER, for the rest")
    return replace(workload, rates=rates, sizes=source, warnings=(*workload.warnings, *notes, *urgent)), urgent


def _unknown_note(table: SizesTable, unknown_rows: set[int], claimed: dict[int, str], block: int) -> list[str]:
    used = sorted(j for j in unknown_rows if j in claimed)
    if not used:
        return []
    shown = ", ".join(f"line {table.rows[j].line} {table.rows[j].file_name or table.rows[j].tablespace}"
                      for j in used[:5]) + (f" and {len(used) - 5} more" if len(used) > 5 else "")
    return [f"{table.path}: {len(used)} sizes below one database block ({block:,} bytes) taken as unknown, not as "
            f"sizes (V$DATAFILE prints 0 for a file it cannot read): {shown}; their areas need --sizes from "
            "a new run of the query, or --assume-size"]


def _by_tablespace(workload: Workload, table: SizesTable, families: Sequence[str], sizes: list[int | None],
                   claimed: dict[int, str], unknown_rows: set[int], cdb: bool) -> tuple[int, list[FileRate]]:
    """Give the files without a name match their share of their tablespace's (or kind's) other rows."""
    name_matched = set(claimed)
    groups: dict[tuple[str, str, str], list[int]] = {}
    named_files = set(claimed.values())
    for i, rate in enumerate(workload.rates):
        if rate.file_id in named_files or sizes[i]:
            continue  # a name match or the collector's own size: only unknown (or 0) sizes are filled here
        family = _RATE_FAMILY.get(rate.kind, "data")
        groups.setdefault((family, _ts_key(family, rate.tablespace), rate.container), []).append(i)
    db_name = workload.server.name
    count = 0
    for (family, ts, _container), members in groups.items():
        first = workload.rates[members[0]]
        # a row per kind ("*": a report's type-level row, redo, control, FRA) covers every container
        rows = [j for j, row in enumerate(table.rows) if j not in name_matched and families[j] == family
                and (ts == "*" or (row.tablespace.upper() == ts and _container_ok(row, first, db_name, cdb)))]
        if not rows:
            continue
        for j in rows:
            if j in claimed:
                raise BadInput(f"{table.path} line {table.rows[j].line}: the row would size both {claimed[j]} and "
                               f"{first.file_id}; it matches twice (add a CONTAINER column, or one row per file)")
            claimed[j] = first.file_id
        if any(j in unknown_rows for j in rows):  # one file of unknown size: the total is unknown
            for i in members:
                sizes[i] = None
        else:
            share, rest = divmod(sum(table.rows[j].size_bytes for j in rows), len(members))
            for k, i in enumerate(members):
                sizes[i] = share + (rest if k == 0 else 0)
        count += len(members)
    return count, _unlisted(workload, table, families, claimed, unknown_rows, cdb)


def _unlisted(workload: Workload, table: SizesTable, families: Sequence[str], claimed: dict[int, str],
              unknown_rows: set[int], cdb: bool) -> list[FileRate]:
    """Rows of a listed tablespace that no workload file took: its files without IO in the report."""
    present: dict[tuple[str, str], list[FileRate]] = {}  # one file per container of each tablespace
    for rate in workload.rates:
        family = _RATE_FAMILY.get(rate.kind, "data")
        if family in _BY_TABLESPACE and rate.tablespace:
            same = present.setdefault((family, rate.tablespace.upper()), [])
            if all(r.container != rate.container for r in same):
                same.append(rate)
    taken = {r.file_id for r in workload.rates}
    added = []
    for j, row in enumerate(table.rows):
        if j in claimed or row.kind not in _NAMED or not row.file_name:
            continue
        candidates = present.get((families[j], row.tablespace.upper()), [])
        like = next((r for r in candidates if _container_ok(row, r, workload.server.name, cdb)), None)
        if like is None:
            continue
        file_id = f"{like.kind}:{row.file_name}"
        if file_id in taken:
            continue
        taken.add(file_id)
        claimed[j] = file_id
        added.append(FileRate(
            file_id=file_id, path=row.file_name, kind=like.kind, tablespace=like.tablespace, container=like.container,
            size_bytes=None if j in unknown_rows else row.size_bytes, read_iops=0.0, write_iops=0.0, read_mb_s=0.0,
            write_mb_s=0.0, mean_read_kb=None, mean_write_kb=None, random_share=None, read_latency_ms=None,
            write_latency_ms=None, name="not in the report: no IO listed; size from --sizes"))
    return added
