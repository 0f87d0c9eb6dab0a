"""The fleet ranking as a terminal table, json, markdown or html: drawing only, no computation.

The terminal table fits 80 columns (piped output is as wide as ``COLUMNS`` says, else 120):
the instance id, which ``fleet show`` takes, is never cut (one wider than the room beside the
figures folds over several lines); host/name and the evidence go under it in the same cell,
the advice wraps. Markdown and html carry every column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.fleet.instances import FleetReport, InstanceAdvice, WindowAdvice
from advisor.fleet.model import RANKED_VERDICTS, headline
from advisor.model.jsonio import encode
from advisor.render.fleet import DETAIL_HEADERS, DETAIL_TITLE, detail_rows
from advisor.render.safe import html_text, markdown_cell, rich_text
from advisor.render.tables import html_table, markdown_table

if TYPE_CHECKING:
    from rich.console import Console

HEADERS = ("#", "instance", "host/name", "evidence", "period h", "saved s/h", "saved %", "IO wait %", "read s/h",
           "busiest window (UTC)", "peak s/h", "peak %", "advice")
RANKED = RANKED_VERDICTS
"""Verdicts whose saving is shown as a figure; the others show "-" and say why in the advice."""


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}"


def _best(item: InstanceAdvice) -> WindowAdvice | None:
    return max((w for w in item.busiest if w.verdict in RANKED), key=lambda w: w.saved_s_per_h, default=None)


def _short(at: str) -> str:
    return at[5:16].replace("T", " ")


def advice(item: InstanceAdvice, min_gain: float) -> str:
    """The advice column: the verdict in words (findings when it saves)."""
    period = item.period
    text = headline(period, item.warnings)
    if period is not None and period.verdict == "no change worth making":
        text += f" (under {min_gain:.0%})"
    elif period is not None and period.verdict == "nothing to gain" and period.saved_s_per_h < 0:
        text += f" (plan: {period.saved_s_per_h:+.1f} s/h)"
    return text


def row(item: InstanceAdvice, min_gain: float = 0.05) -> tuple[str, ...]:
    """The cells of one instance's line (the same in every format)."""
    period, best = item.period, _best(item)
    ranked = period is not None and period.verdict in RANKED
    return (
        str(item.rank), item.instance_id, f"{item.host}/{item.name}", item.evidence or f"{item.snapshots} snapshots",
        f"{period.interval_s / 3600:.1f}" if period else "-",
        f"{period.saved_s_per_h:.1f}" if period and ranked else "-",
        _pct(period.saved_share) if period and ranked else "-",
        _pct(period.io_wait_share) if period else "-",
        f"{period.read_s_per_h:.1f}" if period and period.read_s_per_h is not None else "-",
        f"{_short(best.started_at)}–{best.ended_at[11:16]}" if best else "-",
        f"{best.saved_s_per_h:.1f}" if best else "-",
        _pct(best.saved_share) if best else "-",
        advice(item, min_gain),
    )


def _title(report: FleetReport) -> str:
    return (f"advisor fleet: {len(report.instances)} instances, {report.since} .. {report.until}, "
            f"ranked by disk time saved over the period; savings under {report.min_gain:.0%} are no change "
            "worth making")


def render_terminal(report: FleetReport, console: Console, limit: int | None = None) -> None:
    """A rich table that fits 80 columns, best first (every column is in json/markdown/html)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=rich_text(_title(report)), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  collapse_padding=True)
    shown = report.instances[:limit]
    table.add_column("#", justify="right", no_wrap=True)
    widest = max((rich_text(item.instance_id).cell_len for item in shown), default=8)
    cap = id_width_cap(console.width)
    table.add_column("instance\nhost/name, evidence", **_id_column(widest, cap))
    for header in ("saved\ns/h", "saved\n%", "IO\nwait %"):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("advice", overflow="fold")
    for item in shown:
        cells = row(item, report.min_gain)
        under = [rich_text(c) for c in cells[1:4]]
        lines = [under[0], *(part for text in under[1:] for part in text.wrap(console, min(max(widest, 28), cap)))]
        table.add_row(rich_text(cells[0]), Text("\n").join(lines),
                      *(rich_text(cells[n]) for n in (5, 6, 7)), rich_text(cells[12]))
    console.print(table)
    if limit is not None and len(report.instances) > limit:
        console.print(f"... {len(report.instances) - limit} more (--limit 0 shows all)")
    details = detail_rows(report)
    if details:
        extra = Table(title=DETAIL_TITLE, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                      collapse_padding=True)
        widest_detail = max(rich_text(cells[1]).cell_len for cells in details)
        for n, header in enumerate(("#", "instance", "saved s/h", "saved %", "advice")):
            layout: dict[str, Any] = _id_column(widest_detail, cap) if n == 1 else {"no_wrap": n < 4}
            extra.add_column(header, justify="right" if n in (0, 2, 3) else "left", **{"overflow": "fold", **layout})
        for cells in details:
            extra.add_row(*(rich_text(cells[n]) for n in (0, 1, 4, 5, 8)))
        console.print(extra)


_BESIDE_ID = 40
"""Columns the rest of a row needs beside the instance id (rank, three figures, some advice)."""


def id_width_cap(width: int) -> int:
    """The widest an instance id is shown on one line at *width* columns (a longer one folds)."""
    return max(28, width - _BESIDE_ID)


def _id_column(widest: int, cap: int) -> dict[str, Any]:
    """The instance column: never cut; one line per id while ids fit beside the figures, folded beyond.

    An id wider than the table (a 100,000-character identity an older advisor stored) would
    otherwise squeeze every other column to "…".
    """
    if widest <= cap:
        return {"no_wrap": True}
    return {"no_wrap": False, "overflow": "fold", "max_width": cap}


def render_markdown(report: FleetReport, limit: int | None = None) -> str:
    """A GitHub-flavoured markdown table."""
    right = (0, 4, 5, 6, 7, 8, 10, 11)
    lines = [f"# {markdown_cell(_title(report))}", "",
             *markdown_table(HEADERS, [row(item, report.min_gain) for item in report.instances[:limit]], right)]
    details = detail_rows(report)
    if details:
        lines += ["", f"## {markdown_cell(DETAIL_TITLE)}", "", *markdown_table(DETAIL_HEADERS, details)]
    return "\n".join(lines) + "\n"


def render_html(report: FleetReport, limit: int | None = None) -> str:
    """One self-contained page (no scripts, no external resources)."""
    table = html_table(HEADERS, [row(item, report.min_gain) for item in report.instances[:limit]], css_class="fleet",
                       line_per_row=True)
    details = detail_rows(report)
    if details:
        table += (f"\n<h2>{html_text(DETAIL_TITLE)}</h2>\n"
                  + html_table(DETAIL_HEADERS, details, css_class="fleet-detail", line_per_row=True))
    return (
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>advisor fleet</title>"
        "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
        "padding:2px 6px}td{overflow-wrap:anywhere}td:nth-child(n+5):nth-child(-n+12){text-align:right;"
        "white-space:nowrap}</style></head><body>\n"  # a name wider than the window breaks, figures stay whole
        f"<h1>{html_text(_title(report))}</h1>\n{table}\n</body></html>\n"
    )


def render_json(report: FleetReport) -> bytes:
    """The whole document (every window of every instance)."""
    return encode(report)
