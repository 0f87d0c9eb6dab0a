"""`advisor fleet show INSTANCE`: one instance's windows, its tablespaces, and a full report.

The full report is the ordinary ``advisor report`` of the chosen window (the whole period by
default), rendered by the same renderers; above it, every advised window and the
per-tablespace rates the repository's per-file rows give for that window.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.cli.common import OutputFormat, emit, stdout_console
from advisor.errors import BadInput
from advisor.render.safe import html_text, markdown_cell, rich_text

if TYPE_CHECKING:
    from advisor.engine.advise import Models
    from advisor.model import Report
    from advisor.repo.fleet import InstanceAdvice, WindowAdvice

WINDOW_HEADERS = ("window", "from (UTC)", "to", "IO/s", "wait %", "plan", "ms now", "ms plan", "saved s/h",
                  "saved %", "findings")
SPACE_HEADERS = ("tablespace", "files", "read IO/s", "write IO/s", "read MiB/s")


def _windows(item: InstanceAdvice) -> list[WindowAdvice]:
    return ([item.period] if item.period else []) + list(item.busiest)


def _window_row(w: WindowAdvice) -> tuple[str, ...]:
    def num(v: float | None, digits: int = 2) -> str:
        return "-" if v is None else f"{v:.{digits}f}"

    return (w.label, w.started_at[5:16].replace("T", " "), w.ended_at[11:16], num(w.db_iops, 1),
            num(None if w.io_wait_share is None else w.io_wait_share * 100, 1), "yes" if w.planned else "no",
            num(w.before_ms), num(w.after_ms), num(w.saved_s_per_h, 1), num(w.saved_share * 100, 1),
            ", ".join(w.findings))


def _space_row(r: dict[str, Any]) -> tuple[str, ...]:
    return (str(r["tablespace"]), str(r["files"]), f"{r['read_iops']:.1f}", f"{r['write_iops']:.1f}",
            f"{r['read_mib_s']:.2f}")


def _markdown_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(markdown_cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _html_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    head = "".join(f"<th>{html_text(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table class=\"fleet\"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n"


def show_instance(conn: Any, name: str, models: Models, since: dt.datetime, until: dt.datetime, windows: int,
                  label: str, force: bool, fmt: OutputFormat, output: Path | None) -> None:
    """Advise one instance and print its windows, tablespaces and the chosen window's report."""
    from advisor.cli.reporting import output_report
    from advisor.repo.fleet import fleet_report, resolve_instance, tablespace_rates

    if output is not None and fmt is OutputFormat.terminal:
        raise BadInput("--output with the terminal format: use --format markdown, html or json for a file")
    from advisor.cli.fleet import warn_skipped

    key = resolve_instance(conn, name)
    reports: dict[str, Report] = {}
    result = fleet_report(conn, models, since=since, until=until, windows=windows, force=force, only=key,
                          keep=reports.__setitem__)
    warn_skipped(result)
    if not result.instances or result.instances[0].period is None:
        raise BadInput(f"{key} has fewer than two comparable snapshots between {result.since} and {result.until}",
                       hint="widen --since")
    item = result.instances[0]
    if label not in reports:
        raise BadInput(f"--window {label!r}: this instance has {', '.join(reports)}")
    chosen = next(w for w in _windows(item) if w.label == label)
    rates = tablespace_rates(conn, key, chosen.started_at, chosen.ended_at)
    spaces = [_space_row(r) for r in rates]
    title = (f"{item.instance_id} ({item.host}/{item.name}): {item.snapshots} snapshots "
             f"{item.first_at} .. {item.last_at}")
    rows = [_window_row(w) for w in _windows(item)]
    report = reports[label]
    if fmt is OutputFormat.json:
        from advisor.jsonio import encode

        emit(encode({"document": "fleet-instance", "format_version": 1, "instance": item, "window": label,
                     "tablespaces": rates,
                     "report": report}), output)
        return
    if fmt is OutputFormat.markdown:
        from advisor.render.markdown import render_markdown

        emit(f"# {markdown_cell(title)}\n\n## Windows\n\n{_markdown_table(WINDOW_HEADERS, rows)}\n"
             f"## Tablespaces ({markdown_cell(label)})\n\n{_markdown_table(SPACE_HEADERS, spaces)}\n"
             f"{render_markdown(report)}", output)
        return
    if fmt is OutputFormat.html:
        from advisor.render.html import render_html

        page = render_html(report)
        head = (f"<h1>{html_text(title)}</h1>\n{_html_table(WINDOW_HEADERS, rows)}"
                f"<h2>Tablespaces ({html_text(label)})</h2>\n{_html_table(SPACE_HEADERS, spaces)}")
        at = page.find("<body")
        at = page.find(">", at) + 1 if at >= 0 else 0
        emit(page[:at] + head + page[at:], output)
        return
    _terminal(title, rows, spaces, label)
    output_report(report, OutputFormat.terminal, None)


def _terminal(title: str, rows: list[tuple[str, ...]], spaces: list[tuple[str, ...]], label: str) -> None:
    from rich import box
    from rich.table import Table

    console = stdout_console()
    for caption, headers, body in ((title, WINDOW_HEADERS, rows), (f"tablespaces ({label})", SPACE_HEADERS, spaces)):
        table = Table(title=rich_text(caption), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        shown = [n for n, h in enumerate(headers) if h != "findings"]  # the report below lists them
        for n in shown:
            table.add_column(headers[n], justify="left" if n == 0 else "right", no_wrap=True)
        for r in body:
            table.add_row(*(rich_text(r[n]) for n in shown))
        console.print(table)
