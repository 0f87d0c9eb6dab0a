"""The audit as one self-contained HTML page: per disk a table of bars (outer edge left), the findings.

The same rows as the terminal's disk maps (:mod:`advisor.render.diskmap`): each bar is a
``div`` placed at the row's start and as wide as its zone, coloured by its heat; the notes
and the areas with no known position follow, then the findings and the warnings. Nothing is
computed here but percentages of the page.
"""

from __future__ import annotations

from advisor.model import AuditReport, MapRow
from advisor.render.diskmap import compact
from advisor.render.html import CSS, findings_table
from advisor.render.safe import html_text as escape
from advisor.render.text import heat_colour
from advisor.units import human_bytes

AUDIT_CSS = """
.bar{position:relative;height:14px;min-width:240px;background:#eef0f4;border:1px solid #ccd}
.bar div{position:absolute;top:0;bottom:0;min-width:2px}td.label{width:22%}tr.area td.label{padding-left:18px}
"""


def _bar(row: MapRow) -> str:
    if row.start is None or row.end is None:
        return '<div class="bar"></div>'
    left = 100 * max(0.0, min(1.0, row.start))
    width = 100 * max(0.0, min(1.0, row.end) - max(0.0, row.start))
    return (f'<div class="bar"><div style="left:{left:.2f}%;width:{width:.2f}%;'
            f'background:{heat_colour(row.heat)}"></div></div>')


def _row(row: MapRow) -> str:
    zone = f"{row.start:.3f}-{row.end:.3f}" if row.start is not None and row.end is not None else "-"
    share = f"{100 * row.share:.0f}%" if row.share is not None else "-"
    return (f'<tr class="{escape(row.kind)}"><td class="label">{escape(row.label)}</td><td>{_bar(row)}</td>'
            f"<td class=num>{zone}</td><td class=num>{compact(row.io)}</td><td class=num>{share}</td></tr>")


def render_audit_html(report: AuditReport, model_note: str) -> str:
    """The whole audit page; *model_note* says which disk model the findings assumed."""
    maps = report.maps
    io = "IO/s" if maps.interval_s else "IO"
    server = report.server
    body = [f"<h1>advisor audit</h1><ul class=summary><li>{escape(server.dbms)} {escape(server.version)} on "
            f"{escape(server.host)} ({escape(server.name)})</li><li>taken at {escape(report.taken_at)}</li>"
            f"<li>{escape(model_note)}</li></ul>"]
    for disk_map in maps.maps:
        dev = disk_map.disk
        body.append(f"<h2>{escape(dev.name)} <small>{human_bytes(dev.size_bytes)} "
                    f"{escape(dev.model or dev.transport or '')}</small></h2>")
        body.append(f"<table><tr><th>partition / area</th><th>outer 0 … inner 1</th><th>zone</th><th>{io}</th>"
                    "<th>share</th></tr>" + "".join(_row(r) for r in (*disk_map.partitions, *disk_map.areas))
                    + "</table>")
        notes = ["share: an area's part of the database's IO, a partition's part of its disk's"]
        if not dev.placement_known:
            notes.append(f"positions are not physical: {dev.reason}")
        hidden = f"; {dev.reason}" if dev.reason and not dev.placement_known else None  # said once above
        notes += [f"{r.label}: {r.detail.replace(hidden, '') if hidden else r.detail}"
                  for r in (*disk_map.partitions, *disk_map.areas) if r.detail]
        body.append("<ul class=notes>" + "".join(f"<li><small>{escape(n)}</small></li>" for n in notes) + "</ul>")
    if maps.unplaced:
        body.append("<h2>Areas with no known disk position</h2><table><tr><th>area</th>"
                    f"<th>{escape(maps.heat_unit)}</th><th>why</th></tr>"
                    + "".join(f"<tr><td>{escape(r.label)}</td><td class=num>{compact(r.io)}</td>"
                              f"<td>{escape(r.detail)}</td></tr>" for r in maps.unplaced) + "</table>")
    body.append(f"<h2>Findings</h2>{findings_table(report.findings)}")
    said = {m.disk.reason for m in maps.maps if not m.disk.placement_known and m.disk.reason}
    warnings = [w for w in maps.warnings if not any(reason in w for reason in said)]  # the maps said those
    if warnings:
        body.append("<h2>Notes</h2><ul class=notes>"
                    + "".join(f"<li><small>{escape(w)}</small></li>" for w in warnings) + "</ul>")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>advisor audit</title>'
            f"<style>{CSS}{AUDIT_CSS}</style></head><body>{''.join(body)}</body></html>\n")
