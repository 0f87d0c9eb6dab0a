"""The terminal page of ``advisor workload``: drawing only.

The command computes the figures (per-tablespace rows from :mod:`advisor.rates.areas`, the
cached-read notes of the engine, the wait lines of :mod:`advisor.rates.io_share`) and hands them
over in a :class:`WorkloadPage`; this module prints them in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from advisor.render.rates import file_table, fmt, has_patterns, no_write_counter, pattern_table, tablespace_table
from advisor.render.safe import shown
from advisor.render.segments import print_segments

if TYPE_CHECKING:
    from rich.console import Console

    from advisor.model import Workload
    from advisor.rates.areas import TablespaceRates


@dataclass(frozen=True)
class WorkloadPage:
    """What the page shows, computed before drawing."""

    workload: Workload
    tablespaces: Sequence[TablespaceRates]
    cache_notes: Sequence[str]
    wait_lines: Sequence[str] | None
    """Lines describing the IO share of DB time; ``None`` for the sampled-only summary line."""


def render_workload(console: Console, page: WorkloadPage, sort: str, top: int) -> None:
    """Header, coverage, cached reads, the wait, the tablespace and file tables, segments."""
    from advisor.model import coverage_lines

    result = page.workload
    server = result.server
    console.print(f"{server.dbms} {server.version} {server.name}: {result.started_at} → {result.ended_at} "
                  f"({result.interval_s:,.1f} s, {len(result.rates)} files)")
    for line in coverage_lines(result.coverage):
        console.print(line, markup=False, highlight=False)
    for line in page.cache_notes:
        console.print(shown(line), markup=False, highlight=False)
    wait = result.wait
    if page.wait_lines is None:
        console.print(f"IO wait share {wait.io_wait_share:.0%} of active time ({wait.samples} samples, "
                      f"{fmt(wait.active_sessions, 2)} active sessions on average)")
    else:
        for line in page.wait_lines:
            console.print(line, markup=False, highlight=False)
    console.print(tablespace_table(page.tablespaces, result.interval_s))
    if has_patterns(page.tablespaces):
        console.print(pattern_table(page.tablespaces, server.dbms == "postgres"))
    console.print(file_table(result, sort, top, console.width))
    why = no_write_counter(result)
    if why is not None:
        console.print(why, markup=False, highlight=False)
    if any(r.lower_bound for r in result.rates):
        console.print("* counter went backwards during the interval: rate counts only since the reset")
    print_segments(console, result, top)
