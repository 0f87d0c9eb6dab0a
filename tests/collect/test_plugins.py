"""The plugin interface: capabilities checked with isinstance, --dbms from the registry, the session."""

from __future__ import annotations

from advisor.collect import sampling
from advisor.collect.context import CollectContext, CollectOptions
from advisor.collect.registry import Collector, Connects, DatabaseCollector, Observes, ReadsHistory, discover
from advisor.errors import ConnectionFailed, ExitCode
from advisor.model import FileIO, ServerInfo, WaitProfile
from tests.helpers.cli import run_advisor


def test_builtin_plugins_offer_what_they_implement() -> None:
    found = {p.name: p for p in discover()}
    assert all(p.status == "ok" for p in found.values()), [p.error for p in found.values()]
    assert found["postgres"].capabilities == ("collect", "connect", "observe")
    assert found["oracle"].capabilities == ("collect", "connect", "history")
    assert found["host"].capabilities == ("collect",)
    assert found["awr"].capabilities == ("report",)
    assert sampling.dbms_choices() == ["oracle", "postgres"]


def test_an_unknown_dbms_is_refused_with_the_installed_choices() -> None:
    done = run_advisor("collect", "--dbms", "mysql")
    assert done.returncode == int(ExitCode.BAD_INPUT)
    assert "--dbms 'mysql': use oracle or postgres" in done.stderr
    assert "Traceback" not in done.stderr


class Counting:
    """A database plugin kept in memory: its server 'restarts' during the first interval."""

    name = "counting"
    dbms = "counting"

    def __init__(self) -> None:
        self.opened: list[int] = []
        self.closed: list[int] = []

    def connect(self, dsn: str | None, options: CollectOptions) -> int:
        self.opened.append(len(self.opened) + 1)
        return self.opened[-1]

    def close(self, conn: object) -> None:
        assert isinstance(conn, int)
        self.closed.append(conn)

    def collect(self, conn: object, context: CollectContext) -> None:
        assert isinstance(conn, int)
        context.server = ServerInfo("postgres", "18.1", 180001, "h", "db", "1", f"session {conn}")
        context.files.append(FileIO("f", "/f", "data", "", "db", 0, conn, None, 0, None))

    def observe(self, conn: object, seconds: float) -> WaitProfile:
        if conn == 1:
            raise ConnectionFailed("the server went away")
        return WaitProfile(io_wait_share=0.5)


def test_a_session_lost_during_the_interval_is_reopened_and_closed() -> None:
    plugin = Counting()
    assert isinstance(plugin, DatabaseCollector) and isinstance(plugin, Observes)
    assert not isinstance(plugin, ReadsHistory)
    plugins = sampling.Plugins(plugin, [], "no host collector in this test")
    steps: list[str] = []
    with sampling.LiveSession(plugins, None, CollectOptions()) as session:
        first, second = sampling.sample_pair(session, 0.0, steps.append)
    assert [f.reads for f in first.files] == [1] and [f.reads for f in second.files] == [2]
    assert second.server.started_at == "session 2"
    assert plugin.closed == [1, 2]  # the lost session, then the new one when the block ended
    assert any("reconnecting" in step for step in steps)
    assert [r.status for r in second.runs] == ["ok", "skipped"]


def test_a_plugin_without_collect_is_not_a_collector() -> None:
    class ConnectsOnly:
        def connect(self, dsn: str | None, options: CollectOptions) -> object:
            return object()

        def close(self, conn: object) -> None:
            pass

    assert isinstance(ConnectsOnly(), Connects)
    assert not isinstance(ConnectsOnly(), Collector)
    assert not isinstance(ConnectsOnly(), DatabaseCollector)
