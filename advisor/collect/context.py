"""The typed context the collectors of one snapshot fill, and the snapshot built from it.

Database collectors fill a shared :class:`CollectContext` (server identity, files, raw
views, wait profile); the host collector then maps every listed path to its disk. Each
collector's outcome is recorded as a :class:`CollectorRun`, so one failing plugin costs its
own rows, never the snapshot.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TypedDict

from advisor import __version__
from advisor.model import (
    CollectorRun,
    FileIO,
    HostLayout,
    SegmentIO,
    ServerInfo,
    Snapshot,
    WaitProfile,
)

ViewRow = dict[str, str | int | float | bool | None]
"""One row of a raw view kept in a snapshot (JSON-safe scalars only)."""


class CollectOptions(TypedDict, total=False):
    """Command-line choices handed to a plugin's ``connect`` and ``history``.

    Every key is optional: a plugin reads the ones it knows with ``.get`` and its own default.
    """

    statement_timeout_s: float  # per statement, both databases
    connect_timeout_s: float
    thick: bool  # Oracle: load the Oracle Client libraries
    lib_dir: str  # Oracle: where they are
    diagnostics_pack: bool  # Oracle: the Diagnostics Pack is licensed (AWR views allowed)
    statspack: str  # Oracle: "BEGIN:END" snap ids
    awr: str  # Oracle: "BEGIN:END" snap ids
    dbid: int  # Oracle history: another database's snapshots in the same repository
    instance_number: int
    user: str  # Oracle: credentials and wallet when not in the connect string
    password: str
    config_dir: str
    wallet_location: str
    wallet_password: str


@dataclass
class CollectContext:
    """Mutable scratchpad the collectors of one snapshot write into."""

    server: ServerInfo | None = None
    files: list[FileIO] = field(default_factory=list)
    views: dict[str, list[ViewRow]] = field(default_factory=dict)
    wait: WaitProfile = field(default_factory=WaitProfile)
    layout: HostLayout | None = None
    warnings: list[str] = field(default_factory=list)
    options: CollectOptions = field(default_factory=lambda: CollectOptions())
    taken_at: str | None = None
    segments: list[SegmentIO] = field(default_factory=list)  # Oracle per-segment counters


def utc_now_iso() -> str:
    """Current UTC time in ISO 8601 with offset, the format every document uses."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


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
