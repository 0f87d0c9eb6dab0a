"""The report in a terminal (rich): summary, gate, findings, plan, disk map, zone curve.

rich is imported inside the functions so ``advisor --help`` does not pay for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from advisor.model import AuditMaps, DiskSummary, Finding, Report
from advisor.render.safe import rich_text, shown
from advisor.render.text import (
    area_name,
    assumed_areas,
    curve_source,
    evidence_text,
    gain_text,
    heat_colour,
    pct,
    report_notes,
    size_text,
    summarise_warnings,
    summary_lines,
)

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.text import Text


MAP_WIDTH = 64
SEVERITY_STYLE = {"critical": "bold white on red", "high": "bold red", "medium": "yellow", "low": "cyan",
                  "info": "dim"}
SPARK = " ▁▂▃▄▅▆▇█"


def _bar(spans: list[tuple[float, float, str, str]], width: int = MAP_WIDTH) -> Text:
    """A one-line map of *width* cells: each (start, end, label, colour) span from outer (left) to inner."""
    from rich.text import Text as RichText

    cells: list[tuple[str, str]] = [("·", "grey50")] * width
    taken = 0
    for lo, hi, label, colour in sorted(spans, key=lambda span: span[0]):
        # every area keeps at least one cell of its own, in order, even when it is tiny
        a = min(width - 1, max(int(lo * width), taken))
        b = max(a + 1, min(width, int(round(hi * width))))
        letters = shown(label or "#")[: b - a].ljust(b - a, "█")
        for i, ch in enumerate(letters):
            cells[a + i] = (ch, f"bold white on {colour}")
        taken = b
    text = RichText("outer ")
    for ch, style in cells:
        text.append(ch, style=style)
    text.append(" inner")
    return text


def disk_map(report: Report, with_current: bool = True, console_width: int = 80) -> list[RenderableType]:
    """Per disk: the areas now (heat coloured) and in the plan, outer edge on the left, one line each."""
    from rich.text import Text as RichText

    width = max(16, min(MAP_WIDTH, console_width - len("  plan outer  inner") - 1))

    out: list[RenderableType] = []
    disks = sorted({a.disk for a in report.areas if a.disk} |
                   ({p.disk for p in report.plan.partitions} if report.plan else set()))
    for disk in disks:
        areas = [a for a in report.areas if a.disk == disk]
        total = sum(a.iops for a in areas if a.zone_start is not None) or 1.0
        title = len(out)
        out.append(rich_text(disk, "bold"))
        if areas and with_current:
            spans = [(a.zone_start, a.zone_end, a.name, heat_colour(a.iops / total))
                     for a in areas if a.zone_start is not None and a.zone_end is not None]
            out.append(RichText("  now  ") + _bar(spans, width))
        if report.plan is not None:
            names = {n for p in report.plan.partitions if p.disk == disk for n in p.areas}
            iops = {t.area: t.iops for t in report.plan.service_times}
            ptotal = sum(iops.get(n, 0.0) for n in names) or 1.0
            spans = [(p.zone_start, p.zone_end, p.area, heat_colour(iops.get(p.area, 0.0) / ptotal))
                     for p in report.plan.placements if p.area in names]
            if spans:
                out.append(RichText("  plan ") + _bar(spans, width))
        if len(out) == title + 1:
            out.pop()  # a disk with nothing drawn under it is not named alone
    return out


def zone_curve_lines(disks: dict[str, DiskSummary]) -> list[str]:
    """A sparkline of each disk's sequential rate from outer to inner, saying whether the bench
    measured it or a model (fitted, preset or spec) gives it."""
    lines = []
    for name, info in disks.items():
        curve = info.zone_curve
        if not curve:
            continue
        top = max(r for _, r in curve) or 1.0
        spark = "".join(SPARK[max(1, int(r / top * (len(SPARK) - 1)))] for _, r in curve)
        lines.append(f"{name} ({info.model}, {curve_source(info.model)}):")  # then the curve on a line of its own
        lines.append(f"  {curve[0][1]:.0f} MB/s {spark} {curve[-1][1]:.0f} MB/s")
    return lines


def areas_table(report: Report) -> RenderableType:
    """Every area with its class, IO, size and place: sizes are read here as in every other format."""
    from advisor.render.cells import add_columns, one_line, plain_table

    table = plain_table("Areas")
    headers = ["area", "class", "IO share", "IOPS", "MiB/s", "size", "disk", "zone"]
    add_columns(table, headers, right=("IO share", "IOPS", "MiB/s", "size"), shrink=("area",))
    for a in report.areas:
        zone = "-" if a.zone_start is None or a.zone_end is None else f"{a.zone_start:.0%}-{a.zone_end:.0%}"
        table.add_row(one_line(area_name(a)), a.area_class, pct(a.io_share), f"{a.iops:.1f}", f"{a.mb_s:.2f}",
                      size_text(a.size_bytes, a.size_assumed), rich_text(a.disk or "-"), zone)
    return table


def findings_section(findings: Sequence[Finding]) -> list[RenderableType]:
    """Findings as rich text: code and title, the evidence, the action (also used by ``audit``)."""
    from rich.markup import escape
    from rich.text import Text as RichText

    out: list[RenderableType] = [RichText.from_markup("[bold]Findings[/bold]" if findings else "No findings.")]
    for f in findings:
        style = SEVERITY_STYLE.get(f.severity, "")
        out.append(RichText.from_markup(f"[{style}]{f.severity:>8}[/] [bold]{f.code}[/bold] {escape(shown(f.title))}"))
        if f.predicted_gain is not None:  # a line of its own: a figure never wraps away from its label
            out.append(RichText(f"{'':>9}predicted gain {gain_text(f)}", style="green"))
        out.append(rich_text(f"{'':>9}evidence: {evidence_text(f.evidence)}", "dim"))
        out.append(rich_text(f"{'':>9}action: {f.action}"))
    return out


def render_terminal(report: Report, console: Console, maps: AuditMaps | None = None, verbose: bool = False,
                    title: str = "advisor report") -> None:
    """Print the report with rich; *maps* (from the engine's ``build_audit_maps``) draws the layout as it is now;
    *title* names the command on the summary box (``advisor plan`` prints a plan, not a report)."""
    from rich.markup import escape
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text as RichText

    summary = RichText(shown("\n".join(summary_lines(report)), keep_newlines=True))
    console.print(Panel(summary, title=shown(title), expand=False))
    # one line per kind unless *verbose*: dozens of alike warnings would push the report off the screen
    notes = report_notes(report)
    warnings = notes if verbose else summarise_warnings(notes)
    for warning in warnings:
        console.print(f"[dim]• {escape(shown(warning))}[/dim]", highlight=False)
    if len(warnings) < len(notes):
        console.print(f"[dim]• {len(notes)} warnings in all: --verbose lists each, as do the json, "
                      "markdown and html formats[/dim]", highlight=False)
    for line in findings_section(report.findings):
        console.print(line)
    if report.areas:
        console.print(areas_table(report))
    if report.plan is not None:
        plan, assumed = report.plan, assumed_areas(report)
        table = Table(title=f"Plan: {plan.predicted_before_ms:.2f} ms -> {plan.predicted_after_ms:.2f} ms "
                            f"({pct(plan.predicted_gain)} faster)", expand=True)
        for column in ("area", "IOPS", "before ms", "after ms", "target", "zone"):
            table.add_column(column, justify="right" if column in ("IOPS", "before ms", "after ms") else "left")
        targets = {p.area: p for p in plan.placements}
        for t in plan.service_times:
            p = targets[t.area]
            table.add_row(rich_text(t.area), f"{t.iops:.1f}", f"{t.before_ms:.2f}", f"{t.after_ms:.2f}",
                          rich_text(p.target),
                          f"{p.zone_start:.1%}-{p.zone_end:.1%}")
        console.print(table)
        parts = Table(title="Partitions from the outer edge")
        for column in ("disk", "#", "label", "start", "size", "areas"):
            parts.add_column(column)
        for part in plan.partitions:
            parts.add_row(rich_text(part.disk), str(part.number), rich_text(part.label), f"{part.start_fraction:.1%}",
                          size_text(part.size_bytes, bool(assumed & set(part.areas))), rich_text(", ".join(part.areas)))
        console.print(parts)
        for note in plan.notes:
            console.print(rich_text(note, "dim"))
        if plan.tiers is not None:
            from advisor.render.tiers import terminal_tables

            for renderable in terminal_tables(plan.tiers, assumed):
                console.print(renderable)
        if plan.not_worth_it:
            console.print(f"[bold]No change worth making:[/bold] {escape(plan.not_worth_it)}; the scripts are not "
                          "written (--scripts-anyway writes them)", highlight=False)
        if plan.scripts:
            console.print("scripts: " + ", ".join(s.name for s in plan.scripts))
    _replay_tables(console, report)
    console.print("[bold]Disk map[/bold] (outer edge = fast, left)")
    if maps is not None:
        from advisor.render.diskmap import render_disk_maps

        for renderable in render_disk_maps(maps, console.width):
            console.print(renderable)
    for line in disk_map(report, with_current=maps is None, console_width=console.width):
        console.print(line)
    for line in zone_curve_lines(report.disks):
        console.print(rich_text(line), highlight=False)


def _replay_tables(console: Console, report: Report) -> None:
    """Per replayed disk, its areas measured, replayed today and under the plan (the headlines
    are in the summary panel)."""
    from rich.table import Table

    from advisor.render.replay import disk_tables, notes

    for note in notes(report):
        console.print(rich_text(note, "dim"))
    for check in report.replay:
        for title, headers, rows in disk_tables(check):
            table = Table(title=f"{title}: {shown(check.disk)}", expand=True)
            for index, column in enumerate(headers):
                table.add_column(column, justify="right" if index else "left")
            for row in rows:
                table.add_row(rich_text(row[0]), *row[1:])
            console.print(table)
