"""The report as one self-contained HTML file: inline CSS and SVG, no external resources."""

from __future__ import annotations

from collections.abc import Sequence

from advisor.model import Finding, Report
from advisor.render.safe import html_text as escape
from advisor.render.svg import disk_map_svg, zone_curve_svg
from advisor.render.text import (
    area_name,
    assumed_areas,
    evidence_text,
    gain_text,
    pct,
    report_notes,
    size_text,
    summary_lines,
)

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1000px;color:#1d2330}
h1{font-size:24px;margin-bottom:4px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #dde}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{padding:4px 6px;border-bottom:1px solid #e4e6ee;
text-align:left;vertical-align:top}th{background:#f3f4f8}td{overflow-wrap:anywhere}td code,.sev{white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.sev{font-weight:bold;border-radius:3px;padding:1px 6px;color:#fff}.critical{background:#a01}.high{background:#d33}
.medium{background:#e80}.low{background:#59a}.info{background:#889}code{font-size:12px}
pre{background:#f6f7fa;padding:10px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;border:1px solid #e4e6ee}
.summary li{margin:2px 0}td.gain{white-space:nowrap}.caveat{color:#833;font-size:13px}.gain{font-weight:bold;color:#180}
"""


def findings_table(findings: Sequence[Finding]) -> str:
    """The findings as one table (severity badge, code, title and evidence, gain, action)."""
    if not findings:
        return "<p>No findings.</p>"
    rows = "".join(
        f'<tr class="finding" data-code="{escape(f.code)}"><td><span class="sev {escape(f.severity)}">'
        f"{escape(f.severity)}</span></td><td><code>{escape(f.code)}</code></td><td>{escape(f.title)}<br>"
        f"<small>{escape(evidence_text(f.evidence))}</small></td><td class=\"num gain\">{escape(gain_text(f))}</td>"
        f"<td>{escape(f.action)}</td></tr>"
        for f in findings
    )
    return ("<table><tr><th>severity</th><th>code</th><th>finding and evidence</th><th>gain</th><th>action</th></tr>"
            f"{rows}</table>")


def _areas(report: Report) -> str:
    rows = "".join(
        f"<tr><td>{escape(area_name(a))}</td><td>{escape(a.area_class)}</td>"
        f"<td class=num>{pct(a.io_share)}</td>"
        f"<td class=num>{a.iops:.1f}</td><td class=num>{a.mb_s:.2f}</td>"
        f"<td class=num>{pct(a.disk_read_share)}</td><td class=num>"
        f"{size_text(a.size_bytes, a.size_assumed)}</td><td>{escape(a.disk or '-')}</td></tr>"
        for a in report.areas
    )
    notes = "".join(f"<li><small>{escape(w)}</small></li>" for w in report_notes(report))
    return ("<table><tr><th>area</th><th>class</th><th>IO share</th><th>IOPS</th><th>MiB/s</th>"
            "<th>reads on disk</th><th>size</th>"
            f"<th>disk</th></tr>{rows}</table><ul class=notes>{notes}</ul>")


def _plan(report: Report) -> str:
    plan = report.plan
    if plan is None:
        notes = [report.no_plan.words] if report.no_plan is not None else ["No plan."]
        return "".join(f"<p>{escape(n)}</p>" for n in notes)
    targets = {p.area: p for p in plan.placements}
    rows = "".join(
        f"<tr><td>{escape(t.area)}</td><td class=num>{t.iops:.1f}</td><td class=num>{t.before_ms:.2f}</td>"
        f"<td class=num>{t.after_ms:.2f}</td><td>{escape(targets[t.area].target)}</td></tr>"
        for t in plan.service_times
    )
    out = (f"<p>Predicted mean service time <b>{plan.predicted_before_ms:.2f} ms → {plan.predicted_after_ms:.2f} ms"
           f"</b> (<span class=gain>{pct(plan.predicted_gain)} faster</span>; search: {escape(plan.method)}).</p>"
           + (f"<p><b>No change worth making:</b> {escape(plan.not_worth_it)}; the scripts are not written "
              "(<code>--scripts-anyway</code> writes them).</p>" if plan.not_worth_it else "") +
           "<table><tr><th>area</th><th>IOPS</th><th>before ms</th><th>after ms</th><th>target partition</th></tr>"
           f"{rows}</table>")
    out += "".join(f"<p><small>{escape(n)}</small></p>" for n in plan.notes)
    if plan.tiers is not None:
        from advisor.render.tiers import html_section

        out += html_section(plan.tiers, assumed_areas(report))
    for script in plan.scripts:
        out += f"<h3>{escape(script.name)}</h3>"
        if script.caveat:
            out += f'<p class="caveat">{escape(script.caveat)}</p>'
        out += f"<pre>{escape(script.text, keep_newlines=True)}</pre>"  # a script's lines stay lines
    return out


def _replay(report: Report) -> str:
    """The traced requests replayed: headlines, notes and a table per disk."""
    if not report.replay:
        return ""
    from advisor.render.replay import disk_tables, notes, report_headlines, table_heading
    from advisor.render.tables import html_table

    lines = "".join(f"<p>{escape(line)}</p>" for line in report_headlines(report) + notes(report))
    tables = "".join(f"<h3>{escape(table_heading(c.disk, title))}</h3>{html_table(headers, rows)}"
                     for c in report.replay for title, headers, rows in disk_tables(c))
    return f"<h2>Replay of the traced requests</h2>{lines}{tables}"


def render_html(report: Report, before: str = "") -> str:
    """The whole report as a standalone HTML page; *before* is HTML put first in its body (what
    ``fleet show`` says about the instance above the report of its window)."""
    summary = "".join(f"<li>{escape(line)}</li>" for line in summary_lines(report))
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>advisor report</title><style>{CSS}</style></head><body>{before}"
        f'<h1>advisor report</h1><ul class="summary">{summary}</ul>'
        f"<h2>Findings</h2>{findings_table(report.findings)}"
        f"<h2>Disk map</h2>{disk_map_svg(report)}"
        f"<h2>Zone curve</h2>{zone_curve_svg(report.disks)}"
        f"<h2>Areas</h2>{_areas(report)}"
        f"<h2>Plan</h2>{_plan(report)}"
        f"{_replay(report)}"
        "</body></html>\n"
    )
