"""The fleet ranking's detail: the first instances advised over their whole period as one interval.

The ranking's period sums the interval summaries (each interval with its own plan); the
detail is what ``advisor report FIRST LAST`` says over the same snapshots. Drawing only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from advisor.fleet.model import RANKED_VERDICTS


class DetailWindow(Protocol):
    """What a detail row reads of a window (``advisor.fleet.model.WindowAdvice``)."""

    @property
    def started_at(self) -> str: ...
    @property
    def ended_at(self) -> str: ...
    @property
    def saved_s_per_h(self) -> float: ...
    @property
    def saved_share(self) -> float: ...
    @property
    def before_ms(self) -> float | None: ...
    @property
    def after_ms(self) -> float | None: ...
    @property
    def findings(self) -> tuple[str, ...]: ...
    @property
    def verdict(self) -> str: ...


class DetailInstance(Protocol):
    """What a detail row reads of an instance (``advisor.fleet.model.InstanceAdvice``)."""

    @property
    def rank(self) -> int: ...
    @property
    def instance_id(self) -> str: ...
    @property
    def detail(self) -> DetailWindow | None: ...


class Ranking(Protocol):
    """A fleet ranking as the detail rows read it (``advisor.fleet.model.FleetReport``)."""

    @property
    def instances(self) -> Sequence[DetailInstance]: ...


DETAIL_HEADERS = ("#", "instance", "from", "to", "saved s/h", "saved %", "ms now", "ms plan", "advice")


def detail_rows(report: Ranking) -> list[tuple[str, ...]]:
    """One row per instance with a detail, in rank order."""
    rows: list[tuple[str, ...]] = []
    for item in report.instances:
        w = item.detail
        if w is None:
            continue
        ranked = w.verdict in RANKED_VERDICTS
        rows.append((f"#{item.rank}", item.instance_id, w.started_at[5:16].replace("T", " "),
                     w.ended_at[5:16].replace("T", " "), f"{w.saved_s_per_h:.1f}" if ranked else "-",
                     f"{w.saved_share * 100:.1f}" if ranked else "-",
                     "-" if w.before_ms is None else f"{w.before_ms:.2f}",
                     "-" if w.after_ms is None else f"{w.after_ms:.2f}",
                     ", ".join(w.findings) if w.verdict == "saves" else w.verdict))
    return rows


DETAIL_TITLE = "whole period as one interval (what `advisor report FIRST LAST` says)"
