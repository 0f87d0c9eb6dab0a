"""Write documents into the repository: many per transaction, idempotent, corrections replace.

Each document's natural key decides whether it is already there: a snapshot is its
instance and ``taken_at``, a workload its instance, interval and source (``+sizes`` when it
carries merged sizes), a disk profile or a report its content digest. ``INSERT ... ON
CONFLICT DO NOTHING`` needs only the INSERT privilege (no SELECT, no UPDATE), so the
collectors' role can push and never read history; the rows it returns say which
documents were new. A different document under a stored snapshot's or workload's key (its
digest differs: a correction) replaces the stored one and its summaries, through the two
SECURITY DEFINER functions of :mod:`advisor.repo.migration4`; the same document is a no-op.
Snapshots of a batch are sent with one COPY into a temporary table and
inserted from there in one statement (:func:`push_many`); a snapshot is stored packed
(:mod:`advisor.repo.packed`), its file locations once per instance and content. Every new
snapshot or workload also queues an arrival (``advisor.arrivals``): the summariser
(:mod:`advisor.fleet.summaries`) advises the intervals it touches. Any failure rolls the
whole batch back, so a batch is all there or not at all, and the spool resends it whole.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, Literal

import psycopg

from advisor.model import DiskProfile, Report, ServerInfo, Snapshot, Workload
from advisor.repo.connection import translate
from advisor.repo.documents import Pushable, instance_id
from advisor.repo.packed import pack
from advisor.repo.schema import check_version

_STAGED = ("instance_id, taken_at, server_started_at, version, format_version, tool_version, files, reads, writes, "
           "read_bytes, write_bytes, io_wait_share, digest, document, packed, layout_digest")


_STAGING = """
CREATE TEMP TABLE IF NOT EXISTS advisor_staged_snapshots (
    instance_id text, taken_at timestamptz, server_started_at text, version text, format_version int,
    tool_version text, files int, reads bigint, writes bigint, read_bytes numeric, write_bytes numeric,
    io_wait_share double precision, digest text, document jsonb, packed bytea, layout_digest text
) ON COMMIT DELETE ROWS
"""
"""Where a batch's snapshots are copied first (spelled out: ``LIKE`` would need SELECT on the table)."""


Outcome = Literal["new", "present", "replaced"]
"""What a push did with a document: stored it, found the same one there, or replaced a different one."""


def push(conn: psycopg.Connection[Any], item: Pushable, *, keep_documents: bool = False) -> Outcome:
    """Store *item* in one transaction; what became of it."""
    return push_many(conn, [item], keep_documents=keep_documents)[0]


def push_many(conn: psycopg.Connection[Any], items: Sequence[Pushable], *,
              keep_documents: bool = False) -> list[Outcome]:
    """Store *items* in one transaction; what became of each. Which documents replaced a stored one is
    exact; in a batch of snapshots the count of new ones is exact, not which ones (the collectors'
    role cannot read rows back): the first ones are counted new.

    With *keep_documents* each snapshot's document is kept whole as jsonb beside its packed form.
    """
    if not items:
        return []
    what = items[0].source if len(items) == 1 else f"{len(items)} documents ({items[0].source} ...)"
    try:
        with conn.transaction():
            snapshots = [(n, item) for n, item in enumerate(items) if isinstance(item.document, Snapshot)]
            done = dict(_snapshots(conn, snapshots, keep_documents))
            for n, item in enumerate(items):
                if n not in done:
                    done[n] = _store(conn, item)
            return [done[n] for n in range(len(items))]
    except psycopg.Error as exc:
        raise translate(exc, f"pushing {what}", pushing=True) from None


def checked_connection(conn: psycopg.Connection[Any]) -> psycopg.Connection[Any]:
    """Check the schema version once per session (a newer repository is refused, exit 7)."""
    try:
        with conn.transaction():
            check_version(conn)
    except psycopg.Error as exc:
        raise translate(exc, "reading the repository's schema version") from None
    return conn


def _store(conn: psycopg.Connection[Any], item: Pushable) -> Outcome:
    document = item.document
    text = item.raw.decode("utf-8")
    if isinstance(document, Workload):
        return _workload(conn, document, text, item.digest)
    if isinstance(document, DiskProfile):
        return _insert(conn, "INSERT INTO advisor.disk_profiles (digest, measured_at, target, device, host, document) "
                             "VALUES (%(digest)s, %(at)s, %(target)s, %(device)s, %(host)s, %(doc)s::jsonb) "
                             "ON CONFLICT DO NOTHING",
                       {"digest": item.digest, "at": document.measured_at, "target": document.target,
                        "device": document.device, "host": document.machine.get("hostname"), "doc": text})
    assert isinstance(document, Report), "snapshots are stored by _snapshots"
    return _report(conn, document, text, item.digest)


def _insert(conn: psycopg.Connection[Any], query: Any, params: dict[str, Any]) -> Outcome:
    cursor = conn.execute(query, params)
    return "new" if cursor.rowcount == 1 else "present"


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


