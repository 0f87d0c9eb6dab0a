"""Retention: forget what is older than ``--keep``, month partitions first.

A month that lies wholly before the cut-off is dropped as a table (instant, no vacuum, no
bloat); the month that straddles the cut-off loses only its older rows by DELETE. Disk
profiles (few, small, not partitioned) are deleted row by row. Instances are kept: they are
a handful of rows and say which hosts once reported. Everything runs in one transaction, so
an interrupted prune changes nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from advisor.errors import BadInput
from advisor.repo.connection import translate
from advisor.repo.schema import PARTITIONED, check_version

_TIME_COLUMN = {"snapshots": "taken_at", "snapshot_files": "taken_at", "workloads": "ended_at",
                "reports": "generated_at"}
_DURATION = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w)\s*$")
_UNIT_S = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_duration(text: str, option: str) -> dt.timedelta:
    """``90d``, ``12h``, ``15m``, ``2w`` as a timedelta; anything else is a one-line error."""
    match = _DURATION.match(text)
    if not match or int(match.group(1)) <= 0:
        raise BadInput(f"{option} {text!r}: give a positive duration such as 15m, 12h, 7d or 2w")
    return dt.timedelta(seconds=int(match.group(1)) * _UNIT_S[match.group(2)])


@dataclass(frozen=True)
class PruneResult:
    """What a prune removed."""

    cutoff: dt.datetime
    dropped: tuple[str, ...]  # partitions dropped whole
    deleted_rows: int  # rows deleted from partitions that straddle the cut-off


def _partitions(conn: psycopg.Connection[Any], parent: str) -> list[tuple[str, dt.datetime]]:
    """(partition name, exclusive upper bound) of *parent*'s month partitions."""
    rows = conn.execute(
        "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i "
        "JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent "
        "JOIN pg_namespace n ON n.oid = p.relnamespace WHERE n.nspname = 'advisor' AND p.relname = %(p)s",
        {"p": parent}).fetchall()
    out = []
    for name, bound in rows:
        upper = re.search(r"TO \('([^']+)'\)", bound or "")
        if upper:
            out.append((str(name), dt.datetime.fromisoformat(upper.group(1))))
    return out


def prune(conn: psycopg.Connection[Any], keep: dt.timedelta, now: dt.datetime | None = None) -> PruneResult:
    """Drop months older than *keep* and delete older rows in the month at the edge."""
    cutoff = (now or dt.datetime.now(dt.UTC)) - keep
    dropped: list[str] = []
    deleted = 0
    try:
        with conn.transaction():
            check_version(conn)
            conn.execute("SET LOCAL TimeZone = 'UTC'")
            for parent in PARTITIONED:
                for name, upper in _partitions(conn, parent):
                    if upper.tzinfo is None:
                        upper = upper.replace(tzinfo=dt.UTC)
                    if upper <= cutoff:
                        conn.execute(sql.SQL("DROP TABLE advisor.{}").format(sql.Identifier(name)))
                        dropped.append(name)
                column = sql.Identifier(_TIME_COLUMN[parent])
                cursor = conn.execute(sql.SQL("DELETE FROM advisor.{} WHERE {} < %(c)s").format(
                    sql.Identifier(parent), column), {"c": cutoff})
                deleted += max(cursor.rowcount, 0)
            cursor = conn.execute("DELETE FROM advisor.disk_profiles WHERE measured_at < %(c)s", {"c": cutoff})
            deleted += max(cursor.rowcount, 0)
    except psycopg.Error as exc:
        raise translate(exc, "pruning the repository") from None
    return PruneResult(cutoff, tuple(sorted(dropped)), deleted)
