"""Run the collectors for one server and assemble a :class:`Snapshot`.

Database collectors fill a shared :class:`CollectContext` (server identity, files, raw
views, wait profile); the host collector then maps every listed path to its disk. Each
collector's outcome is recorded as a :class:`CollectorRun`, so one failing plugin costs its
own rows, never the snapshot.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from advisor import __version__
from advisor.collect.registry import Collector, run_isolated
from advisor.model import (
    CollectorRun,
    FileIO,
    HostLayout,
    SegmentIO,
    ServerInfo,
    Snapshot,
    WaitProfile,
)


@dataclass
class CollectContext:
    """Mutable scratchpad the collectors of one snapshot write into."""

    server: ServerInfo | None = None
    files: list[FileIO] = field(default_factory=list)
    views: dict[str, list[dict[str, str | int | float | bool | None]]] = field(default_factory=dict)
    wait: WaitProfile = field(default_factory=WaitProfile)
    layout: HostLayout | None = None
    warnings: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    taken_at: str | None = None
    segments: list[SegmentIO] = field(default_factory=list)  # Oracle per-segment counters


def utc_now_iso() -> str:
    """Current UTC time in ISO 8601 with offset, the format every document uses."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def run_collectors(collectors: list[tuple[Collector, Any]], context: CollectContext) -> list[CollectorRun]:
    """Run each (collector, connection) pair in order, isolating failures."""
    runs = []
    for collector, conn in collectors:

        def step(collector: Collector = collector, conn: Any = conn) -> None:
            collector.collect(conn, context)

        runs.append(run_isolated(collector.name, step))
    return runs


def build_snapshot(context: CollectContext, runs: list[CollectorRun]) -> Snapshot:
    """Freeze a filled context into a snapshot document."""
    if context.server is None:
        raise ValueError("no collector identified the server")
    return Snapshot(
        server=context.server,
        taken_at=context.taken_at or utc_now_iso(),
        files=tuple(context.files),
        runs=tuple(runs),
        wait=context.wait,
        layout=context.layout,
        views=context.views,
        warnings=tuple(context.warnings),
        tool_version=__version__,
        segments=tuple(context.segments),
    )
