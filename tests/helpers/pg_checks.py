"""What PostgreSQL tests do with a running server beyond starting it (tests/helpers/pg.py starts it).

``EXERCISED`` collects the versions the collector tests really ran against; tests/postgres's
conftest prints it at the end of the run, so a CI log shows whether 16/17 were covered.
"""

from __future__ import annotations

from advisor.collect.context import CollectContext
from advisor.collectors.postgres import PostgresCollector
from tests.helpers.pg import PgServer

EXERCISED: set[int] = set()


def collect_context(server: PgServer) -> CollectContext:
    """One snapshot's worth of collector output from *server*, through the plugin itself."""
    collector = PostgresCollector()
    session = collector.connect(server.dsn, {})
    try:
        context = CollectContext()
        collector.collect(session, context)
        return context
    finally:
        collector.close(session)


def count(server: PgServer, dsn: str, query: str) -> int:
    """One integer from *query* run in the database of *dsn* (as the server's superuser)."""
    dbname = dsn.split("dbname=")[1].split()[0]
    return int(server.psql(query, dbname=dbname))
