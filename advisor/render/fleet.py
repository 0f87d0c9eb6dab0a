"""The fleet ranking's detail: the first instances advised over their whole period as one interval.

The ranking's period sums the interval summaries (each interval with its own plan); the
detail is what ``advisor report FIRST LAST`` says over the same snapshots. Drawing only.
"""

from __future__ import annotations

from advisor.repo.fleet_model import FleetReport

DETAIL_HEADERS = ("#", "instance", "from", "to", "saved s/h", "saved %", "ms now", "ms plan", "advice")


def detail_rows(report: FleetReport) -> list[tuple[str, ...]]:
    """One row per instance with a detail, in rank order."""
    rows: list[tuple[str, ...]] = []
    for item in report.instances:
        w = item.detail
        if w is None:
            continue
        ranked = w.verdict in ("saves", "no change worth making")
        rows.append((f"#{item.rank}", item.instance_id, w.started_at[5:16].replace("T", " "),
                     w.ended_at[5:16].replace("T", " "), f"{w.saved_s_per_h:.1f}" if ranked else "-",
                     f"{w.saved_share * 100:.1f}" if ranked else "-",
                     "-" if w.before_ms is None else f"{w.before_ms:.2f}",
                     "-" if w.after_ms is None else f"{w.after_ms:.2f}",
                     ", ".join(w.findings) if w.verdict == "saves" else w.verdict))
    return rows


DETAIL_TITLE = "whole period as one interval (what `advisor report FIRST LAST` says)"
