"""The ranking's order and words: only a saving worth making is ranked as one (no database needed).

A plan that costs time (a negative "saving") was ranked and printed as "-51.2 s/h saved";
a plan under the minimum gain looked like advice. Each instance now carries a verdict, the
ranking groups by it, and every format says it in words. The table fits 80 columns.
"""

from __future__ import annotations

import io

from advisor.fleet.model import FleetReport, InstanceAdvice, Verdict, WindowAdvice, rank_key
from advisor.render.fleet_ranking import render_markdown, render_terminal, row
from advisor.render.safe import safe_console


def _window(saved: float, share: float, verdict: Verdict, read: float | None = None) -> WindowAdvice:
    planned = verdict in ("saves", "no change worth making", "nothing to gain")
    return WindowAdvice("period", "2026-11-20T00:00:00+00:00", "2026-11-20T04:00:00+00:00", 14400.0, 500.0, 0.5,
                        planned, 10.0 if planned else None, 10.0 - share * 10 if planned else None, saved, share,
                        ("CROSS_SURFACE",) if planned else ("NOT_IO_BOUND",) if verdict == "no plan" else (),
                        verdict=verdict, read_s_per_h=read)


def _instance(key: str, window: WindowAdvice | None) -> InstanceAdvice:
    return InstanceAdvice(key, "postgres", f"{key}.example.net", f"{key}:5432", 16, "", "", window,
                          evidence="16 snapshots")


def _ranked() -> FleetReport:
    fleet = [
        _instance("postgres:7700000000000000000001", _window(-51.2, -0.04, "nothing to gain")),
        _instance("postgres:7700000000000000000002", _window(3.0, 0.02, "no change worth making")),
        _instance("postgres:7700000000000000000003", _window(0.0, 0.0, "no plan")),
        _instance("oracle:1000000001:orcl1", _window(0.0, 0.0, "sizes unknown", read=900.0)),
        _instance("oracle:1000000002:orcl2", _window(0.0, 0.0, "sizes unknown", read=2500.0)),
        _instance("postgres:7700000000000000000004", _window(12.5, 0.2, "saves")),
        _instance("postgres:7700000000000000000005", _window(80.0, 0.3, "saves")),
        _instance("postgres:7700000000000000000006", None),
    ]
    ranked = sorted(fleet, key=rank_key)
    from dataclasses import replace

    return FleetReport("2026-11-21T00:00:00+00:00", "2026-11-14T00:00:00+00:00", "2026-11-21T00:00:00+00:00", 2,
                       tuple(replace(item, rank=n) for n, item in enumerate(ranked, start=1)))


def test_only_savings_rank_as_savings_and_the_rest_say_why() -> None:
    report = _ranked()
    assert [i.instance_id[-1] for i in report.instances] == ["5", "4", "2", "1", "2", "1", "3", "6"]
    assert [i.period.verdict if i.period else None for i in report.instances] == [
        "saves", "saves", "sizes unknown", "sizes unknown", "no change worth making", "nothing to gain", "no plan",
        None]
    cells = {item.instance_id: row(item) for item in report.instances}
    loss = cells["postgres:7700000000000000000001"]
    assert loss[5] == "-" and loss[6] == "-", "a negative saving is never shown as one"
    assert loss[12] == "nothing to gain (plan: -51.2 s/h)"
    small = cells["postgres:7700000000000000000002"]
    assert small[5] == "3.0" and small[12] == "no change worth making (under 5%)"
    assert cells["oracle:1000000002:orcl2"][12] == "sizes unknown: give --sizes; reads take 2500.0 s/h"
    assert cells["postgres:7700000000000000000003"][12] == "no plan: not IO bound"
    assert cells["postgres:7700000000000000000005"][5] == "80.0"
    assert "-51.2 |" not in render_markdown(report)


def test_the_terminal_table_fits_80_columns_and_never_cuts_an_instance_id() -> None:
    report = _ranked()
    for width in (80, 100):
        console = safe_console(file=io.StringIO(), width=width, record=True, color_system=None)
        render_terminal(report, console)
        text = console.export_text()
        assert max(len(line) for line in text.splitlines()) <= width
        for item in report.instances:
            assert item.instance_id in text
        assert "…" not in text
        assert "nothing to gain" in text and "no change worth making" in text
