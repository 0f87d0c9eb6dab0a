"""PostgreSQL collector: per-relation, WAL, temp and archive IO from a live server (14+).

Registered as the ``postgres`` entry point of ``advisor.collectors``. ``connect`` opens a
read-only, autocommit session named ``advisor``; ``collect`` adds one snapshot (server
identity and reset clocks, FileIO rows, raw views, a wait sample) to the context;
``observe`` samples the IO wait share during a workload interval. Nothing is ever written
to the database. SQL lives in ``sql/postgres`` (``advisor sql list``).
"""

from __future__ import annotations

from advisor.collect.context import CollectContext, CollectOptions
from advisor.collectors.postgres import collector
from advisor.collectors.postgres.session import PgSession, connect
from advisor.model import WaitProfile

__all__ = ["PostgresCollector"]


def _session(conn: object) -> PgSession:
    """The session this plugin opened (advisor hands it back unchanged)."""
    if not isinstance(conn, PgSession):
        raise TypeError(f"the postgres collector needs the session its connect() opened, not {type(conn).__name__}")
    return conn


class PostgresCollector:
    """The ``postgres`` plugin: Collector, Connects and Observes (see advisor.collect.registry)."""

    name = "postgres"
    dbms = "postgres"

    def connect(self, dsn: str | None, options: CollectOptions) -> PgSession:
        """Open the monitoring session; errors are one-line AdvisorErrors without secrets."""
        return connect(dsn, options)

    def close(self, conn: object) -> None:
        """Close the session; a broken connection is not worth an error at this point."""
        try:
            _session(conn).conn.close()
        except Exception:  # noqa: BLE001 - closing a dead session must not mask the outcome
            pass

    def collect(self, conn: object, context: CollectContext) -> None:
        """Add one snapshot of the server behind *conn* to *context*."""
        collector.collect(_session(conn), context)

    def observe(self, conn: object, seconds: float) -> WaitProfile:
        """Sample the IO wait share for *seconds*; the caller stores it on the later snapshot."""
        return collector.observe(_session(conn), seconds)
