"""The tier section of a plan, drawn for each format from the same rows (no computation here).

Three tables: the devices (medium, model and its source, space used, IO, mean time), the
assignment of each area next to where the IO-density knapsack baseline put it, and the
marginal-gain curve of the fast tier; then the rules that shaped the plan.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table

from advisor.model import TierPlan
from advisor.render.safe import html_text as escape
from advisor.render.safe import markdown_cell, markdown_line, rich_text
from advisor.render.tables import html_table, markdown_table
from advisor.render.text import pct, size_text
from advisor.units import human_bytes

DEVICE_COLUMNS = ("device", "medium", "model", "used", "IOPS", "mean ms")
ASSIGN_COLUMNS = ("area", "class", "IOPS", "size", "device", "after ms", "knapsack")
CURVE_COLUMNS = ("fast tier", "mean ms", "gain vs none")


def _device_rows(tiers: TierPlan, assumed: frozenset[str]) -> list[tuple[str, ...]]:
    return [(d.name, d.medium, d.model, f"{size_text(d.used_bytes, bool(assumed & set(d.areas)))} / "
             f"{human_bytes(d.capacity_bytes)}", f"{d.iops:.1f}", f"{d.mean_ms:.2f}") for d in tiers.devices]


def _assign_rows(tiers: TierPlan, assumed: frozenset[str]) -> list[tuple[str, ...]]:
    return [(a.area, a.kind, f"{a.iops:.1f}", size_text(a.size_bytes, a.area in assumed), a.device,
             f"{a.after_ms:.2f}", "same" if a.baseline_device == a.device else a.baseline_device)
            for a in tiers.assignments]


def _curve_rows(tiers: TierPlan) -> list[tuple[str, ...]]:
    base = tiers.curve[0].mean_ms if tiers.curve and tiers.curve[0].fast_bytes == 0 else None
    rows: list[tuple[str, ...]] = []
    for p in tiers.curve:
        if p.mean_ms is None:
            rows.append((human_bytes(p.fast_bytes), "does not fit", "-"))
            continue
        gain = (base - p.mean_ms) / base if base else None
        rows.append((human_bytes(p.fast_bytes), f"{p.mean_ms:.2f}", pct(gain)))
    return rows


def headline(tiers: TierPlan) -> str:
    """Ours against the knapsack baseline, one line."""
    better = (tiers.baseline_mean_ms - tiers.mean_ms) / tiers.baseline_mean_ms if tiers.baseline_mean_ms > 0 else 0.0
    return (f"Tiered plan: {tiers.mean_ms:.2f} ms mean; IO-density knapsack baseline {tiers.baseline_mean_ms:.2f} ms "
            f"(this plan {pct(better)} faster)")


def terminal_tables(tiers: TierPlan, assumed: frozenset[str] = frozenset()) -> list[RenderableType]:
    """Rich tables for the terminal report (*assumed*: areas whose size is marked assumed)."""
    out: list[RenderableType] = [rich_text(headline(tiers))]
    for title, columns, rows in (("Devices", DEVICE_COLUMNS, _device_rows(tiers, assumed)),
                                 ("Where each area goes", ASSIGN_COLUMNS, _assign_rows(tiers, assumed)),
                                 ("What the fast tier buys", CURVE_COLUMNS, _curve_rows(tiers))):
        if not rows:
            continue
        table = Table(title=title)
        for column in columns:
            table.add_column(column, justify="right" if column in ("IOPS", "mean ms", "after ms", "gain vs none")
                             else "left", overflow="fold")
        for row in rows:
            table.add_row(*(rich_text(cell) for cell in row))
        out.append(table)
    out += [rich_text(f"rule: {rule}") for rule in tiers.rules]
    return out


def _md_table(columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    return [*markdown_table(columns, rows), ""]


def markdown_lines(tiers: TierPlan, assumed: frozenset[str] = frozenset()) -> list[str]:
    """Markdown for the plan section."""
    out = ["### Tiers", "", markdown_line(headline(tiers) + "."), ""]
    out += _md_table(DEVICE_COLUMNS, _device_rows(tiers, assumed))
    out += _md_table(ASSIGN_COLUMNS, _assign_rows(tiers, assumed))
    if tiers.curve:
        out += ["What the fast tier buys:", ""] + _md_table(CURVE_COLUMNS, _curve_rows(tiers))
    out += [f"- rule: {markdown_cell(rule)}" for rule in tiers.rules]
    sources = sorted({f"{d.model}: {d.source}" for d in tiers.devices})
    out += [f"- model source: {markdown_cell(s)}" for s in sources] + [""]
    return out


def _html_table(columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    return html_table(columns, rows, sections=False)


def html_section(tiers: TierPlan, assumed: frozenset[str] = frozenset()) -> str:
    """HTML for the plan section."""
    out = f"<h3>Tiers</h3><p>{escape(headline(tiers))}</p>"
    out += _html_table(DEVICE_COLUMNS, _device_rows(tiers, assumed))
    out += _html_table(ASSIGN_COLUMNS, _assign_rows(tiers, assumed))
    if tiers.curve:
        out += "<p>What the fast tier buys</p>" + _html_table(CURVE_COLUMNS, _curve_rows(tiers))
    out += "".join(f"<p><small>rule: {escape(r)}</small></p>" for r in tiers.rules)
    return out
