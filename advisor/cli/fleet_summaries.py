"""`fleet report` by the interval summaries: summarise what waits, rank by SQL, detail the first.

The CLI side of :mod:`advisor.repo.fleet_rank`: as the owner it first drains the summariser's
queue and recomputes summaries of another engine version, then ranks; the first instances
are advised again over their whole period by the engine (what ``advisor report FIRST
LAST`` says).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from advisor.repo.fleet import FleetReport


def from_summaries(conn: Any, models: Any, start: dt.datetime, end: dt.datetime, windows: int, min_gain: float,
                    detail: int, shown: int | None) -> FleetReport:
    """Summarise what waits (when this role may), then rank by SQL; the engine for the first *detail*."""
    from advisor.cli.push import default_summarizer
    from advisor.repo.fleet import fleet_report
    from advisor.repo.fleet_rank import ranked_from_summaries
    from advisor.repo.summaries import drain, may_summarise, requeue_stale

    summarizer = default_summarizer()
    if may_summarise(conn):
        requeue_stale(conn, summarizer)
        for why in drain(conn, summarizer).failed:
            typer.echo(f"advisor: warning: interval not summarised: {why}", err=True)

    def whole(key: str) -> Any:
        from advisor.errors import AdvisorError

        try:
            found = fleet_report(conn, models, since=start, until=end, windows=0, only=key,
                                 min_gain=min_gain).instances
        except AdvisorError:
            return None
        return replace(found[0].period, label="whole period") if found and found[0].period else None

    return ranked_from_summaries(conn, summarizer.models_key, since=start, until=end, windows=windows,
                                 min_gain=min_gain, detail=detail, advise_period=whole, shown=shown)
