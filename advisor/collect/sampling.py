"""Take snapshots through the collector plugins: the database one, then the host one.

The database collector is found by its ``dbms`` among the ``advisor.collectors`` entry
points (advisor never imports ``collectors`` directly). Its failure is the command's
failure (no server, no snapshot). Host collectors (dbms ``host``: the built-in one maps
every file path to a disk; third-party ones may add more) run after it, each isolated; their
failure or absence is recorded as a run, not fatal. A snapshot with a failed run is still
written; the command then exits PARTIAL.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from advisor.bulk import gc_paused
from advisor.collect.context import CollectContext, build_snapshot
from advisor.collect.registry import Collector, PluginInfo, discover, run_isolated
from advisor.errors import ConnectionFailed, Unsupported
from advisor.model import CollectorRun, Snapshot


@dataclass
class Plugins:
    """The database collector chosen for this run and the host collectors (maybe none)."""

    database: Any  # a DatabaseCollector
    hosts: list[Collector]
    host_missing_reason: str | None = None


def find_plugins(dbms: str) -> Plugins:
    """The database collector for *dbms* and every host collector, through entry points."""
    found = discover()
    candidates = [p for p in found if p.dbms == dbms and p.collector is not None and hasattr(p.collector, "connect")]
    if not candidates:
        broken = [p for p in found if p.name == dbms and p.status == "failed"]
        detail = f": {broken[0].error}" if broken else ""
        raise Unsupported(f"no working collector for {dbms} is installed{detail}", hint="see `advisor collectors`")
    chosen = sorted(candidates, key=lambda p: (p.name != dbms, p.name))[0]
    hosts = [p.collector for p in found if p.dbms == "host" and p.collector is not None]
    reason = None
    if not hosts:
        failed: list[PluginInfo] = [p for p in found if p.name == "host"]
        reason = failed[0].error if failed else "no host collector installed"
    return Plugins(chosen.collector, hosts, reason)


def _timed(name: str, action: Callable[[], None]) -> CollectorRun:
    """Run the database collector; its errors propagate (they decide the exit code)."""
    start = time.monotonic()
    action()
    return CollectorRun(name, "ok", time.monotonic() - start)


def take_snapshot(plugins: Plugins, conn: Any, options: dict[str, Any]) -> Snapshot:
    """One snapshot: database collector (fatal on error), then host collectors (recorded)."""
    context = CollectContext(options=dict(options))
    database = plugins.database
    with gc_paused():
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


def observe(plugins: Plugins, conn: Any, seconds: float) -> Any:
    """Let the database collector watch the interval (wait sampling) or just sleep."""
    watcher = getattr(plugins.database, "observe", None)
    if watcher is None:
        time.sleep(seconds)
        return None
    return watcher(conn, seconds, CollectContext())


def sample_pair(
    plugins: Plugins,
    session: list[Any],
    options: dict[str, Any],
    seconds: float,
    progress: Callable[[str], None],
    reconnect: Callable[[], Any],
) -> tuple[Snapshot, Snapshot]:
    """Two snapshots *seconds* apart; the later one carries the wait profile of the interval.

    ``session`` is a one-element list holding the connection, replaced when the server went
    away during the interval (a restart): snapshot B then comes from a new session, and the
    workload diff decides whether the counters survived.
    """
    from dataclasses import replace

    from advisor.model import WaitProfile

    progress("snapshot A")
    first = take_snapshot(plugins, session[0], options)
    progress(f"watching for {seconds:g} s")
    started = time.monotonic()
    try:
        profile = observe(plugins, session[0], seconds)
    except ConnectionFailed as exc:
        progress(f"lost the session during the interval ({exc.one_line()}); reconnecting")
        time.sleep(max(0.0, seconds - (time.monotonic() - started)))
        close_quietly(plugins, session[0])
        session[0] = reconnect()
        profile = None
    progress("snapshot B")
    second = take_snapshot(plugins, session[0], options)
    if isinstance(profile, WaitProfile):
        second = replace(second, wait=profile)
    return first, second


def failed_runs(*snapshots: Snapshot) -> list[CollectorRun]:
    """Runs that failed in any of *snapshots* (skipped ones are not failures)."""
    return [run for snap in snapshots for run in snap.runs if run.status == "failed"]


def close_quietly(plugins: Plugins, conn: Any) -> None:
    """Close the database session; errors at this point are not the user's concern."""
    try:
        plugins.database.close(conn)
    except Exception:  # noqa: BLE001 - closing must not mask the outcome
        pass
