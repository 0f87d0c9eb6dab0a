"""Zone curve pictures: a text sparkline for the terminal and a self-made SVG chart.

The SVG is written by hand (no plotting library): an axis frame, grid lines with labels,
the measured MB/s per LBA fraction as a polyline with dots, so it renders in any browser
and embeds in the HTML report.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from html import escape
from pathlib import Path

from advisor.errors import BadInput, Unsupported
from advisor.model.disk import DiskProfile, ZonePoint
from advisor.model.jsonio import write_atomic
from advisor.units import DISK_MB

_BARS = "▁▂▃▄▅▆▇█"


def sparkline(points: Sequence[ZonePoint]) -> str:
    """One block character per zone point, scaled from 0 to the fastest point."""
    if not points:
        return ""
    top = max(p.bytes_per_s for p in points) or 1.0
    return "".join(_BARS[min(len(_BARS) - 1, int(p.bytes_per_s / top * (len(_BARS) - 1) + 0.5))] for p in points)


def _nice_step(top: float) -> float:
    """A round grid step giving 4–8 lines up to *top*."""
    step = 1.0
    while top / step > 8:
        step *= 10 if top / (step * 10) >= 4 else (5 if top / (step * 5) >= 4 else 2)
    while top / step < 4 and step > 1e-6:
        step /= 2
    return step


def zone_svg(profile: DiskProfile, width: int = 720, height: int = 360) -> str:
    """SVG chart of the zone curve (MB/s against LBA fraction, outer edge on the left)."""
    left, right, top_pad, bottom = 64, 20, 40, 48
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    points = profile.zones
    top = max((p.bytes_per_s / DISK_MB for p in points), default=1.0) * 1.1 or 1.0
    step = _nice_step(top)

    def x(fraction: float) -> float:
        return left + fraction * plot_w

    def y(rate: float) -> float:
        return top_pad + plot_h - rate / top * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">'
        f"Sequential read by zone: {escape(profile.target)}</text>",
    ]
    level = 0.0
    while level <= top:
        parts.append(f'<line x1="{left}" y1="{y(level):.1f}" x2="{left + plot_w}" y2="{y(level):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y(level) + 4:.1f}" text-anchor="end">{level:g}</text>')
        level += step
    for tenth in range(0, 11, 2):
        fx = x(tenth / 10)
        parts.append(f'<line x1="{fx:.1f}" y1="{top_pad}" x2="{fx:.1f}" y2="{top_pad + plot_h}" stroke="#eee"/>')
        parts.append(f'<text x="{fx:.1f}" y="{top_pad + plot_h + 16}" text-anchor="middle">{tenth / 10:g}</text>')
    parts.append(f'<rect x="{left}" y="{top_pad}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#333"/>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">'
                 "LBA fraction (0 = outer edge)</text>")
    parts.append(f'<text x="16" y="{top_pad + plot_h / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 16 {top_pad + plot_h / 2})">MB/s</text>')
    if points:
        path = " ".join(f"{x(p.fraction):.1f},{y(p.bytes_per_s / DISK_MB):.1f}" for p in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
        parts += [f'<circle cx="{x(p.fraction):.1f}" cy="{y(p.bytes_per_s / DISK_MB):.1f}" r="3" fill="#1f77b4">'
                  f"<title>{p.fraction:.3f}: {p.bytes_per_s / DISK_MB:.1f} MB/s</title></circle>" for p in points]
    else:
        parts.append(f'<text x="{left + plot_w / 2}" y="{top_pad + plot_h / 2}" text-anchor="middle">'
                     "no zone test in this profile</text>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_plot(profile: DiskProfile, path: Path) -> None:
    """Write the zone chart as SVG, or as PNG rendered from that SVG by headless Chromium."""
    svg = zone_svg(profile)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        write_atomic(path, svg)
        return
    if suffix != ".png":
        raise BadInput(f"--plot {path}: name a .svg or .png file")
    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if browser is None:
        raise Unsupported("PNG plots are rendered by headless Chromium, which is not installed",
                          hint="write an .svg instead, or apt-get install chromium")
    with tempfile.TemporaryDirectory(prefix="advisor-plot-") as tmp:
        source, image = Path(tmp) / "zones.svg", Path(tmp) / "zones.png"
        source.write_text(svg)
        argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                f"--screenshot={image}", "--window-size=720,360", source.as_uri()]
        subprocess.run(argv, capture_output=True, timeout=60, check=False)
        if not image.exists():
            raise Unsupported("headless Chromium did not render the PNG", hint="write an .svg instead")
        data = image.read_bytes()
    tmp_path = path.with_name(f".{path.name}.tmp")
    tmp_path.write_bytes(data)
    tmp_path.replace(path)
