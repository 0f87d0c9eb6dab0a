"""Per-relation buffer misses from every database, one connection per database.

Per-relation statistics functions only see the current database, so the collector visits
each database that allows connections. The queries run on a few connections at once while
this thread turns the rows that have arrived into FileIO rows: the server works on the next
databases while the client stats files, and only one thread runs Python on the rows (two
threads doing so fought over the interpreter lock and were slower than one). A cluster with
many databases and 100,000 relations is read in well under a second this way
(benchmarks/collect_bench.py). Shared catalogs are counted once, by the main session's
database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from advisor.collectors.postgres.files import IS_SHARED_COLUMN, RelationPaths, relation_files, relation_paths
from advisor.collectors.postgres.own_io import OwnIo, own_io
from advisor.collectors.postgres.rows import DatabaseRow
from advisor.collectors.postgres.session import PgSession, open_connection, run_tuples
from advisor.collectors.postgres.sizes import SizeReader
from advisor.errors import AdvisorError, PrivilegeMissing
from advisor.model import FileIO

MAX_PARALLEL = 2
"""Queries in flight at once: one runs while the rows of another are turned into files."""

SIZE_HELPER = True
"""Read file sizes in a helper process (benchmarks/collect_bench.py compares both ways)."""


@dataclass(frozen=True, slots=True)
class DatabaseVisit:
    """Relation files of one database, or why they could not be read."""

    datname: str
    files: list[FileIO]
    rows: int
    seconds: float  # connection, query and transfer
    error: str | None = None
    files_seconds: float = 0.0  # turning rows into files (stat included)
    own_io: OwnIo = field(default_factory=dict)  # the collector's pending reads on this connection (own_io.py)


@dataclass(frozen=True, slots=True)
class _Fetched:
    rows: list[tuple[Any, ...]]
    seconds: float
    error: str | None
    own_io: OwnIo = field(default_factory=dict)


def databases_to_visit(databases: list[DatabaseRow]) -> tuple[list[DatabaseRow], list[str]]:
    """Databases whose relations can be read, and a warning for each one that cannot."""
    visit, warnings = [], []
    for db in databases:
        if not db.allow_connections:
            continue  # template0 and databases closed on purpose hold no live relations
        if not db.can_connect:
            warnings.append(
                f"no CONNECT privilege on database {db.datname}: its relations are not counted "
                f'(GRANT CONNECT ON DATABASE "{db.datname}" TO the advisor role)'
            )
            continue
        visit.append(db)
    return visit, warnings


def _fetch(session: PgSession, datname: str, count_shared: bool, own: bool) -> _Fetched:
    """The ``relations`` rows of one database (runs in a worker thread)."""
    start = time.monotonic()
    params = {"count_shared": count_shared}
    mine: OwnIo = {}
    try:
        if own:  # in the collector's transaction on its own connection (collector.py asks own_io at its end)
            with session.conn.transaction():  # a savepoint: a failure here leaves that transaction usable
                rows = run_tuples(session.conn, session.major, "relations", params)
        else:
            conn = open_connection(session.dsn, session.options, dbname=datname)
            try:
                with conn.transaction():  # the counters, then what reading them read (own_io.py)
                    rows = run_tuples(conn, session.major, "relations", params)
                    mine = own_io(conn, session.major, datname)
            finally:
                conn.close()
    except PrivilegeMissing:
        raise
    except AdvisorError as exc:
        return _Fetched([], time.monotonic() - start, exc.one_line())
    return _Fetched(rows, time.monotonic() - start, None, mine)


@dataclass
class _Stage:
    """One database between its query and its files: rows and paths, sizes on their way."""

    datname: str
    fetched: _Fetched
    rows: list[tuple[Any, ...]]
    paths: list[str | None]


def read_all(
    session: PgSession, databases: list[DatabaseRow], current_db: str, where: RelationPaths
) -> list[DatabaseVisit]:
    """Relation files of every database in *databases*; the current one also returns pg_global.

    Three things overlap: the queries of the next databases (worker threads, waiting on the
    server), the sizes of this database's files (a helper process, see
    :mod:`advisor.collectors.postgres.sizes`) and the FileIO rows of the previous database (here).
    """
    jobs: list[tuple[str, int, bool, Callable[[], _Fetched]]] = []
    for db in databases:
        own = db.datname == current_db
        jobs.append((db.datname, db.datid, False, partial(_fetch, session, db.datname, own, own)))
    if not any(db.datname == current_db for db in databases):
        # Our own database is not in the list: still count pg_global once, from it.
        jobs.append((current_db, 0, True, partial(_fetch, session, current_db, True, True)))
    visits: list[DatabaseVisit] = []
    pool = ThreadPoolExecutor(max_workers=max(1, min(MAX_PARALLEL, len(jobs))))
    sizer = SizeReader() if SIZE_HELPER and where.local and len(jobs) > 1 else None
    try:
        futures: list[Future[_Fetched]] = [pool.submit(fetch) for *_, fetch in jobs]
        previous: _Stage | None = None
        for (datname, datid, shared_only, _), future in zip(jobs, futures, strict=True):
            fetched = future.result()
            rows = [row for row in fetched.rows if row[IS_SHARED_COLUMN]] if shared_only else fetched.rows
            paths = relation_paths(datid, rows, where)
            if sizer is not None:
                sizer.submit([p for p in paths if p is not None])
            stage = _Stage(datname, fetched, rows, paths)
            if previous is not None:
                visits.append(_finish(previous, where, sizer))
            previous = stage
        if previous is not None:
            visits.append(_finish(previous, where, sizer))
    finally:
        if sizer is not None:
            sizer.close()
        pool.shutdown(wait=True, cancel_futures=True)
    return visits


def _finish(stage: _Stage, where: RelationPaths, sizer: SizeReader | None) -> DatabaseVisit:
    resumed = time.monotonic()
    sizes = sizer.result() if sizer is not None else None  # every stage's paths went to the sizer
    files = relation_files(stage.datname, stage.rows, stage.paths, where, sizes)
    fetched = stage.fetched
    # Time spent on this database here, not the time it waited for the next one's query.
    seconds = time.monotonic() - resumed
    return DatabaseVisit(stage.datname, files, len(stage.rows), fetched.seconds, fetched.error, seconds,
                         fetched.own_io)


def as_view_rows(visits: list[DatabaseVisit]) -> list[dict[str, Any]]:
    """Per-database timing of the relation queries, kept in the snapshot for diagnosis."""
    return [
        {"datname": v.datname, "relations": v.rows, "files": len(v.files), "seconds": round(v.seconds, 4),
         "files_seconds": round(v.files_seconds, 4), "error": v.error}
        for v in visits
    ]
