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
from typing import Any, Protocol, runtime_checkable

from advisor.errors import AdvisorError
from advisor.model import CollectorRun

GROUP = "advisor.collectors"


@runtime_checkable
class Collector(Protocol):
    """What a collector plugin provides.

    ``collect`` receives the driver connection (or None for host-side collectors) and a
    mutable :class:`CollectContext`; it adds files, views and layout to it. Raising
    :class:`advisor.errors.Unsupported` records the run as skipped with the message.
    """

    name: str
    dbms: str  # "postgres", "oracle", "host" or "any"

    def collect(self, conn: Any, context: Any) -> None:
        """Add this collector's rows to *context*."""


@runtime_checkable
class DatabaseCollector(Collector, Protocol):
    """A collector that also knows how to open (and close) its database connection.

    ``options`` carries command-line choices (``thick``, ``diagnostics_pack``,
    ``statement_timeout_s``, ...). ``connect`` raises ConnectionFailed / PrivilegeMissing /
    Unsupported with a one-line, password-free message.
    """

    def connect(self, dsn: str | None, options: dict[str, Any]) -> Any:
        """Open a read-only monitoring session."""

    def close(self, conn: Any) -> None:
        """Close the session opened by :meth:`connect`."""


@runtime_checkable
class ReportReader(Protocol):
    """A plugin that turns a report file (AWR, Statspack) into a workload directly."""

    name: str

    def can_read(self, head: str) -> bool:
        """Whether the first few KB of a file look like this plugin's report kind."""

    def read_report(self, path: str) -> Any:
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
    collector: Collector | None


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
            if not isinstance(collector, Collector):
                raise TypeError("does not implement name, dbms and collect()")
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
