"""``fleet show``: one instance's windows advised, and the full report of the one asked for.

The full report is the ordinary ``advisor report`` of the chosen window (the whole period by
default; a workloads-only instance's latest workload), made by the one entry
(:mod:`advisor.fleet.window`); the rates per tablespace are that report's areas (the
engine's rates, its reset rule, its units), never a second computation in SQL.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from advisor.engine.advise import Models
from advisor.errors import BadInput
from advisor.fleet.instances import fleet_report, resolve_instance
from advisor.fleet.model import FleetReport, InstanceAdvice, WindowAdvice
from advisor.fleet.window import Judging
from advisor.model import AreaRow, Report


@dataclass(frozen=True)
class ShownInstance:
    """One instance as ``fleet show`` prints it: its windows, and the chosen window's report."""

    ranking: FleetReport  # the instance alone
    item: InstanceAdvice
    label: str  # the chosen window
    report: Report

    @property
    def windows(self) -> list[WindowAdvice]:
        """The period first, then the busiest windows and the workloads."""
        return ([self.item.period] if self.item.period else []) + list(self.item.busiest)

    @property
    def areas(self) -> tuple[AreaRow, ...]:
        """Rates per area of the chosen window: the same rows as ``advisor report``."""
        return self.report.areas

    @property
    def title(self) -> str:
        item = self.item
        return f"{item.instance_id} ({item.host}/{item.name}): {item.evidence} {item.first_at} .. {item.last_at}"


def shown_instance(conn: Any, name: str, models: Models, since: dt.datetime, until: dt.datetime, windows: int,
                   label: str, judging: Judging, skipped: Callable[[FleetReport], None]) -> ShownInstance:
    """Advise the instance *name* names over [since, until] and pick the window *label* (BadInput: none).

    *skipped* sees the instance's ranking first, so the rows it left out are named even when no
    window can be shown.
    """
    key = resolve_instance(conn, name)
    reports: dict[str, Report] = {}
    result = fleet_report(conn, models, since=since, until=until, windows=windows, force=judging.force, only=key,
                          keep=reports.__setitem__, min_gain=judging.min_gain)
    skipped(result)
    if not result.instances or result.instances[0].period is None:
        raise BadInput(f"{key} has neither two comparable snapshots nor a workload between {result.since} and "
                       f"{result.until}", hint="widen --since")
    item = result.instances[0]
    if label == "period" and label not in reports and item.busiest:  # workloads only: the latest one
        label = item.busiest[-1].label
    if label not in reports:
        raise BadInput(f"--window {label!r}: this instance has {', '.join(reports)}")
    return ShownInstance(result, item, label, reports[label])
