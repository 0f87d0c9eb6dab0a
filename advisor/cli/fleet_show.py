"""`advisor fleet show INSTANCE`: one instance's windows, its tablespaces, and a full report.

The full report is the ordinary ``advisor report`` of the chosen window (the whole period by
default), rendered by the same renderers; above it, every advised window and the
per-tablespace rates of the chosen window's report (the engine's areas).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.cli.common import OutputFormat, emit
from advisor.errors import BadInput
from advisor.render.safe import html_text, markdown_cell, rich_text
from advisor.render.tables import html_table, markdown_table

if TYPE_CHECKING:
    from rich.console import Console

    from advisor.engine.advise import Models
    from advisor.model import Report
    from advisor.repo.fleet import InstanceAdvice, Judging, WindowAdvice

WINDOW_HEADERS = ("window", "source", "from", "to", "IO/s", "wait %", "plan", "ms now", "ms plan", "saved s/h",
                  "saved %", "advice", "findings")
SPACE_HEADERS = ("tablespace", "files", "read IO/s", "write IO/s", "read MiB/s")
RANKED = frozenset({"saves", "no change worth making"})


def _windows(item: InstanceAdvice) -> list[WindowAdvice]:
    return ([item.period] if item.period else []) + list(item.busiest)


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


def _window_row(w: WindowAdvice) -> tuple[str, ...]:
    def num(v: float | None, digits: int = 2) -> str:
        return "-" if v is None else f"{v:.{digits}f}"

    ranked = w.verdict in RANKED
    return (w.label, w.source, w.started_at[5:16].replace("T", " "), w.ended_at[5:16].replace("T", " "),
            num(w.db_iops, 1), num(None if w.io_wait_share is None else w.io_wait_share * 100, 1),
            "yes" if w.planned else "no", num(w.before_ms), num(w.after_ms),
            num(w.saved_s_per_h, 1) if ranked else "-", num(w.saved_share * 100, 1) if ranked else "-",
            _verdict(w), ", ".join(w.findings))


def _area_rates(report: Report) -> list[dict[str, Any]]:
    """Rates per area from the window's report: the engine's rates (its reset rule, its units), never
    a second computation in SQL."""
    return [{"tablespace": a.name, "files": a.files, "read_iops": a.read_iops, "write_iops": a.write_iops,
             "read_mib_s": round(a.read_mb_s, 3)} for a in report.areas]  # a report's MB is already 2^20


def _space_row(r: dict[str, Any]) -> tuple[str, ...]:
    return (str(r["tablespace"]), str(r["files"]), f"{r['read_iops']:.1f}", f"{r['write_iops']:.1f}",
            f"{r['read_mib_s']:.2f}")


def _markdown_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    return "\n".join(markdown_table(headers, rows)) + "\n"


def _html_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    return html_table(headers, rows, css_class="fleet") + "\n"


def show_instance(conn: Any, name: str, models: Models, since: dt.datetime, until: dt.datetime, windows: int,
                  label: str, judging: Judging, fmt: OutputFormat, output: Path | None) -> None:
    """Advise one instance and print its windows, tablespaces and the chosen window's report."""
    from advisor.cli.fleet import warn_skipped
    from advisor.repo.fleet import fleet_report, resolve_instance

    key = resolve_instance(conn, name)
    reports: dict[str, Report] = {}
    result = fleet_report(conn, models, since=since, until=until, windows=windows, force=judging.force, only=key,
                          keep=reports.__setitem__, min_gain=judging.min_gain)
    warn_skipped(result)
    if not result.instances or result.instances[0].period is None:
        raise BadInput(f"{key} has neither two comparable snapshots nor a workload between {result.since} and "
                       f"{result.until}", hint="widen --since")
    item = result.instances[0]
    if label == "period" and label not in reports and item.busiest:  # workloads only: the latest one
        label = item.busiest[-1].label
    if label not in reports:
        raise BadInput(f"--window {label!r}: this instance has {', '.join(reports)}")
    rates = _area_rates(reports[label])  # the engine's areas: the same rows as `advisor report`
    spaces = [_space_row(r) for r in rates]
    title = f"{item.instance_id} ({item.host}/{item.name}): {item.evidence} {item.first_at} .. {item.last_at}"
    rows = [_window_row(w) for w in _windows(item)]
    report = reports[label]
    from advisor.model.jsonio import encode
    from advisor.render.html import render_html
    from advisor.render.markdown import render_markdown
    from advisor.render.terminal import render_terminal

    def terminal(console: Console) -> None:
        _terminal(console, title, rows, spaces, label)
        render_terminal(report, console)

    emit(fmt, output, terminal=terminal,
         json=lambda: encode({"document": "fleet-instance", "format_version": 2, "instance": item, "window": label,
                              "tablespaces": rates, "report": report}),
         markdown=lambda: (f"# {markdown_cell(title)}\n\n## Windows\n\n{_markdown_table(WINDOW_HEADERS, rows)}\n"
                           f"## Tablespaces ({markdown_cell(label)})\n\n{_markdown_table(SPACE_HEADERS, spaces)}\n"
                           f"{render_markdown(report)}"),
         html=lambda: render_html(report, before=f"<h1>{html_text(title)}</h1>\n{_html_table(WINDOW_HEADERS, rows)}"
                                                 f"<h2>Tablespaces ({html_text(label)})</h2>\n"
                                                 f"{_html_table(SPACE_HEADERS, spaces)}"))


def _terminal(console: Console, title: str, rows: list[tuple[str, ...]], spaces: list[tuple[str, ...]],
              label: str) -> None:
    """Two tables that fit 80 columns: a window's label (what --window takes) is never cut, the advice wraps."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=rich_text(title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
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
    spaces_table = Table(title=rich_text(f"tablespaces ({label})"), title_justify="left", box=box.SIMPLE_HEAD,
                         pad_edge=False)
    for n, header in enumerate(SPACE_HEADERS):
        spaces_table.add_column(header, justify="left" if n == 0 else "right", overflow="fold", no_wrap=n > 0)
    for r in spaces:
        spaces_table.add_row(*(rich_text(c) for c in r))
    console.print(spaces_table)
