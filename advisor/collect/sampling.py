"""Take snapshots through the collector plugins: the database one, then the host one.

The database collector is found by its ``dbms`` among the ``advisor.collectors`` entry
points (advisor never imports ``collectors`` directly). Its failure is the command's
failure (no server, no snapshot). Host collectors (dbms ``host``: the built-in one maps
every file path to a disk; third-party ones may add more) run after it, each isolated; their
failure or absence is recorded as a run, not fatal. A snapshot with a failed run is still
written; the command then exits PARTIAL.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import TracebackType

from advisor.collect.context import CollectContext, CollectOptions, build_snapshot
from advisor.collect.registry import (
    Collector,
    DatabaseCollector,
    Observes,
    PluginInfo,
    Session,
    discover,
    run_isolated,
)
from advisor.errors import ConnectionFailed, Unsupported
from advisor.model import CollectorRun, Snapshot, WaitProfile


@dataclass
class Plugins:
    """The database collector chosen for this run and the host collectors (maybe none)."""

    database: DatabaseCollector
    hosts: list[Collector]
    host_missing_reason: str | None = None


def dbms_choices(found: list[PluginInfo] | None = None) -> list[str]:
    """The ``--dbms`` values an installed, working database collector answers to."""
    plugins = discover() if found is None else found
    return sorted({p.dbms for p in plugins if isinstance(p.collector, DatabaseCollector)})


def find_plugins(dbms: str) -> Plugins:
    """The database collector for *dbms* and every host collector, through entry points."""
    found = discover()
    candidates = [p for p in found if p.dbms == dbms and isinstance(p.collector, DatabaseCollector)]
    if not candidates:
        broken = [p for p in found if p.name == dbms and p.status == "failed"]
        detail = f": {broken[0].error}" if broken else ""
        choices = ", ".join(dbms_choices(found)) or "none"
        raise Unsupported(f"no working collector for {dbms} is installed{detail} (installed: {choices})",
                          hint="see `advisor collectors`")
    chosen = sorted(candidates, key=lambda p: (p.name != dbms, p.name))[0]
    database = chosen.collector
    assert isinstance(database, DatabaseCollector)  # the filter above
    hosts = [p.collector for p in found if p.dbms == "host" and isinstance(p.collector, Collector)]
    reason = None
    if not hosts:
        failed: list[PluginInfo] = [p for p in found if p.name == "host"]
        reason = failed[0].error if failed else "no host collector installed"
    return Plugins(database, hosts, reason)


@dataclass
class LiveSession:
    """The database session of one command; :meth:`reconnect` replaces it after a restart.

    Use it as a context manager: the session is closed however the block ends.
    """

    plugins: Plugins
    dsn: str | None
    options: CollectOptions
    conn: Session = field(init=False)

    def __post_init__(self) -> None:
        self.conn = self.plugins.database.connect(self.dsn, self.options)

    def reconnect(self) -> None:
        """Close the (lost) session and open a new one with the same DSN and options."""
        close_quietly(self.plugins, self.conn)
        self.conn = self.plugins.database.connect(self.dsn, self.options)

    def __enter__(self) -> LiveSession:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        close_quietly(self.plugins, self.conn)


def _timed(name: str, action: Callable[[], None]) -> CollectorRun:
    """Run the database collector; its errors propagate (they decide the exit code)."""
    start = time.monotonic()
    action()
    return CollectorRun(name, "ok", time.monotonic() - start)


def take_snapshot(plugins: Plugins, conn: Session, options: CollectOptions) -> Snapshot:
    """One snapshot: database collector (fatal on error), then host collectors (recorded)."""
    context = CollectContext(options=options.copy())
    database = plugins.database
    runs = [_timed(database.name, lambda: database.collect(conn, context))]
    runs.extend(_host_runs(plugins, context))
    return build_snapshot(context, runs)


def _host_runs(plugins: Plugins, context: CollectContext) -> list[CollectorRun]:
    """Every installed host collector, in name order, each isolated from the others."""
    if not plugins.hosts:
        return [CollectorRun("host", "skipped", 0.0, plugins.host_missing_reason)]
    runs = []
    for host in plugins.hosts:

        def step(host: Collector = host) -> None:
            host.collect(None, context)

        runs.append(run_isolated(host.name, step))
    return runs


def observe(plugins: Plugins, conn: Session, seconds: float) -> WaitProfile | None:
    """Let the database collector watch the interval (wait sampling), or just sleep."""
    if isinstance(plugins.database, Observes):
        return plugins.database.observe(conn, seconds)
    time.sleep(seconds)
    return None


def observe_with_ticks(plugins: Plugins, conn: Session, seconds: float, tick: Callable[[float], None],
                       every_s: float) -> WaitProfile | None:
    """:func:`observe` in a worker thread while this one calls *tick(elapsed)* every *every_s*.

    A ten-minute interval used to pass without a word. The collector keeps the session to
    itself meanwhile (this thread only waits); its exception is raised here. Ctrl-C reaches
    this thread, which leaves the worker (a daemon) to end with the process.
    """
    result: list[WaitProfile | None] = []
    failure: list[BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            result.append(observe(plugins, conn, seconds))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread as it is
            failure.append(exc)
        finally:
            done.set()

    started = time.monotonic()
    threading.Thread(target=work, name="advisor-observe", daemon=True).start()
    while not done.wait(every_s):
        tick(time.monotonic() - started)
    if failure:
        raise failure[0]
    return result[0]


def sample_pair(
    session: LiveSession, seconds: float, progress: Callable[[str], None], *,
    after_first: Callable[[Snapshot], None] | None = None, tick_every_s: float = 60.0,
    before_second: Callable[[], None] | None = None,
) -> tuple[Snapshot, Snapshot]:
    """Two snapshots *seconds* apart; the later one carries the wait profile of the interval.

    *after_first* sees snapshot A before the wait (to say at once what the interval will
    lack, e.g. a timing setting that is off, or to start a trace); *before_second* runs at
    the end of the wait (a trace stops there); *progress* hears the elapsed time every
    *tick_every_s*. When the server went away during the interval (a restart), the session
    is reopened and snapshot B comes from the new one; the workload diff decides whether the
    counters survived.
    """
    plugins, options = session.plugins, session.options
    progress("snapshot A")
    first = take_snapshot(plugins, session.conn, options)
    if after_first is not None:
        after_first(first)
    progress(f"watching for {seconds:g} s")
    started = time.monotonic()

    def tick(elapsed: float) -> None:
        progress(f"watching: {elapsed:.0f} of {seconds:g} s")

    try:
        profile = observe_with_ticks(plugins, session.conn, seconds, tick, tick_every_s)
    except ConnectionFailed as exc:
        progress(f"lost the session during the interval ({exc.one_line()}); reconnecting")
        time.sleep(max(0.0, seconds - (time.monotonic() - started)))
        session.reconnect()
        profile = None
    if before_second is not None:
        before_second()
    progress("snapshot B")
    second = take_snapshot(plugins, session.conn, options)
    if profile is not None:
        second = replace(second, wait=profile)
    return first, second


def failed_runs(*snapshots: Snapshot) -> list[CollectorRun]:
    """Runs that failed in any of *snapshots* (skipped ones are not failures)."""
    return [run for snap in snapshots for run in snap.runs if run.status == "failed"]


def close_quietly(plugins: Plugins, conn: Session) -> None:
    """Close the database session; errors at this point are not the user's concern."""
    try:
        plugins.database.close(conn)
    except Exception:  # noqa: BLE001 - closing must not mask the outcome
        pass
