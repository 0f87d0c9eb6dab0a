"""The fleet repository's schema: versioned migrations applied in order, each in one transaction.

The repository is an ordinary PostgreSQL database (pgwatch and pg_profile keep their history
the same way), so the DBA's backups, TLS, roles and monitoring apply to it unchanged. Every
object lives in the schema ``advisor``; ``advisor.schema_version`` records which migrations
ran. A tool meets three cases: the repository is older (``repo init`` migrates it), equal
(work), or newer than the tool (refused with exit 7: an old tool must not write rows a newer
schema would misread).

Time series (snapshots, their per-file rows, workloads, reports) are partitioned by month
with native range partitioning, so retention drops whole partitions instead of deleting
millions of rows. Collectors may not create tables, so partitions are created on demand by
``advisor.ensure_month``, a SECURITY DEFINER function with a fixed search_path: the only
DDL a collector can cause, and only of the shape it allows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, LiteralString

from psycopg import Connection

from advisor.errors import BadInput, Unsupported
from advisor.repo.migration3 import V3 as _V3
from advisor.repo.migration4 import V4 as _V4

SCHEMA = "advisor"
COLLECTOR_ROLE = "advisor_collector"
READER_ROLE = "advisor_reader"
PARTITIONED = ("snapshots", "snapshot_files", "workloads", "reports", "interval_summaries", "summary_hourly",
               "summary_daily")
"""Tables partitioned by month (the key is the document's own time)."""


@dataclass(frozen=True)
class Migration:
    """One step of the schema: its number, what it does, and the SQL."""

    version: int
    description: str
    statements: LiteralString


_V1: LiteralString = """
CREATE SCHEMA IF NOT EXISTS advisor;
REVOKE ALL ON SCHEMA advisor FROM PUBLIC;
CREATE TABLE advisor.schema_version (
    version int PRIMARY KEY,
    description text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE advisor.instances (
    instance_id text PRIMARY KEY,          -- dbms:identity:name, stable across restarts
    dbms text NOT NULL,
    identity text NOT NULL,                -- system_identifier or DBID
    host text NOT NULL,
    name text NOT NULL,
    first_pushed_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE advisor.snapshots (
    instance_id text NOT NULL,
    taken_at timestamptz NOT NULL,
    server_started_at text NOT NULL,       -- a change means a restart: counters restart at zero
    version text NOT NULL,
    format_version int NOT NULL,
    tool_version text NOT NULL,
    files int NOT NULL,
    reads bigint NOT NULL,                 -- totals over the files, for the busiest-window query
    writes bigint NOT NULL,
    read_bytes numeric NOT NULL,
    write_bytes numeric NOT NULL,
    io_wait_share double precision,
    digest text NOT NULL,
    pushed_at timestamptz NOT NULL DEFAULT now(),
    document jsonb NOT NULL,
    PRIMARY KEY (instance_id, taken_at)
) PARTITION BY RANGE (taken_at);
CREATE TABLE advisor.snapshot_files (
    instance_id text NOT NULL,
    taken_at timestamptz NOT NULL,
    file_id text NOT NULL,
    kind text NOT NULL,
    tablespace text NOT NULL,
    container text NOT NULL,
    path text NOT NULL,
    size_bytes bigint NOT NULL,
    reads bigint NOT NULL,
    writes bigint,
    read_bytes bigint NOT NULL,
    write_bytes bigint,
    read_time_ms double precision,
    write_time_ms double precision,
    PRIMARY KEY (instance_id, taken_at, file_id)
) PARTITION BY RANGE (taken_at);
CREATE TABLE advisor.workloads (
    instance_id text NOT NULL,
    started_at timestamptz NOT NULL,
    ended_at timestamptz NOT NULL,
    source text NOT NULL,
    interval_s double precision NOT NULL,
    digest text NOT NULL,
    pushed_at timestamptz NOT NULL DEFAULT now(),
    document jsonb NOT NULL,
    PRIMARY KEY (instance_id, ended_at, started_at, source)
) PARTITION BY RANGE (ended_at);
CREATE TABLE advisor.disk_profiles (
    digest text PRIMARY KEY,
    measured_at timestamptz NOT NULL,
    target text NOT NULL,
    device text,
    host text,
    pushed_at timestamptz NOT NULL DEFAULT now(),
    document jsonb NOT NULL
);
CREATE TABLE advisor.reports (
    generated_at timestamptz NOT NULL,
    digest text NOT NULL,
    dbms text NOT NULL,
    host text NOT NULL,
    name text NOT NULL,
    predicted_gain double precision,
    pushed_at timestamptz NOT NULL DEFAULT now(),
    document jsonb NOT NULL,
    PRIMARY KEY (digest, generated_at)
) PARTITION BY RANGE (generated_at);

CREATE FUNCTION advisor.ensure_month(parent text, at timestamptz) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET TimeZone = 'UTC' AS $fn$
DECLARE
    first_day timestamptz := date_trunc('month', at);
    child text;
BEGIN
    IF parent NOT IN ('snapshots', 'snapshot_files', 'workloads', 'reports') THEN
        RAISE EXCEPTION 'advisor.ensure_month: % is not a partitioned advisor table', parent;
    END IF;
    child := parent || '_' || to_char(first_day, 'YYYYMM');
    IF to_regclass('advisor.' || child) IS NOT NULL THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('advisor.ensure_month'));
    IF to_regclass('advisor.' || child) IS NOT NULL THEN
        RETURN;  -- another session created it while we waited
    END IF;
    EXECUTE format('CREATE TABLE advisor.%I PARTITION OF advisor.%I FOR VALUES FROM (%L) TO (%L)',
                   child, parent, first_day, first_day + interval '1 month');
END
$fn$;
REVOKE ALL ON FUNCTION advisor.ensure_month(text, timestamptz) FROM PUBLIC;

DO $roles$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'advisor_collector') THEN
        CREATE ROLE advisor_collector NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'advisor_reader') THEN
        CREATE ROLE advisor_reader NOLOGIN;
    END IF;
END
$roles$;
GRANT USAGE ON SCHEMA advisor TO advisor_collector, advisor_reader;
GRANT SELECT ON advisor.schema_version TO advisor_collector, advisor_reader;
GRANT INSERT ON advisor.instances, advisor.snapshots, advisor.snapshot_files, advisor.workloads,
    advisor.disk_profiles, advisor.reports TO advisor_collector;
GRANT EXECUTE ON FUNCTION advisor.ensure_month(text, timestamptz) TO advisor_collector;
GRANT SELECT ON ALL TABLES IN SCHEMA advisor TO advisor_reader;
"""

_V2: LiteralString = """
CREATE OR REPLACE FUNCTION advisor.ensure_month(parent text, at timestamptz) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET TimeZone = 'UTC' AS $fn$
DECLARE
    first_day timestamptz;
    child text;
BEGIN
    IF parent NOT IN ('snapshots', 'snapshot_files', 'workloads', 'reports') THEN
        RAISE EXCEPTION 'advisor.ensure_month: % is not a partitioned advisor table', parent;
    END IF;
    -- the range advisor.model.validate gives document times: every partition's bounds read back
    IF at IS NULL OR at < '1970-01-01 00:00:00+00' OR at >= '2200-01-01 00:00:00+00' THEN
        RAISE EXCEPTION 'advisor.ensure_month: time % is outside 1970-01-01 .. 2199-12-31', at
            USING ERRCODE = 'datetime_field_overflow';
    END IF;
    first_day := date_trunc('month', at);
    child := parent || '_' || to_char(first_day, 'YYYYMM');
    -- pg_class is read with each statement's own snapshot. to_regclass() would consult this
    -- session's relation cache, which keeps a "not there" answer until the session processes
    -- catalog invalidations, and waiting on an advisory lock does not process them: a second
    -- session then tried to create the partition the first had just committed.
    IF EXISTS (SELECT FROM pg_class WHERE relname = child AND relnamespace = 'advisor'::regnamespace) THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('advisor.ensure_month'));
    IF EXISTS (SELECT FROM pg_class WHERE relname = child AND relnamespace = 'advisor'::regnamespace) THEN
        RETURN;  -- another session created it while we waited (its commit released the lock)
    END IF;
    EXECUTE format('CREATE TABLE IF NOT EXISTS advisor.%I PARTITION OF advisor.%I FOR VALUES FROM (%L) TO (%L)',
                   child, parent, first_day, first_day + interval '1 month');
END
$fn$;
"""


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "instances, monthly snapshots with per-file rows, workloads, disk profiles, reports, roles", _V1),
    Migration(2, "ensure_month: partitions created race-free; times outside 1970..2199 refused", _V2),
    Migration(3, "interval summaries computed at arrival, hourly and daily rollups, the summariser's queue, "
                 "packed snapshots with their file locations stored once", _V3),
    Migration(4, "a different document under a stored snapshot's or workload's key replaces it and its summaries",
              _V4),
)
CURRENT_VERSION = MIGRATIONS[-1].version


