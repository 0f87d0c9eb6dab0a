"""Oracle collector: live V$ sampling (python-oracledb), Statspack or licensed AWR history.

Registered as the ``oracle`` entry point of ``advisor.collectors``. ``connect`` opens a thin
(or, with ``options["thick"]``, thick) session named ``advisor``; ``collect`` adds one live
sample (files, wait profile, server identity) to the snapshot context. History between two
snapshots stored in the database is read by :func:`advisor.collectors.oracle.history.history_workload`
(Statspack by default; AWR's DBA_HIST_* views only with ``options["diagnostics_pack"]``).
"""

from __future__ import annotations

from advisor.collect.context import CollectContext, CollectOptions
from advisor.collectors.oracle.connect import open_connection
from advisor.collectors.oracle.history import history_workload
from advisor.collectors.oracle.live import sample
from advisor.collectors.oracle.rows import OracleConnection
from advisor.model import Workload

__all__ = ["OracleCollector", "history_workload"]


def _connection(conn: object) -> OracleConnection:
    """The connection this plugin opened (advisor hands it back unchanged)."""
    if not isinstance(conn, OracleConnection):
        raise TypeError(f"the oracle collector needs the connection its connect() opened, not {type(conn).__name__}")
    return conn


class OracleCollector:
    """The ``oracle`` plugin: Collector, Connects and ReadsHistory (see advisor.collect.registry)."""

    name = "oracle"
    dbms = "oracle"

    def connect(self, dsn: str | None, options: CollectOptions) -> OracleConnection:
        """Open a monitoring session; errors are one-line AdvisorErrors without secrets."""
        return open_connection(dsn, options)

    def close(self, conn: object) -> None:
        """Close the session; a dead connection is not worth an error at this point."""
        try:
            _connection(conn).close()
        except Exception:  # noqa: BLE001 - closing a broken session must not mask the real outcome
            pass

    def history(self, conn: object, options: CollectOptions) -> Workload:
        """The Workload between two stored snapshots (``advisor collect --statspack BEGIN:END``)."""
        return history_workload(_connection(conn), options)

    def collect(self, conn: object, context: CollectContext) -> None:
        """Add one live sample of *conn* to *context*."""
        result = sample(_connection(conn))
        context.server = result.server
        context.files.extend(result.files)
        context.wait = result.wait
        context.views.update(result.views)
        context.warnings.extend(result.warnings)
        context.segments.extend(result.segments)
        if result.taken_at:
            context.taken_at = result.taken_at
