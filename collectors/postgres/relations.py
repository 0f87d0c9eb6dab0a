"""Per-relation buffer misses from every database, one connection per database.

Per-relation statistics functions only see the current database, so the collector visits
each database that allows connections. Visits run in parallel (a few connections at once,
rows turned into FileIO inside each worker) because a cluster with many databases and tens
of thousands of relations must still be sampled in about a second. Shared catalogs are
counted once, by the main session's database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from advisor.errors import AdvisorError, PrivilegeMissing
from advisor.model import FileIO
from collectors.postgres.files import RelationPaths, relation_files
from collectors.postgres.rows import DatabaseRow
from collectors.postgres.session import PgSession, open_connection, run_tuples

MAX_PARALLEL = 2
"""Connections at once: more only adds contention on small hosts (benchmarks/collect_bench.py)."""


@dataclass(frozen=True, slots=True)
class DatabaseVisit:
    """Relation files of one database, or why they could not be read."""

    datname: str
    files: list[FileIO]
    rows: int
    seconds: float
    error: str | None = None


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


def _visit(session: PgSession, datname: str, where: RelationPaths, count_shared: bool, own: bool) -> DatabaseVisit:
    start = time.monotonic()
    params = {"count_shared": count_shared}
    try:
        if own:
            rows = run_tuples(session.conn, session.major, "relations", params)
        else:
            conn = open_connection(session.dsn, session.options, dbname=datname)
            try:
                rows = run_tuples(conn, session.major, "relations", params)
            finally:
                conn.close()
    except PrivilegeMissing:
        raise
    except AdvisorError as exc:
        return DatabaseVisit(datname, [], 0, time.monotonic() - start, exc.one_line())
    files = relation_files(datname, rows, where)
    return DatabaseVisit(datname, files, len(rows), time.monotonic() - start)


def read_all(
    session: PgSession, databases: list[DatabaseRow], current_db: str, where: RelationPaths
) -> list[DatabaseVisit]:
    """Relation files of every database in *databases*; the current one also returns pg_global."""
    jobs: list[Callable[[], DatabaseVisit]] = []
    for db in databases:
        own = db.datname == current_db

        def job(name: str = db.datname, own: bool = own) -> DatabaseVisit:
            return _visit(session, name, where, count_shared=own, own=own)

        jobs.append(job)
    if not any(db.datname == current_db for db in databases):
        # Our own database is not in the list: still count pg_global once, from it.
        jobs.append(lambda: _shared_only(session, current_db, where))
    if len(jobs) <= 1 or MAX_PARALLEL <= 1:
        return [job() for job in jobs]
    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(jobs))) as pool:
        futures = [pool.submit(job) for job in jobs]
        return [future.result() for future in futures]


def _shared_only(session: PgSession, current_db: str, where: RelationPaths) -> DatabaseVisit:
    visit = _visit(session, current_db, where, count_shared=True, own=True)
    shared = [f for f in visit.files if f.container == "global"]
    return DatabaseVisit(current_db, shared, len(shared), visit.seconds, visit.error)


def as_view_rows(visits: list[DatabaseVisit]) -> list[dict[str, Any]]:
    """Per-database timing of the relation queries, kept in the snapshot for diagnosis."""
    return [
        {"datname": v.datname, "relations": v.rows, "files": len(v.files), "seconds": round(v.seconds, 4),
         "error": v.error}
        for v in visits
    ]
