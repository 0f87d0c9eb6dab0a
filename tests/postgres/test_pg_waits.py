"""The wait profile samples pg_stat_activity during the interval and excludes our session."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from advisor.collectors.postgres import PostgresCollector
from tests.helpers.pg import PgServer

pytestmark = pytest.mark.pg


def test_sleeping_session_is_active_but_not_waiting_on_io(shared_server: PgServer) -> None:
    started = threading.Event()
    pids: list[int] = []

    def sleeper() -> None:
        with psycopg.connect(shared_server.dsn, autocommit=True) as conn:
            pids.append(conn.info.backend_pid)
            started.set()
            conn.execute("SELECT pg_sleep(2.5)")

    thread = threading.Thread(target=sleeper)
    thread.start()
    collector = PostgresCollector()
    session = collector.connect(shared_server.dsn, {})
    own_pid = session.conn.info.backend_pid
    try:
        started.wait(10)
        time.sleep(0.2)
        profile = collector.observe(session, 1.5)
    finally:
        collector.close(session)
        thread.join(10)
    assert profile.samples >= 3
    assert profile.active_sessions is not None and 0.9 <= profile.active_sessions <= 1.0
    assert profile.io_wait_share == 0.0  # pg_sleep waits on Timeout, not IO
    # the server's processes seen while sampling name a trace's pids: the sleeper with its database,
    # the checkpointer with none; never the collector's own session
    seen = {s.pid: s for s in profile.sessions}
    assert seen[pids[0]].database == "postgres" and seen[pids[0]].role == "client backend"
    assert any(s.role == "checkpointer" and s.database is None for s in profile.sessions)
    assert own_pid not in seen
