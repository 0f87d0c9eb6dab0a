"""Look-ups for ``fleet show``: which instance a name means, and its rates per tablespace."""

from __future__ import annotations

import datetime as dt
from typing import Any

import psycopg

from advisor.errors import BadInput
from advisor.repo.connection import translate


def resolve_instance(conn: psycopg.Connection[Any], name: str) -> str:
    """The instance id for *name*: an instance id, a host, a database name or ``host/name``."""
    try:
        rows = conn.execute(
            "SELECT instance_id FROM advisor.instances WHERE instance_id = %(n)s OR host = %(n)s OR name = %(n)s "
            "OR host || '/' || name = %(n)s ORDER BY instance_id", {"n": name}).fetchall()
    except psycopg.Error as exc:
        raise translate(exc, "reading the repository") from None
    if not rows:
        raise BadInput(f"no instance {name!r} in the repository", hint="`advisor fleet report` lists them")
    if len(rows) > 1:
        raise BadInput(f"{name!r} matches {len(rows)} instances ({', '.join(r[0] for r in rows[:3])} ...)",
                       hint="give the instance id")
    return str(rows[0][0])


def tablespace_rates(conn: psycopg.Connection[Any], key: str, first: str, last: str) -> list[dict[str, Any]]:
    """Reads and writes per second by tablespace between two snapshots, from the per-file rows."""
    query = """
    SELECT tablespace, count(*) AS files,
           sum(b.reads - a.reads) / %(s)s AS read_iops,
           sum(coalesce(b.writes - a.writes, 0)) / %(s)s AS write_iops,
           sum(b.read_bytes - a.read_bytes) / %(s)s / 1048576.0 AS read_mib_s
    FROM advisor.snapshot_files b
    JOIN advisor.snapshot_files a USING (instance_id, file_id, tablespace)
    WHERE b.instance_id = %(id)s AND b.taken_at = %(last)s AND a.taken_at = %(first)s
    GROUP BY tablespace ORDER BY read_iops DESC, tablespace
    """
    seconds = (dt.datetime.fromisoformat(last) - dt.datetime.fromisoformat(first)).total_seconds() or 1.0
    try:
        rows = conn.execute(query, {"s": seconds, "id": key, "first": first, "last": last}).fetchall()
    except psycopg.Error as exc:
        raise translate(exc, "reading the repository") from None
    return [{"tablespace": t, "files": int(n), "read_iops": round(float(r), 3), "write_iops": round(float(w), 3),
             "read_mib_s": round(float(m), 3)} for t, n, r, w, m in rows]
