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
    from rich.table import Table

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
    # a report without per-file rows counts file types or tablespaces: not files
    rows = "files" if any(r.level == "file" for r in result.rates) or not result.rates else "rows"
    console.print(f"{server.dbms} {server.version} {server.name}: {result.started_at} → {result.ended_at} "
                  f"({result.interval_s:,.1f} s, {len(result.rates)} {rows})")
    for line in scope_lines(result):
        console.print(line, markup=False, highlight=False)
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
    if result.instances:
        console.print(instance_table(result))
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


def scope_lines(workload: Workload) -> list[str]:
    """What an imported report's rows stand for, and what it lacks (from the rows' typed fields).

    A global RAC report gives the database's IO by file type; a report without per-file rows
    gives tablespaces, which a plan moves whole. Said above the figures, so nobody reads a row
    of a whole tablespace or of every data file as one file.
    """
    lines = []
    if workload.instances:
        lines.append(f"global RAC report (awrgrpt.sql), {len(workload.instances)} instances summed: rows are file "
                     "types (no per-file or per-tablespace figures; awrrpti.sql per instance gives them)")
    if any(r.level == "tablespace" for r in workload.rates):
        lines.append("tablespace-level: the report has no per-file rows; each tablespace is one area (from "
                     "Tablespace IO Stats), and a plan moves its files together")
    if workload.server.settings.get("exadata") == "YES":
        lines.append("Exadata: the storage cells place the data on their disks and flash; zone placement does "
                     "not apply there")
    return lines


def instance_table(workload: Workload) -> Table:
    """Each instance's share of a global RAC report's requests, DB time and IO wait."""
    from advisor.render.cells import plain_table

    table = plain_table("Per instance (global RAC report)")
    for header in ("I#", "instance", "host", "min", "r/s", "w/s", "IO %", "DB time s", "IO wait s"):
        table.add_column(header, justify="left" if header in ("instance", "host") else "right", no_wrap=True)
    total = sum(i.read_iops + (i.write_iops or 0.0) for i in workload.instances)
    for i in workload.instances:
        io = i.read_iops + (i.write_iops or 0.0)
        table.add_row(str(i.instance_number), shown(i.instance), shown(i.host),
                      fmt(None if i.interval_s is None else i.interval_s / 60), fmt(i.read_iops), fmt(i.write_iops),
                      fmt(100.0 * io / total if total else None), fmt(i.db_time_s, 0), fmt(i.io_wait_s, 0))
    return table
