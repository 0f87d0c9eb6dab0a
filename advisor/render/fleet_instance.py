"""``fleet show`` in every format: the instance's windows, its tablespaces, the chosen window's report.

Drawing only: the windows and the report come from :mod:`advisor.fleet.show`; the report is
drawn by the ordinary report renderers. The terminal's two tables fit 80 columns: a window's
label (what ``--window`` takes) is never cut, the advice wraps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.fleet.model import RANKED_VERDICTS, WindowAdvice
from advisor.fleet.show import ShownInstance
from advisor.model import AreaRow
from advisor.render.safe import html_text, markdown_cell, rich_text
from advisor.render.tables import html_table, markdown_table

if TYPE_CHECKING:
    from rich.console import Console

WINDOW_HEADERS = ("window", "source", "from", "to", "IO/s", "wait %", "plan", "ms now", "ms plan", "saved s/h",
                  "saved %", "advice", "findings")
SPACE_HEADERS = ("tablespace", "files", "read IO/s", "write IO/s", "read MiB/s")


def _verdict(w: WindowAdvice) -> str:
    """The window's advice in words; the times now and after the plan when there is one."""
    times = f"{w.before_ms:.2f} -> {w.after_ms:.2f} ms" if w.before_ms is not None and w.after_ms is not None else ""
    if w.verdict == "saves":
        return times
    if w.verdict == "no plan":
        return "no plan: not IO bound" if "NOT_IO_BOUND" in w.findings else "no plan"
    if w.verdict == "sizes unknown":
        return "sizes unknown: give --sizes"
    return f"{w.verdict} ({times})" if times else w.verdict


def window_row(w: WindowAdvice) -> tuple[str, ...]:
    """The cells of one window's line (the same in every format)."""
    def num(v: float | None, digits: int = 2) -> str:
        return "-" if v is None else f"{v:.{digits}f}"

    ranked = w.verdict in RANKED_VERDICTS
    return (w.label, w.source, w.started_at[5:16].replace("T", " "), w.ended_at[5:16].replace("T", " "),
            num(w.db_iops, 1), num(None if w.io_wait_share is None else w.io_wait_share * 100, 1),
            "yes" if w.planned else "no", num(w.before_ms), num(w.after_ms),
            num(w.saved_s_per_h, 1) if ranked else "-", num(w.saved_share * 100, 1) if ranked else "-",
            _verdict(w), ", ".join(w.findings))


def area_rates(areas: tuple[AreaRow, ...]) -> list[dict[str, Any]]:
    """The json's tablespace rows (a report's MB is already 2^20)."""
    return [{"tablespace": a.name, "files": a.files, "read_iops": a.read_iops, "write_iops": a.write_iops,
             "read_mib_s": round(a.read_mb_s, 3)} for a in areas]


def _space_row(r: dict[str, Any]) -> tuple[str, ...]:
    return (str(r["tablespace"]), str(r["files"]), f"{r['read_iops']:.1f}", f"{r['write_iops']:.1f}",
            f"{r['read_mib_s']:.2f}")


def _rows(shown: ShownInstance) -> tuple[list[tuple[str, ...]], list[dict[str, Any]], list[tuple[str, ...]]]:
    rates = area_rates(shown.areas)
    return [window_row(w) for w in shown.windows], rates, [_space_row(r) for r in rates]


def render_json(shown: ShownInstance) -> bytes:
    """The instance, the chosen window, its tablespaces and its whole report."""
    from advisor.model.jsonio import encode

    return encode({"document": "fleet-instance", "format_version": 2, "instance": shown.item, "window": shown.label,
                   "tablespaces": area_rates(shown.areas), "report": shown.report})


def render_markdown(shown: ShownInstance) -> str:
    """Both tables, then the report as ``advisor report -f markdown`` writes it."""
    from advisor.render.markdown import render_markdown as report_markdown

    rows, _rates, spaces = _rows(shown)
    return (f"# {markdown_cell(shown.title)}\n\n## Windows\n\n" + "\n".join(markdown_table(WINDOW_HEADERS, rows))
            + f"\n\n## Tablespaces ({markdown_cell(shown.label)})\n\n"
            + "\n".join(markdown_table(SPACE_HEADERS, spaces)) + "\n\n" + report_markdown(shown.report))


def render_html(shown: ShownInstance) -> str:
    """The report's page with both tables above it."""
    from advisor.render.html import render_html as report_html

    rows, _rates, spaces = _rows(shown)
    return report_html(shown.report, before=f"<h1>{html_text(shown.title)}</h1>\n"
                                            f"{html_table(WINDOW_HEADERS, rows, css_class='fleet')}\n"
                                            f"<h2>Tablespaces ({html_text(shown.label)})</h2>\n"
                                            f"{html_table(SPACE_HEADERS, spaces, css_class='fleet')}\n")


def render_terminal(shown: ShownInstance, console: Console) -> None:
    """Two tables that fit 80 columns, then the report as ``advisor report`` prints it."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from advisor.render.terminal import render_terminal as report_terminal

    rows, _rates, spaces = _rows(shown)
    table = Table(title=rich_text(shown.title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  collapse_padding=True)
    table.add_column("window\nsource", no_wrap=True)
    table.add_column("from\nto", no_wrap=True)  # snapshots: UTC; reports: their own clock
    for header in ("IO/s", "IO\nwait %", "saved\ns/h", "saved\n%"):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("advice", overflow="fold", ratio=1)
    for r in rows:
        table.add_row(Text("\n").join(rich_text(c) for c in r[0:2]), Text("\n").join(rich_text(c) for c in r[2:4]),
                      *(rich_text(r[n]) for n in (4, 5, 9, 10)), rich_text(r[11]))
    console.print(table)
    spaces_table = Table(title=rich_text(f"tablespaces ({shown.label})"), title_justify="left", box=box.SIMPLE_HEAD,
                         pad_edge=False)
    for n, header in enumerate(SPACE_HEADERS):
        spaces_table.add_column(header, justify="left" if n == 0 else "right", overflow="fold", no_wrap=n > 0)
    for r in spaces:
        spaces_table.add_row(*(rich_text(c) for c in r))
    console.print(spaces_table)
    report_terminal(shown.report, console)
