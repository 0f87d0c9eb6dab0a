"""Write one document into the repository: one transaction, idempotent, insert-only.

Each document's natural key decides whether it is already there: a snapshot is its
instance and ``taken_at``, a workload its instance, interval and source (``+sizes`` when it
carries merged sizes), a disk profile or a report its content digest. ``INSERT ... ON
CONFLICT DO NOTHING`` needs only the INSERT privilege (no SELECT, no UPDATE), so the
collectors' role can push and never read or change
history; the row count says whether the document was new. A snapshot's per-file rows are
written with COPY only when its snapshot row was new, so a document pushed twice is one
row and its files are never doubled. Any failure rolls the whole document back.
"""

from __future__ import annotations

from typing import Any

import psycopg

from advisor.model import DiskProfile, Report, Snapshot, Workload
from advisor.repo.connection import translate
from advisor.repo.documents import Pushable, instance_id
from advisor.repo.schema import check_version

_FILE_COLUMNS = (
    "instance_id, taken_at, file_id, kind, tablespace, container, path, size_bytes, reads, writes, "
    "read_bytes, write_bytes, read_time_ms, write_time_ms"
)


def push(conn: psycopg.Connection[Any], item: Pushable) -> bool:
    """Store *item* in one transaction; True if it was new, False if it was already there."""
    try:
        with conn.transaction():
            return _store(conn, item)
    except psycopg.Error as exc:
        raise translate(exc, f"pushing {item.source}", pushing=True) from None


def checked_connection(conn: psycopg.Connection[Any]) -> psycopg.Connection[Any]:
    """Check the schema version once per session (a newer repository is refused, exit 7)."""
    try:
        with conn.transaction():
            check_version(conn)
    except psycopg.Error as exc:
        raise translate(exc, "reading the repository's schema version") from None
    return conn


def _store(conn: psycopg.Connection[Any], item: Pushable) -> bool:
    document = item.document
    text = item.raw.decode("utf-8")
    if isinstance(document, Snapshot):
        return _snapshot(conn, document, text, item.digest)
    if isinstance(document, Workload):
        return _workload(conn, document, text, item.digest)
    if isinstance(document, DiskProfile):
        return _insert(conn, "INSERT INTO advisor.disk_profiles (digest, measured_at, target, device, host, document) "
                             "VALUES (%(digest)s, %(at)s, %(target)s, %(device)s, %(host)s, %(doc)s::jsonb) "
                             "ON CONFLICT DO NOTHING",
                       {"digest": item.digest, "at": document.measured_at, "target": document.target,
                        "device": document.device, "host": document.machine.get("hostname"), "doc": text})
    return _report(conn, document, text, item.digest)


def _insert(conn: psycopg.Connection[Any], query: Any, params: dict[str, Any]) -> bool:
    cursor = conn.execute(query, params)
    return cursor.rowcount == 1


def _month(conn: psycopg.Connection[Any], table: str, at: str) -> None:
    conn.execute("SELECT advisor.ensure_month(%(t)s, %(at)s)", {"t": table, "at": at})


def _instance(conn: psycopg.Connection[Any], document: Snapshot | Workload) -> str:
    server = document.server
    key = instance_id(server)
    conn.execute(
        "INSERT INTO advisor.instances (instance_id, dbms, identity, host, name) "
        "VALUES (%(id)s, %(dbms)s, %(identity)s, %(host)s, %(name)s) ON CONFLICT DO NOTHING",
        {"id": key, "dbms": server.dbms, "identity": server.identity, "host": server.host, "name": server.name},
    )
    return key


def _snapshot(conn: psycopg.Connection[Any], snap: Snapshot, text: str, digest: str) -> bool:
    _month(conn, "snapshots", snap.taken_at)
    _month(conn, "snapshot_files", snap.taken_at)
    key = _instance(conn, snap)
    files = snap.files
    new = _insert(
        conn,
        "INSERT INTO advisor.snapshots (instance_id, taken_at, server_started_at, version, format_version, "
        "tool_version, files, reads, writes, read_bytes, write_bytes, io_wait_share, digest, document) "
        "VALUES (%(id)s, %(at)s, %(started)s, %(version)s, %(fv)s, %(tv)s, %(files)s, %(reads)s, %(writes)s, "
        "%(rb)s, %(wb)s, %(wait)s, %(digest)s, %(doc)s::jsonb) ON CONFLICT DO NOTHING",
        {"id": key, "at": snap.taken_at, "started": snap.server.started_at, "version": snap.server.version,
         "fv": snap.format_version, "tv": snap.tool_version, "files": len(files),
         "reads": sum(f.reads for f in files), "writes": sum(f.writes or 0 for f in files),
         "rb": sum(f.read_bytes for f in files), "wb": sum(f.write_bytes or 0 for f in files),
         "wait": snap.wait.io_wait_share, "digest": digest, "doc": text},
    )
    if not new:
        return False
    with conn.cursor().copy(f"COPY advisor.snapshot_files ({_FILE_COLUMNS}) FROM STDIN") as copy:
        for f in files:
            copy.write_row((key, snap.taken_at, f.file_id, f.kind, f.tablespace, f.container, f.path, f.size_bytes,
                            f.reads, f.writes, f.read_bytes, f.write_bytes, f.read_time_ms, f.write_time_ms))
    return True


def _workload(conn: psycopg.Connection[Any], work: Workload, text: str, digest: str) -> bool:
    _month(conn, "workloads", work.ended_at)
    key = _instance(conn, work)
    return _insert(
        conn,
        "INSERT INTO advisor.workloads (instance_id, started_at, ended_at, source, interval_s, digest, document) "
        "VALUES (%(id)s, %(start)s, %(end)s, %(source)s, %(interval)s, %(digest)s, %(doc)s::jsonb) "
        "ON CONFLICT DO NOTHING",
        {"id": key, "start": work.started_at, "end": work.ended_at, "source": stored_source(work),
         "interval": work.interval_s, "digest": digest, "doc": text},
    )


def stored_source(work: Workload) -> str:
    """The ``source`` key of a workload row: an import pushed again with sizes is a row of its own.

    The key is (instance, interval, source) and the collectors' role cannot update, so the
    sizes a DBA merges later (``collect --from-report --sizes``) need a key of their own; the
    fleet ranking takes that row (:mod:`advisor.repo.fleet_workloads`).
    """
    return (work.source or "snapshots") + ("+sizes" if work.sizes is not None else "")


def _report(conn: psycopg.Connection[Any], report: Report, text: str, digest: str) -> bool:
    _month(conn, "reports", report.generated_at)
    server = report.server
    return _insert(
        conn,
        "INSERT INTO advisor.reports (generated_at, digest, dbms, host, name, predicted_gain, document) "
        "VALUES (%(at)s, %(digest)s, %(dbms)s, %(host)s, %(name)s, %(gain)s, %(doc)s::jsonb) ON CONFLICT DO NOTHING",
        {"at": report.generated_at, "digest": digest, "dbms": _text(server, "dbms"), "host": _text(server, "host"),
         "name": _text(server, "name"), "gain": report.plan.predicted_gain if report.plan else None, "doc": text},
    )


def _text(server: Any, name: str) -> str:
    """A server field of a report, whether the report's server is a mapping or a typed record."""
    value = server.get(name) if isinstance(server, dict) else getattr(server, name, None)
    return str(value or "")
