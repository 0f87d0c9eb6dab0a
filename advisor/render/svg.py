"""Inline SVG for the HTML report: a disk map (outer -> inner, now and planned) and zone curves.

Plain SVG strings with every text escaped, so the report is one self-contained file.
"""

from __future__ import annotations

from advisor.model import DiskSummary, Report
from advisor.render.safe import html_text as escape
from advisor.render.text import curve_source, heat_colour

WIDTH = 960
BAR_X = 90
BAR_W = WIDTH - BAR_X - 20
ROW_H = 34


def _x(fraction: float) -> float:
    return BAR_X + max(0.0, min(1.0, fraction)) * BAR_W


def _rect(lo: float, hi: float, y: float, fill: str, title: str, text: str = "", stroke: str = "#334") -> str:
    x0, x1 = _x(lo), _x(hi)
    width = max(1.5, x1 - x0)
    out = (f'<g><title>{escape(title)}</title><rect x="{x0:.1f}" y="{y:.1f}" width="{width:.1f}" height="{ROW_H - 8}" '
           f'fill="{fill}" stroke="{stroke}" stroke-width="0.6" rx="2"/>')
    if text and width > 7 * len(text):
        out += (f'<text x="{x0 + 4:.1f}" y="{y + ROW_H / 2 + 1:.1f}" font-size="11" fill="#fff">'
                f"{escape(text)}</text>")
    return out + "</g>"


def _disk_rows(report: Report, disk: str, y: float) -> tuple[list[str], float]:
    parts: list[str] = [f'<text x="8" y="{y + 14:.1f}" font-size="13" font-weight="bold">{escape(disk)}</text>']
    layout = report.layout.disks.get(disk)
    areas = [a for a in report.areas if a.disk == disk and a.zone_start is not None and a.zone_end is not None]
    total = sum(a.iops for a in areas) or 1.0
    y += 20
    parts.append(f'<text x="8" y="{y + 18:.1f}" font-size="11">now</text>')
    parts.append(f'<rect x="{BAR_X}" y="{y:.1f}" width="{BAR_W}" height="{ROW_H - 8}" fill="#eef0f4" stroke="#99a"/>')
    for p in layout.partitions if layout else ():
        parts.append(f'<g><title>{escape(p.name)}</title>'
                     f'<rect x="{_x(p.start_fraction):.1f}" y="{y - 3:.1f}" '
                     f'width="{max(1.0, _x(p.end_fraction) - _x(p.start_fraction)):.1f}" height="{ROW_H - 2}" '
                     f'fill="none" stroke="#556" stroke-dasharray="4 2"/></g>')
    # widest first, so a narrow hot area is never hidden under a wide idle one; a label only where
    # no other area overlaps (the colour key below names the rest)
    spans = [(a, a.zone_start, a.zone_end) for a in areas if a.zone_start is not None and a.zone_end is not None]
    for a, lo, hi in sorted(spans, key=lambda span: -(span[2] - span[1])):
        share = a.iops / total
        alone = not any(o is not a and o_lo < hi and lo < o_hi for o, o_lo, o_hi in spans)
        parts.append(_rect(lo, max(hi, lo), y, heat_colour(share),
                           f"{a.name}: {a.iops:.1f} IOPS ({share:.0%}), {a.area_class}", a.name if alone else ""))
    y += ROW_H
    return parts, y


def _legend(names: list[tuple[str, float]], y: float) -> tuple[list[str], float]:
    """Colour key of the areas (name, share of the disk's IO), wrapped under the bars."""
    parts: list[str] = []
    x = float(BAR_X)
    for name, share in names:
        label = f"{name} {share:.0%}"
        width = 16 + 6.6 * len(label)
        if x + width > WIDTH - 10:
            x, y = float(BAR_X), y + 16
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="10" height="10" fill="{heat_colour(share)}"/>'
                     f'<text x="{x + 14:.1f}" y="{y + 9:.1f}" font-size="11">{escape(label)}</text>')
        x += width + 10
    return parts, y + 18


