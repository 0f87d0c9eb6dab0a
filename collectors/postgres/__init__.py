"""PostgreSQL collector: per-relation, WAL, temp and archive IO from a live server (14+).

Registered as the ``postgres`` entry point of ``advisor.collectors``. ``connect`` opens a
read-only, autocommit session named ``advisor``; ``collect`` adds one snapshot (server
identity and reset clocks, FileIO rows, raw views, a wait sample) to the context;
``observe`` samples the IO wait share during a workload interval. Nothing is ever written
to the database. SQL lives in ``sql/postgres`` (``advisor sql list``).
"""

from __future__ import annotations

from typing import Any

from advisor.collectors.postgres import collector
from advisor.collectors.postgres.session import PgSession, connect
from advisor.model import WaitProfile

__all__ = ["PostgresCollector"]


class PostgresCollector:
    """The ``postgres`` collector plugin (a DatabaseCollector, see advisor.collect.registry)."""

    name = "postgres"
    dbms = "postgres"

    def connect(self, dsn: str | None, options: dict[str, Any]) -> PgSession:
        """Open the monitoring session; errors are one-line AdvisorErrors without secrets."""
        return connect(dsn, options)

    def close(self, conn: Any) -> None:
        """Close the session; a broken connection is not worth an error at this point."""
        try:
            conn.conn.close()
        except Exception:  # noqa: BLE001 - closing a dead session must not mask the outcome
            pass

    def collect(self, conn: Any, context: Any) -> None:
        """Add one snapshot of the server behind *conn* to *context* (a CollectContext)."""
        collector.collect(conn, context)

    def observe(self, conn: Any, seconds: float, context: Any) -> WaitProfile:
        """Sample the IO wait share for *seconds*; the caller stores it on the later snapshot."""
        profile = collector.observe(conn, seconds)
        context.wait = profile
        return profile