def applied_version(conn: Connection[Any]) -> int | None:
    """The repository's schema version; None when advisor's schema is not there at all."""
    row = conn.execute("SELECT to_regclass('advisor.schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return None
    found = conn.execute("SELECT max(version) FROM advisor.schema_version").fetchone()
    return int(found[0]) if found and found[0] is not None else 0


def check_version(conn: Connection[Any]) -> int:
    """Refuse a repository that is missing, or newer than this tool; return its version."""
    version = applied_version(conn)
    if version is None:
        raise BadInput("the database is not an advisor repository", hint="run `advisor repo init --dsn ...` first")
    if version > CURRENT_VERSION:
        raise Unsupported(
            f"the repository is at schema version {version}, newer than this advisor knows ({CURRENT_VERSION})",
            hint="upgrade advisor on this host",
        )
    if version < CURRENT_VERSION:
        raise BadInput(
            f"the repository is at schema version {version}, this advisor needs {CURRENT_VERSION}",
            hint="run `advisor repo init --dsn ...` to migrate it",
        )
    return version


INIT_HINT = ("run `advisor repo init` as the database owner or a superuser: it creates the schema advisor and the "
             "roles advisor_collector and advisor_reader")


def init_privileges_missing(conn: Connection[Any]) -> str | None:
    """What the session's role lacks to create or migrate the schema, in words, for the error; None
    when none of these is missing (the server's own message then says what was).

    Creating the schema needs CREATE on the database; migrating it, the schema's owner (or a
    member of it); the first ``repo init`` of a cluster creates the two group roles (CREATEROLE).
    """
    row = conn.execute(
        "SELECT current_user, current_database(), has_database_privilege(current_database(), 'CREATE'), "
        "(SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user), "
        "(SELECT count(*) FROM pg_roles WHERE rolname IN (%(c)s, %(r)s)), "
        "(SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = %(s)s), "
        "(SELECT pg_has_role(nspowner, 'USAGE') FROM pg_namespace WHERE nspname = %(s)s)",
        {"c": COLLECTOR_ROLE, "r": READER_ROLE, "s": SCHEMA}).fetchone()
    if row is None:
        return None
    user, database, may_create, may_create_roles, roles, owner, owns = row
    missing = []
    if owner is None and not may_create:
        missing.append(f"CREATE on database {database}")
    if owner is not None and not owns:
        missing.append(f"the ownership of the schema {SCHEMA} (owned by {owner})")
    if roles < 2 and not may_create_roles:
        missing.append(f"CREATEROLE, to create the roles {COLLECTOR_ROLE} and {READER_ROLE}")
    return f"role {user} lacks {', and '.join(missing)}" if missing else None


def migrate(conn: Connection[Any]) -> list[Migration]:
    """Apply every migration the repository lacks, each in its own transaction; return them.

    A migration runs under an advisory lock so two ``repo init`` at once cannot both apply it.
    """
    done: list[Migration] = []
    for migration in MIGRATIONS:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('advisor.migrate'))")
            version = applied_version(conn)
            if version is not None and version > CURRENT_VERSION:
                check_version(conn)
            if version is not None and version >= migration.version:
                continue
            if version == 0 and migration.version == 1 and _first_migration_unrecorded(conn, migration):
                done.append(Migration(1, "its tables were there but schema_version was empty: recorded again", ""))
                continue
            conn.execute(migration.statements)
            conn.execute(
                "INSERT INTO advisor.schema_version (version, description) VALUES (%(v)s, %(d)s)",
                {"v": migration.version, "d": migration.description},
            )
            done.append(migration)
    return done