def _plan_row(report: Report, disk: str, y: float) -> tuple[list[str], float]:
    if report.plan is None:
        return [], y
    partitions = [p for p in report.plan.partitions if p.disk == disk]
    if not partitions:
        return [], y
    iops = {t.area: t.iops for t in report.plan.service_times}
    names = {name for p in partitions for name in p.areas}
    total = sum(iops.get(n, 0.0) for n in names) or 1.0
    parts = [f'<text x="8" y="{y + 18:.1f}" font-size="11">plan</text>',
             f'<rect x="{BAR_X}" y="{y:.1f}" width="{BAR_W}" height="{ROW_H - 8}" fill="#eef0f4" stroke="#99a"/>']
    for p in partitions:
        parts.append(f'<g><title>{escape(p.label)}</title><rect x="{_x(p.start_fraction):.1f}" y="{y - 3:.1f}" '
                     f'width="{max(1.0, _x(p.end_fraction) - _x(p.start_fraction)):.1f}" height="{ROW_H - 2}" '
                     f'fill="none" stroke="#2a6" stroke-dasharray="4 2"/></g>')
    for placement in report.plan.placements:
        if placement.area not in names:
            continue
        share = iops.get(placement.area, 0.0) / total
        parts.append(_rect(placement.zone_start, placement.zone_end, y, heat_colour(share),
                           f"{placement.area} -> {placement.target}", placement.area))
    return parts, y + ROW_H


def disk_map_svg(report: Report) -> str:
    """One band per disk from the outer edge (left) to the inner edge (right): now and planned."""
    disks = sorted({a.disk for a in report.areas if a.disk} |
                   ({p.disk for p in report.plan.partitions} if report.plan else set()))
    y = 24.0
    body: list[str] = [
        f'<text x="{BAR_X}" y="14" font-size="11" fill="#555">outer edge (fast, LBA 0)</text>',
        f'<text x="{BAR_X + BAR_W}" y="14" font-size="11" fill="#555" text-anchor="end">inner edge (slow)</text>',
    ]
    for disk in disks:
        rows, y = _disk_rows(report, disk, y)
        body += rows
        plan_rows, y = _plan_row(report, disk, y)
        body += plan_rows
        on_disk = [a for a in report.areas if a.disk == disk] or list(report.areas)
        total = sum(a.iops for a in on_disk) or 1.0
        key, y = _legend([(a.name, a.iops / total) for a in on_disk], y + 2)
        body += key
        y += 6
    height = max(60.0, y + 6)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="diskmap" width="{WIDTH}" height="{height:.0f}" '
            f'viewBox="0 0 {WIDTH} {height:.0f}" font-family="sans-serif">' + "".join(body) + "</svg>")


def zone_curve_svg(disks: dict[str, DiskSummary]) -> str:
    """Sequential MB/s from the outer to the inner edge for each disk model."""
    curves = [(f"{name} ({info.model}, {curve_source(info.model)})", info.zone_curve)
              for name, info in disks.items() if info.zone_curve]
    w, h, left, bottom = 460, 220, 50, 30
    top_rate = max((r for _, c in curves for _, r in c), default=1.0) * 1.1
    palette = ["#c33", "#36c", "#393", "#c80", "#639"]
    body = [
        f'<line x1="{left}" y1="{h - bottom}" x2="{w - 10}" y2="{h - bottom}" stroke="#333"/>',
        f'<line x1="{left}" y1="10" x2="{left}" y2="{h - bottom}" stroke="#333"/>',
        f'<text x="{left}" y="{h - 8}" font-size="11">outer (0)</text>',
        f'<text x="{w - 10}" y="{h - 8}" font-size="11" text-anchor="end">inner (1)</text>',
        f'<text x="4" y="14" font-size="11">{top_rate:.0f} MB/s</text>',
    ]
    for i, (name, curve) in enumerate(curves):
        points = " ".join(
            f"{left + f * (w - 10 - left):.1f},{h - bottom - r / top_rate * (h - bottom - 10):.1f}" for f, r in curve
        )
        colour = palette[i % len(palette)]
        body.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>')
        body.append(f'<text x="{left + 8}" y="{24 + 14 * i}" font-size="11" fill="{colour}">{escape(name)}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="zonecurve" width="{w}" height="{h}" '
            f'viewBox="0 0 {w} {h}" font-family="sans-serif">' + "".join(body) + "</svg>")
