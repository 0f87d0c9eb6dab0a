"""Retention: forget what is older than ``--keep``, month partitions first.

A month that lies wholly before the cut-off is dropped as a table (instant, no vacuum, no
bloat); the month that straddles the cut-off loses only its older rows by DELETE. Interval
summaries and their hourly and daily rollups are partitioned the same way and go with
their months; a snapshot's file locations (stored once per layout) go with its last snapshot. Disk
profiles (few, small, not partitioned) are deleted row by row. Instances are kept: they are
a handful of rows and say which hosts once reported. Everything runs in one transaction, so
an interrupted prune changes nothing.

What will go is counted first and handed to the caller before anything is dropped (the CLI
prints it; ``--dry-run`` stops there); a role that may not remove it (a reader) is refused
before that, so nothing is announced that will not happen. A partition whose bounds cannot be read as times
(one made before document times were bounded, for year 10000 or BC) is skipped and named,
never a reason to fail: its older rows still go by DELETE.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from advisor.errors import BadInput, PrivilegeMissing
from advisor.repo.connection import translate
from advisor.repo.schema import PARTITIONED, check_version

_TIME_COLUMN = {"snapshots": "taken_at", "snapshot_files": "taken_at", "workloads": "ended_at",
                "reports": "generated_at", "disk_profiles": "measured_at", "interval_summaries": "ended_at",
                "summary_hourly": "bucket", "summary_daily": "bucket", "arrivals": "ended_at",
                "skipped_rows": "ended_at"}
DOCUMENT_TABLES = ("snapshots", "workloads", "reports", "disk_profiles")
"""Tables of whole documents, counted in the plan (a snapshot's per-file rows go with it)."""

_DURATION = re.compile(r"^\s*(\d+)\s*([a-z]+)\s*$")
_UNIT_S = {"min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "mo": 30 * 86400, "y": 365 * 86400}
MAX_DURATION = dt.timedelta(days=100 * 365)
"""Longer than any history worth keeping, and far from datetime's own limits."""


def parse_duration(text: str, option: str, *, minutes_m: bool = False) -> dt.timedelta:
    """``15min``, ``12h``, ``90d``, ``2w``, ``6mo`` (30 days), ``1y`` (365 days) as a timedelta.

    A bare ``m`` could be minutes or months, and one reading deletes months of history the
    other would keep: it is refused, except where only minutes make sense (*minutes_m*, the
    interval between samples). Anything else, zero, or more than 100 years is a one-line error.
    """
    units = {**_UNIT_S, "m": 60} if minutes_m else _UNIT_S
    match = _DURATION.match(text.lower())
    if match and match.group(2) == "m" and not minutes_m:
        raise BadInput(f"{option} {text!r}: 'm' could mean minutes or months; write {match.group(1)}min for "
                       f"minutes or {match.group(1)}mo for months")
    if not match or match.group(2) not in units or int(match.group(1)) <= 0:
        raise BadInput(f"{option} {text!r}: give a positive duration such as 15min, 12h, 7d, 2w, 6mo or 1y")
    seconds = int(match.group(1)) * units[match.group(2)]
    if seconds > MAX_DURATION.total_seconds():
        raise BadInput(f"{option} {text!r}: at most 100 years ({MAX_DURATION.days}d)")
    return dt.timedelta(seconds=seconds)


@dataclass(frozen=True)
class PrunePlan:
    """What a prune removes, counted before anything is removed."""

    cutoff: dt.datetime
    drop: tuple[str, ...]  # partitions wholly older than the cut-off
    documents: dict[str, int]  # per document table: rows older than the cut-off
    oldest: dt.datetime | None  # the oldest document time removed
    newest: dt.datetime | None  # the newest document time removed
    skipped: tuple[tuple[str, str], ...]  # (partition, bound) whose bound is not a readable time

    @property
    def removes(self) -> bool:
        """Whether anything at all goes."""
        return bool(self.drop) or any(self.documents.values())


@dataclass(frozen=True)
class PruneResult:
    """What a prune removed (nothing when it was a dry run)."""

    plan: PrunePlan
    dropped: tuple[str, ...]  # partitions dropped whole
    deleted_rows: int  # rows deleted from partitions that straddle the cut-off
    dry_run: bool = False

    @property
    def cutoff(self) -> dt.datetime:
        """Everything at or after this time is kept."""
        return self.plan.cutoff


def _partitions(conn: psycopg.Connection[Any], parent: str) -> list[tuple[str, str]]:
    """(partition name, bound expression) of *parent*'s partitions."""
    rows = conn.execute(
        "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i "
        "JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent "
        "JOIN pg_namespace n ON n.oid = p.relnamespace WHERE n.nspname = 'advisor' AND p.relname = %(p)s "
        "ORDER BY c.relname", {"p": parent}).fetchall()
    return [(str(name), str(bound or "")) for name, bound in rows]


def _upper(bound: str) -> dt.datetime | None:
    """The exclusive upper bound of a month partition, or None when it is not a time Python reads."""
    match = re.search(r"TO \('([^']+)'\)", bound)
    if not match:
        return None
    try:
        upper = dt.datetime.fromisoformat(match.group(1))
    except ValueError:  # year 10000, BC, infinity
        return None
    return upper if upper.tzinfo else upper.replace(tzinfo=dt.UTC)


def plan_prune(conn: psycopg.Connection[Any], cutoff: dt.datetime) -> PrunePlan:
    """Count what a prune to *cutoff* removes (inside the caller's transaction, TimeZone UTC)."""
    drop: list[str] = []
    skipped: list[tuple[str, str]] = []
    for parent in PARTITIONED:
        for name, bound in _partitions(conn, parent):
            upper = _upper(bound)
            if upper is None:
                skipped.append((name, bound))
            elif upper <= cutoff:
                drop.append(name)
    documents: dict[str, int] = {}
    times: list[dt.datetime] = []
    for table in DOCUMENT_TABLES:
        column = sql.Identifier(_TIME_COLUMN[table])
        row = conn.execute(sql.SQL("SELECT count(*), min({c}), max({c}) FROM advisor.{t} WHERE {c} < %(c)s").format(
            c=column, t=sql.Identifier(table)), {"c": cutoff}).fetchone()
        documents[table] = int(row[0]) if row else 0
        if row and row[0]:
            times += [row[1], row[2]]
    return PrunePlan(cutoff, tuple(drop), documents, min(times, default=None), max(times, default=None),
                     tuple(skipped))


_CLEARED = (*PARTITIONED, "disk_profiles", "arrivals", "skipped_rows", "layouts")
"""Every table a prune deletes rows from."""
PRUNE_HINT = "prune runs as the repository's owner, the role that ran `advisor repo init`"


def _check_allowed(conn: psycopg.Connection[Any], plan: PrunePlan) -> None:
    """Refuse, before anything is announced or removed, a role that may not drop or delete what *plan* removes."""
    row = conn.execute(
        "SELECT current_user, (SELECT array_agg(t ORDER BY t) FROM unnest(%(tables)s::text[]) t "
        "WHERE NOT has_table_privilege('advisor.' || t, 'DELETE')), (SELECT array_agg(c.relname::text ORDER BY "
        "c.relname) FROM pg_class c WHERE c.relnamespace = 'advisor'::regnamespace AND c.relname = ANY(%(drop)s) "
        "AND NOT pg_has_role(c.relowner, 'USAGE'))", {"tables": list(_CLEARED), "drop": list(plan.drop)}).fetchone()
    if row is None:
        return
    user, undeletable, undroppable = row
    missing = []
    if undeletable:
        missing.append(f"DELETE from advisor.{undeletable[0]}" + (f" and {len(undeletable) - 1} more tables"
                                                               if len(undeletable) > 1 else ""))
    if undroppable:
        missing.append(f"DROP of advisor.{undroppable[0]} (not its owner)" + (
            f" and {len(undroppable) - 1} more partitions" if len(undroppable) > 1 else ""))
    if missing:
        raise PrivilegeMissing(f"pruning the repository: role {user} may not {'; nor '.join(missing)}",
                               hint=PRUNE_HINT)


def prune(conn: psycopg.Connection[Any], keep: dt.timedelta, now: dt.datetime | None = None, *,
          dry_run: bool = False, announce: Callable[[PrunePlan], None] | None = None) -> PruneResult:
    """Drop months older than *keep* and delete older rows in the month at the edge.

    *announce* receives the plan before anything is removed; with *dry_run* nothing is.
    """
    cutoff = (now or dt.datetime.now(dt.UTC)) - keep
    dropped: list[str] = []
    deleted = 0
    try:
        with conn.transaction():
            check_version(conn)
            conn.execute("SET LOCAL TimeZone = 'UTC'")
            plan = plan_prune(conn, cutoff)
            if not dry_run and plan.removes:
                _check_allowed(conn, plan)
            if announce is not None:
                announce(plan)
            if dry_run or not plan.removes:
                return PruneResult(plan, (), 0, dry_run)
            for name in plan.drop:
                conn.execute(sql.SQL("DROP TABLE advisor.{}").format(sql.Identifier(name)))
                dropped.append(name)
            for table in _CLEARED[:-1]:  # layouts: below, by what is left
                cursor = conn.execute(sql.SQL("DELETE FROM advisor.{} WHERE {} < %(c)s").format(
                    sql.Identifier(table), sql.Identifier(_TIME_COLUMN[table])), {"c": cutoff})
                deleted += max(cursor.rowcount, 0)
            # file locations are stored once per instance and layout: gone with their last snapshot
            cursor = conn.execute("DELETE FROM advisor.layouts l WHERE NOT EXISTS (SELECT FROM advisor.snapshots s "
                                  "WHERE s.instance_id = l.instance_id AND s.layout_digest = l.digest)")
            deleted += max(cursor.rowcount, 0)
    except psycopg.Error as exc:
        raise translate(exc, "pruning the repository", hint=PRUNE_HINT) from None
    return PruneResult(plan, tuple(dropped), deleted)