def _snapshots(conn: psycopg.Connection[Any], items: list[tuple[int, Pushable]],
               keep_documents: bool) -> list[tuple[int, Outcome]]:
    """COPY the snapshots of a batch into a temporary table, replace the stored ones they correct,
    insert the new ones, queue their arrivals."""
    if not items:
        return []
    first: dict[tuple[str, str], int] = {}
    rows: list[tuple[Any, ...]] = []
    row_items: list[int] = []  # the item each row is
    layouts: dict[tuple[str, str], tuple[bytes, str]] = {}
    for n, item in items:
        snap = item.document
        assert isinstance(snap, Snapshot)
        key = instance_id(snap.server)
        if (key, snap.taken_at) in first:
            continue  # the same snapshot twice in one batch: the first one stands
        first[(key, snap.taken_at)] = n
        row_items.append(n)
        packed = pack(snap)
        if packed.locations is not None and packed.layout_digest is not None:
            layouts.setdefault((key, packed.layout_digest), (packed.locations, snap.taken_at))
        files = snap.files
        rows.append((key, snap.taken_at, snap.server.started_at, snap.server.version, snap.format_version,
                     snap.tool_version, len(files), sum(f.reads for f in files), sum(f.writes or 0 for f in files),
                     sum(f.read_bytes for f in files), sum(f.write_bytes or 0 for f in files),
                     snap.wait.io_wait_share, item.digest,
                     item.raw.decode("utf-8") if keep_documents else None, packed.core, packed.layout_digest))
    for month in sorted({_instant(r[1]).astimezone(dt.UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
                         for r in rows}):
        _month(conn, "snapshots", month.isoformat())
    _instances(conn, [item.document.server for _n, item in items if isinstance(item.document, Snapshot)])
    if layouts:
        conn.cursor().executemany(
            "INSERT INTO advisor.layouts (instance_id, digest, locations, first_at) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
            [(k, d, loc, at) for (k, d), (loc, at) in layouts.items()])
    replaced = {row_items[int(ordinal) - 1] for (ordinal,) in conn.execute(
        "SELECT advisor.replace_changed_snapshots(%(ids)s::text[], %(taken)s::timestamptz[], %(digests)s::text[])",
        {"ids": [r[0] for r in rows], "taken": [r[1] for r in rows], "digests": [r[12] for r in rows]}).fetchall()}
    conn.execute(_STAGING)
    with conn.cursor().copy(f"COPY advisor_staged_snapshots ({_STAGED}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    stored = conn.execute(f"INSERT INTO advisor.snapshots ({_STAGED}) SELECT {_STAGED} FROM advisor_staged_snapshots "
                          "ON CONFLICT DO NOTHING").rowcount
    # the collectors' role may not read back what it inserted: the count says how many were new,
    # and the first ones of the batch are counted as the new ones (a trigger queued their arrivals);
    # a replaced key is stored again by this INSERT, and the function said which ones those were
    fresh = stored - len(replaced)
    outcomes: list[tuple[int, Outcome]] = []
    for n, _item in items:
        if n in replaced:
            outcomes.append((n, "replaced"))
        else:
            outcomes.append((n, "new" if fresh > 0 else "present"))
            fresh -= 1
    return outcomes


def _instant(at: str) -> dt.datetime:
    """A document time as the timestamptz the repository returns (a time without a zone is UTC)."""
    value = dt.datetime.fromisoformat(at)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _instances(conn: psycopg.Connection[Any], servers: list[ServerInfo]) -> None:
    seen = {instance_id(s): s for s in servers}
    conn.execute(
        "INSERT INTO advisor.instances (instance_id, dbms, identity, host, name) "
        "SELECT * FROM unnest(%(id)s::text[], %(dbms)s::text[], %(identity)s::text[], %(host)s::text[], "
        "%(name)s::text[]) ON CONFLICT DO NOTHING",
        {"id": list(seen), "dbms": [s.dbms for s in seen.values()], "identity": [s.identity for s in seen.values()],
         "host": [s.host for s in seen.values()], "name": [s.name for s in seen.values()]})


def _workload(conn: psycopg.Connection[Any], work: Workload, text: str, digest: str) -> Outcome:
    _month(conn, "workloads", work.ended_at)
    key = _instance(conn, work)
    row = conn.execute("SELECT advisor.replace_changed_workload(%(id)s, %(start)s, %(end)s, %(source)s, %(digest)s)",
                       {"id": key, "start": work.started_at, "end": work.ended_at, "source": stored_source(work),
                        "digest": digest}).fetchone()
    outcome = _insert(
        conn,
        "INSERT INTO advisor.workloads (instance_id, started_at, ended_at, source, interval_s, digest, document) "
        "VALUES (%(id)s, %(start)s, %(end)s, %(source)s, %(interval)s, %(digest)s, %(doc)s::jsonb) "
        "ON CONFLICT DO NOTHING",
        {"id": key, "start": work.started_at, "end": work.ended_at, "source": stored_source(work),
         "interval": work.interval_s, "digest": digest, "doc": text},
    )
    return "replaced" if row and row[0] else outcome


def stored_source(work: Workload) -> str:
    """The ``source`` key of a workload row: an import pushed again with sizes is a row of its own.

    The key is (instance, interval, source) and the collectors' role cannot update, so the
    sizes a DBA merges later (``collect --from-report --sizes``) need a key of their own; the
    fleet ranking takes that row (:mod:`advisor.fleet.workloads`).
    """
    return (work.source or "snapshots") + ("+sizes" if work.sizes is not None else "")


def _report(conn: psycopg.Connection[Any], report: Report, text: str, digest: str) -> Outcome:
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
