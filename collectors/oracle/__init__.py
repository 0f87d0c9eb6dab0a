"""Oracle collector: live V$ sampling (python-oracledb), Statspack or licensed AWR history.

Registered as the ``oracle`` entry point of ``advisor.collectors``. ``connect`` opens a thin
(or, with ``options["thick"]``, thick) session named ``advisor``; ``collect`` adds one live
sample (files, wait profile, server identity) to the snapshot context. History between two
snapshots stored in the database is read by :func:`advisor.collectors.oracle.history.history_workload`
(Statspack by default; AWR's DBA_HIST_* views only with ``options["diagnostics_pack"]``).

The plugin's own modules are imported when a method needs them: every ``advisor collect`` loads
every plugin to learn which database each answers to, and a PostgreSQL collect would otherwise
import the Oracle row shapes, history and sizes parsers (about 0.06 s) for nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from advisor.collect.context import CollectContext, CollectOptions
    from advisor.collectors.oracle.history import history_workload as history_workload
    from advisor.collectors.oracle.rows import OracleConnection
    from advisor.model import Workload

__all__ = ["OracleCollector", "history_workload"]


def __getattr__(name: str) -> Any:
    """``history_workload``, imported on first use (module docstring)."""
    if name == "history_workload":
        from advisor.collectors.oracle.history import history_workload

        return history_workload
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _connection(conn: object) -> OracleConnection:
    """The connection this plugin opened (advisor hands it back unchanged)."""
    from advisor.collectors.oracle.rows import OracleConnection

    if not isinstance(conn, OracleConnection):
        raise TypeError(f"the oracle collector needs the connection its connect() opened, not {type(conn).__name__}")
    return conn


class OracleCollector:
    """The ``oracle`` plugin: Collector, Connects and ReadsHistory (see advisor.collect.registry)."""

    name = "oracle"
    dbms = "oracle"

    def connect(self, dsn: str | None, options: CollectOptions) -> OracleConnection:
        """Open a monitoring session; errors are one-line AdvisorErrors without secrets."""
        from advisor.collectors.oracle.connect import open_connection

        return open_connection(dsn, options)

    def close(self, conn: object) -> None:
        """Close the session; a dead connection is not worth an error at this point."""
        try:
            _connection(conn).close()
        except Exception:  # noqa: BLE001 - closing a broken session must not mask the real outcome
            pass

    def history(self, conn: object, options: CollectOptions) -> Workload:
        """The Workload between two stored snapshots (``advisor collect --statspack BEGIN:END``)."""
        from advisor.collectors.oracle.history import history_workload

        return history_workload(_connection(conn), options)

    def collect(self, conn: object, context: CollectContext) -> None:
        """Add one live sample of *conn* to *context*."""
        from advisor.collectors.oracle.live import sample

        result = sample(_connection(conn))
        context.server = result.server
        context.files.extend(result.files)
        context.wait = result.wait
        context.views.update(result.views)
        context.warnings.extend(result.warnings)
        context.segments.extend(result.segments)
        if result.taken_at:
            context.taken_at = result.taken_at
