"""Discover collectors through the ``advisor.collectors`` entry points.

Built-in collectors register through the same entry points as third-party ones (sqlfluff's
model), so there is one code path. A plugin that fails to import is recorded with its
error, not fatal: ``advisor collectors`` shows it as failed and collection goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from advisor.errors import AdvisorError
from advisor.model import CollectorRun

if TYPE_CHECKING:
    from advisor.collect.context import CollectContext, CollectOptions
    from advisor.model import WaitProfile, Workload

GROUP = "advisor.collectors"

Session = object
"""A database session as a plugin's ``connect`` returns it; advisor only hands it back.

Each plugin has its own session type (PostgreSQL: ``PgSession``, Oracle: a python-oracledb
connection), so the core treats it as opaque and the plugin checks what it receives.
"""


@runtime_checkable
class Collector(Protocol):
    """What every collector plugin provides.

    ``collect`` receives the plugin's own session (None for host-side collectors) and the
    :class:`CollectContext` of the snapshot being taken; it adds files, views and layout to
    it. Raising :class:`advisor.errors.Unsupported` records the run as skipped with the message.
    """

    name: str
    dbms: str  # "postgres", "oracle", "host" or "any"

    def collect(self, conn: Session | None, context: CollectContext) -> None:
        """Add this collector's rows to *context*."""


@runtime_checkable
class Connects(Protocol):
    """Capability: open (and close) the database session ``collect`` reads from.

    ``options`` carries command-line choices (``thick``, ``diagnostics_pack``,
    ``statement_timeout_s``, ...). ``connect`` raises ConnectionFailed / PrivilegeMissing /
    Unsupported with a one-line, password-free message.
    """

    def connect(self, dsn: str | None, options: CollectOptions) -> Session:
        """Open a read-only monitoring session."""

    def close(self, conn: Session) -> None:
        """Close the session opened by :meth:`connect`; never raises."""


@runtime_checkable
class DatabaseCollector(Collector, Connects, Protocol):
    """A collector that reads a database: :class:`Collector` plus :class:`Connects`."""


@runtime_checkable
class Observes(Protocol):
    """Capability: watch the database during a workload interval (wait sampling)."""

    def observe(self, conn: Session, seconds: float) -> WaitProfile:
        """Sample for *seconds*; the caller stores the profile on the later snapshot."""


@runtime_checkable
class ReadsHistory(Protocol):
    """Capability: a workload between two snapshots the database stored (Statspack, AWR)."""

    def history(self, conn: Session, options: CollectOptions) -> Workload:
        """The workload between the snapshots named in *options* (``statspack`` / ``awr``)."""


@runtime_checkable
class ReportReader(Protocol):
    """A plugin that turns a report file (AWR, Statspack) into a workload directly."""

    name: str
    dbms: str  # whose reports it reads

    def can_read(self, head: str) -> bool:
        """Whether the first few KB of a file look like this plugin's report kind."""

    def read_report(self, path: str) -> Workload:
        """Parse *path* into an :class:`advisor.model.Workload`."""


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One entry point as ``advisor collectors`` lists it."""

    name: str
    target: str
    dbms: str
    distribution: str
    version: str
    status: str  # "ok" | "failed"
    error: str | None
    collector: Collector | ReportReader | None

    @property
    def capabilities(self) -> tuple[str, ...]:
        """What the plugin offers: collect, connect, observe, history, report (checked, not declared)."""
        plugin = self.collector
        offered = {
            "collect": isinstance(plugin, Collector), "connect": isinstance(plugin, Connects),
            "observe": isinstance(plugin, Observes), "history": isinstance(plugin, ReadsHistory),
            "report": isinstance(plugin, ReportReader),
        }
        return tuple(name for name, present in offered.items() if present)


def discover(group: str = GROUP) -> list[PluginInfo]:
    """Load every collector entry point, isolating failures per plugin."""
    found: list[PluginInfo] = []
    seen: set[str] = set()
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        if ep.name in seen:
            continue  # the same distribution installed twice (editable + wheel)
        seen.add(ep.name)
        dist = ep.dist.name if ep.dist is not None else "?"
        version = ep.dist.version if ep.dist is not None else "?"
        try:
            factory = ep.load()
            collector = factory()
            if not isinstance(collector, (Collector, ReportReader)):
                raise TypeError("implements neither collect() nor can_read() and read_report()")
            found.append(PluginInfo(ep.name, ep.value, collector.dbms, dist, version, "ok", None, collector))
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not stop the others
            reason = f"{type(exc).__name__}: {exc}"
            found.append(PluginInfo(ep.name, ep.value, "?", dist, version, "failed", reason, None))
    return found


def run_isolated(name: str, action: Callable[[], None]) -> CollectorRun:
    """Run one collector step, turning its failure into a recorded run.

    Unsupported (and other skip-worthy AdvisorErrors raised as ``Unsupported``) becomes
    ``skipped``; any other error becomes ``failed`` with a one-line reason.
    """
    from advisor.errors import Unsupported

    start = time.monotonic()
    try:
        action()
    except Unsupported as exc:
        return CollectorRun(name, "skipped", time.monotonic() - start, exc.one_line())
    except AdvisorError as exc:
        return CollectorRun(name, "failed", time.monotonic() - start, exc.one_line())
    except Exception as exc:  # noqa: BLE001 - recorded, not fatal
        from advisor.errors import redact

        return CollectorRun(name, "failed", time.monotonic() - start, redact(f"{type(exc).__name__}: {exc}"))
    return CollectorRun(name, "ok", time.monotonic() - start)
