"""Per-relation buffer misses from every database, one connection per database.

Per-relation statistics functions only see the current database, so the collector visits
each database that allows connections. Visits run in parallel (a few connections at once)
because a cluster with many databases and tens of thousands of relations must still be
sampled in about a second. Shared catalogs are counted once, by the main session's database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from advisor.errors import AdvisorError, PrivilegeMissing
from collectors.postgres.rows import DatabaseRow, RelationRow
from collectors.postgres.session import PgSession, open_connection, run_query

MAX_PARALLEL = 4


@dataclass(frozen=True, slots=True)
class DatabaseVisit:
    """Relations of one database, or why they could not be read."""

    datname: str
    relations: tuple[RelationRow, ...]
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


def _visit(session: PgSession, datname: str, count_shared: bool, own: bool) -> DatabaseVisit:
    start = time.monotonic()
    try:
        if own:
            rows = run_query(session.conn, session.major, "relations", {"count_shared": count_shared})
        else:
            conn = open_connection(session.dsn, session.options, dbname=datname)
            try:
                rows = run_query(conn, session.major, "relations", {"count_shared": count_shared})
            finally:
                conn.close()
    except PrivilegeMissing:
        raise
    except AdvisorError as exc:
        return DatabaseVisit(datname, (), time.monotonic() - start, exc.one_line())
    return DatabaseVisit(datname, tuple(rows), time.monotonic() - start)


def read_all(session: PgSession, databases: list[DatabaseRow], current_db: str) -> list[DatabaseVisit]:
    """Relations of every database in *databases*; the current one also returns pg_global."""
    jobs: list[Callable[[], DatabaseVisit]] = []
    for db in databases:
        own = db.datname == current_db

        def job(name: str = db.datname, own: bool = own) -> DatabaseVisit:
            return _visit(session, name, count_shared=own, own=own)

        jobs.append(job)
    if not any(db.datname == current_db for db in databases):
        # Our own database is not in the list (e.g. a template): still count pg_global once.
        jobs.append(lambda: _shared_only(session, current_db))
    if len(jobs) <= 1:
        return [job() for job in jobs]
    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(jobs))) as pool:
        futures = [pool.submit(job) for job in jobs]
        return [future.result() for future in futures]


def _shared_only(session: PgSession, current_db: str) -> DatabaseVisit:
    visit = _visit(session, current_db, count_shared=True, own=True)
    shared = tuple(r for r in visit.relations if r.is_shared)
    return DatabaseVisit(current_db, shared, visit.seconds, visit.error)


def as_view_rows(visits: list[DatabaseVisit]) -> list[dict[str, Any]]:
    """Per-database timing of the relation queries, kept in the snapshot for diagnosis."""
    return [
        {"datname": v.datname, "relations": len(v.relations), "seconds": round(v.seconds, 4), "error": v.error}
        for v in visits
    ]