def _first_migration_unrecorded(conn: Connection[Any], migration: Migration) -> bool:
    """``advisor.schema_version`` exists but is empty: repair it, or refuse with one line.

    Every table of the first migration there: the row was lost, so it is written again (True).
    Only the empty ``schema_version`` table there: it is dropped so the migration can run
    (False). Anything in between is a damaged repository that ``repo init`` must not guess at.
    """
    names = re.findall(r"CREATE TABLE advisor\.(\w+) \(", migration.statements)
    present = []
    for name in names:
        row = conn.execute("SELECT to_regclass(%(n)s) IS NOT NULL", {"n": f"advisor.{name}"}).fetchone()
        if row and row[0]:
            present.append(name)
    if present == names:
        conn.execute("INSERT INTO advisor.schema_version (version, description) VALUES (%(v)s, %(d)s)",
                     {"v": migration.version, "d": f"{migration.description} (recorded again by repo init)"})
        return True
    if present == ["schema_version"]:
        conn.execute("DROP TABLE advisor.schema_version")
        return False
    missing = ", ".join(n for n in names if n not in present)
    raise BadInput(f"the repository's advisor.schema_version table is empty and schema version {migration.version} "
                   f"is there only in part (missing: {missing}); repo init cannot repair it",
                   hint="restore the repository from a backup, or DROP SCHEMA advisor CASCADE (deletes its data) "
                        "and run repo init again")
