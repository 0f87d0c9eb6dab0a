"""The report as Markdown: for tickets, wikis and change requests."""

from __future__ import annotations

import re

from advisor.model import Report
from advisor.render.replay import disk_tables, report_headlines, table_heading
from advisor.render.replay import notes as replay_notes
from advisor.render.safe import markdown_cell, markdown_line, shown
from advisor.render.tables import code_span, markdown_table
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

_cell = markdown_cell
_line = markdown_line


def render_markdown(report: Report) -> str:
    """Summary, findings, areas, plan with before/after times, partitions and scripts."""
    out = ["# advisor report", ""]
    out += [f"- {_line(line)}" for line in summary_lines(report)]
    out += ["", "## Findings", ""]
    if report.findings:
        out += markdown_table(("severity", "code", "subject", "predicted gain", "evidence", "action"),
                              [(f.severity, code_span(f.code), f.subject, gain_text(f), evidence_text(f.evidence),
                                f.action) for f in report.findings])
    else:
        out.append("No findings.")
    out += ["", "## Areas", ""]
    out += markdown_table(("area", "class", "IO share", "IOPS", "MiB/s", "reads on disk", "size", "disk", "zone"),
                          [(area_name(a), a.area_class, pct(a.io_share), f"{a.iops:.1f}", f"{a.mb_s:.2f}",
                            pct(a.disk_read_share), size_text(a.size_bytes, a.size_assumed), a.disk or "-",
                            "-" if a.zone_start is None or a.zone_end is None
                            else f"{a.zone_start:.0%}-{a.zone_end:.0%}") for a in report.areas])
    out += ["", *[f"- {_line(w)}" for w in report_notes(report)]]
    plan, assumed = report.plan, assumed_areas(report)
    out += ["", "## Plan", ""]
    if plan is None:
        out += [f"- {_line(report.no_plan.words)}"] if report.no_plan is not None else ["No plan."]
    else:
        out += [
            f"Predicted mean service time **{plan.predicted_before_ms:.2f} ms → {plan.predicted_after_ms:.2f} ms** "
            f"({pct(plan.predicted_gain)} faster; search: {plan.method}).", "",
            *([f"**No change worth making:** {_cell(plan.not_worth_it)}; the scripts are not written "
               "(`--scripts-anyway` writes them).", ""] if plan.not_worth_it else []),
        ]
        targets = {p.area: p for p in plan.placements}
        out += markdown_table(("area", "IOPS", "before ms", "after ms", "target", "zone"),
                              [(t.area, f"{t.iops:.1f}", f"{t.before_ms:.2f}", f"{t.after_ms:.2f}", p.target,
                                f"{p.zone_start:.1%}-{p.zone_end:.1%}")
                               for t in plan.service_times for p in (targets[t.area],)])
        out += ["", "### Partitions (outer edge first)", ""]
        out += markdown_table(("disk", "#", "label", "start", "end", "size", "areas"),
                              [(part.disk, str(part.number), part.label, f"{part.start_fraction:.1%}",
                                f"{part.end_fraction:.1%}", size_text(part.size_bytes, bool(assumed & set(part.areas))),
                                ", ".join(part.areas)) for part in plan.partitions])
        out += [f"- {_line(n)}" for n in plan.notes]
        if plan.tiers is not None:
            from advisor.render.tiers import markdown_lines

            out += ["", *markdown_lines(plan.tiers, assumed)]
        for script in plan.scripts:
            fence = "sql" if script.language == "sql" else "sh" if script.language == "shell" else "text"
            out += ["", f"### `{script.name}`", ""]
            if script.caveat:
                out += [f"> {_line(script.caveat)}", ""]
            text = shown(script.text.rstrip("\n"), keep_newlines=True)
            ticks = "`" * max(4, 1 + max((len(run) for run in re.findall("`+", text)), default=0))
            out += [f"{ticks}{fence}", text, ticks]  # a fence no backtick run inside can close
    out += _replay(report)
    out.append("")
    return "\n".join(out)


def _replay(report: Report) -> list[str]:
    """The traced requests replayed: headlines (also in the summary), notes, a table per disk."""
    if not report.replay:
        return []
    out = ["", "## Replay of the traced requests", ""]
    out += [f"- {_cell(line)}" for line in report_headlines(report)]
    out += [f"- {_cell(note)}" for note in replay_notes(report)]
    for check in report.replay:
        for title, headers, rows in disk_tables(check):
            out += ["", f"### {_cell(table_heading(check.disk, title))}", ""]
            out += markdown_table(headers, rows, right=set(range(1, len(headers))))
    return out
