"""The fleet ranking as a terminal table, json, markdown or html: drawing only, no computation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.jsonio import encode
from advisor.render.safe import html_text, markdown_cell, rich_text
from advisor.repo.fleet import FleetReport, InstanceAdvice, WindowAdvice

if TYPE_CHECKING:
    from rich.console import Console

HEADERS = ("#", "instance", "host/name", "snaps", "period h", "saved s/h", "saved %", "IO wait",
           "busiest window (UTC)", "saved s/h", "saved %", "findings")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}"


def _best(item: InstanceAdvice) -> WindowAdvice | None:
    return max(item.busiest, key=lambda w: w.saved_s_per_h, default=None)


def _short(at: str) -> str:
    return at[5:16].replace("T", " ")


def row(item: InstanceAdvice) -> tuple[str, ...]:
    """The cells of one instance's line (the same in every format)."""
    period, best = item.period, _best(item)
    findings = ", ".join(period.findings) if period else "; ".join(item.warnings)
    if period and not period.planned:  # the full reason is the window's ``note`` (json)
        findings = "no plan: not IO bound" if "NOT_IO_BOUND" in period.findings else "no plan"
    return (
        str(item.rank), item.instance_id, f"{item.host}/{item.name}", str(item.snapshots),
        f"{period.interval_s / 3600:.1f}" if period else "-",
        f"{period.saved_s_per_h:.1f}" if period else "-",
        _pct(period.saved_share) if period else "-",
        _pct(period.io_wait_share) if period else "-",
        f"{_short(best.started_at)}–{best.ended_at[11:16]}" if best else "-",
        f"{best.saved_s_per_h:.1f}" if best else "-",
        _pct(best.saved_share) if best else "-",
        findings,
    )


def _title(report: FleetReport) -> str:
    return (f"advisor fleet: {len(report.instances)} instances, {report.since} .. {report.until}, "
            f"ranked by disk time saved over the period (busiest {report.windows} windows shown by the best)")


TERMINAL_COLUMNS = (0, 2, 5, 6, 7, 9, 10, 11)
"""The columns that fit 80 characters: rank, host/name, period and best-window savings, IO wait, findings."""


def render_terminal(report: FleetReport, console: Console, limit: int | None = None) -> None:
    """A rich table, best first (instance ids and window times are in json/markdown/html)."""
    from rich import box
    from rich.table import Table

    table = Table(title=_title(report), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for n in TERMINAL_COLUMNS:
        header = {9: "peak s/h", 10: "peak %", 7: "IO wait %"}.get(n, HEADERS[n])
        table.add_column(header, justify="right" if n in (0, 5, 6, 7, 9, 10) else "left",
                         overflow="fold", no_wrap=n not in (2, 11))
    for item in report.instances[:limit]:
        cells = row(item)
        table.add_row(*(rich_text(cells[n]) for n in TERMINAL_COLUMNS))
    console.print(table)
    if limit is not None and len(report.instances) > limit:
        console.print(f"... {len(report.instances) - limit} more (--limit 0 shows all)")


def render_markdown(report: FleetReport, limit: int | None = None) -> str:
    """A GitHub-flavoured markdown table."""
    lines = [f"# {markdown_cell(_title(report))}", "", "| " + " | ".join(HEADERS) + " |",
             "|" + "|".join("---:" if n in (0, 3, 4, 5, 6, 7, 9, 10) else "---" for n in range(len(HEADERS))) + "|"]
    lines += ["| " + " | ".join(markdown_cell(c) for c in row(item)) + " |" for item in report.instances[:limit]]
    return "\n".join(lines) + "\n"


def render_html(report: FleetReport, limit: int | None = None) -> str:
    """One self-contained page (no scripts, no external resources)."""
    head = "".join(f"<th>{html_text(h)}</th>" for h in HEADERS)
    body = "".join("<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row(item)) + "</tr>\n"
                   for item in report.instances[:limit])
    return (
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>advisor fleet</title>"
        "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
        "padding:2px 6px}td:nth-child(n+4):nth-child(-n+11){text-align:right}</style></head><body>\n"
        f"<h1>{html_text(_title(report))}</h1>\n<table class=\"fleet\"><thead><tr>{head}</tr></thead><tbody>\n"
        f"{body}</tbody></table>\n</body></html>\n"
    )


def render_json(report: FleetReport) -> bytes:
    """The whole document (every window of every instance)."""
    return encode(report)
