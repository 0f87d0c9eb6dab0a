"""The terminal page of ``advisor workload``: drawing only.

The command computes the figures (per-tablespace rows from :mod:`advisor.rates.areas`, the
cached-read notes of the engine, the wait lines of :mod:`advisor.rates.io_share`) and hands them
over in a :class:`WorkloadPage`; this module prints them in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from advisor.render.rates import file_table, fmt, has_patterns, no_write_counter, pattern_table, tablespace_table
from advisor.render.safe import shown
from advisor.render.segments import print_segments

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from advisor.model import TraceLoss, Workload
    from advisor.rates.areas import TablespaceRates


class TraceAreaFigures(Protocol):
    """One area's requests in a trace (``advisor.engine.trace_figures`` computes them)."""

    @property
    def area(self) -> str: ...
    @property
    def requests(self) -> int: ...
    @property
    def mean_kib(self) -> float: ...
    @property
    def read_share(self) -> float: ...


class TraceDiskFigures(Protocol):
    """One traced disk's figures (``advisor.engine.trace_figures``; a Protocol: render imports no engine)."""

    @property
    def disk(self) -> str: ...
    @property
    def requests(self) -> int: ...
    @property
    def span_s(self) -> float: ...
    @property
    def interval_s(self) -> float: ...
    @property
    def loss(self) -> TraceLoss: ...
    @property
    def loss_words(self) -> str | None: ...
    @property
    def flushes(self) -> int: ...
    @property
    def mean_in_flight(self) -> float | None: ...
    @property
    def max_in_flight(self) -> int: ...
    @property
    def issuers(self) -> tuple[tuple[str, int], ...]: ...
    @property
    def unnamed_processes(self) -> int: ...
    @property
    def notes(self) -> Sequence[str]: ...
    @property
    def refused(self) -> str | None: ...
    @property
    def areas(self) -> Sequence[TraceAreaFigures]: ...


@dataclass(frozen=True)
class WorkloadPage:
    """What the page shows, computed before drawing."""

    workload: Workload
    tablespaces: Sequence[TablespaceRates]
    cache_notes: Sequence[str]
    wait_lines: Sequence[str] | None
    """Lines describing the IO share of DB time; ``None`` for the sampled-only summary line."""
    traces: Sequence[TraceDiskFigures] = ()
    """Per traced disk (``collect --trace``): :mod:`advisor.engine.trace_figures`."""


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
    for trace in page.traces:
        for line in trace_lines(trace):
            console.print(shown(line), markup=False, highlight=False)
        if trace.areas:
            console.print(trace_area_table(trace))


def trace_lines(trace: TraceDiskFigures) -> list[str]:
    """One traced disk: requests and span, requests in flight, the loss counters, soundness."""
    loss = trace.loss
    counted = ("no diskstats row for it" if loss.diskstats_requests is None
               else f"{loss.diskstats_requests:,} requests counted")
    mean = "n/a" if trace.mean_in_flight is None else f"{trace.mean_in_flight:.2f}"
    lines = [
        f"Block-layer trace of {trace.disk} (collect --trace): {trace.requests:,} requests over "
        f"{trace.span_s:,.1f} s of the {trace.interval_s:,.1f} s interval, {trace.flushes:,} of them cache flushes",
        f"  in flight: {mean} on average, at most {trace.max_in_flight}",
        f"  tracer: {loss.overrun:,} ring-buffer overruns, {loss.dropped_events:,} dropped events",
        f"  diskstats: {counted}, {loss.traced_completions:,} completions traced, {loss.edge_requests:,} in flight "
        f"at the edges; missing {fmt_count(loss.missing_requests)}, excess {fmt_count(loss.excess_requests)}",
        f"  lost: {trace.loss_words or 'nothing'}",
    ]
    if trace.issuers:
        named = ", ".join(f"{name} {count}" for name, count in trace.issuers)
        lines.append(f"  processes: {named}; {trace.unnamed_processes} not named by the server (kernel threads, or "
                     "not seen while sampling)")
    if trace.refused is not None:
        lines.append(f"  unsound: {trace.refused}")
    else:
        lines.append("  sound: a replay may use it" + (" (with the notes below)" if trace.notes else ""))
    lines += [f"  note: {note}" for note in trace.notes]
    return lines


def fmt_count(value: int | None) -> str:
    """A count, or ``unknown`` (no diskstats to reconcile with)."""
    return "unknown" if value is None else f"{value:,}"


def trace_area_table(trace: TraceDiskFigures) -> Table:
    """Per area of one traced disk: its read and write requests, mean size, and the share of reads."""
    from advisor.render.cells import plain_table

    table = plain_table(f"Traced requests of {trace.disk} per area")
    for header in ("area", "requests", "KiB/IO", "reads", "writes"):
        table.add_column(header, justify="left" if header == "area" else "right", no_wrap=True)
    for row in trace.areas:
        table.add_row(shown(row.area), f"{row.requests:,}", f"{row.mean_kib:.1f}", f"{row.read_share:.0%}",
                      f"{1.0 - row.read_share:.0%}")
    return table


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
