"""Look-ups for ``fleet show``: which instance a name means."""

from __future__ import annotations

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
