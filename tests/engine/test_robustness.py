"""Odd but legal workloads go through the engine and every renderer without an error."""

from __future__ import annotations

import io
import json
import random

import pytest
from rich.console import Console

from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.render.html import render_html
from advisor.render.json import render_json
from advisor.render.markdown import render_markdown
from advisor.render.terminal import render_terminal
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, models, workload

KINDS = ["data", "index", "wal", "temp", "archive", "control", "undo", "toast"]


def render_all(report: object) -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    render_terminal(report, console)  # type: ignore[arg-type]
    assert json.loads(render_json(report))["document"] == "report"  # type: ignore[arg-type]
    assert render_markdown(report).startswith("# advisor report")  # type: ignore[arg-type]
    assert "</html>" in render_html(report)  # type: ignore[arg-type]


def test_empty_workload_reports_no_plan() -> None:
    report = advise(AdviceRequest(workload([]), models(), generated_at=AT))
    assert report.plan is None and not report.areas
    assert any("no files" in w for w in report.warnings)
    render_all(report)


def test_workload_without_any_io() -> None:
    report = advise(AdviceRequest(workload([AreaSpec("a", zone=(0.1, 0.2)), AreaSpec("b", zone=(0.5, 0.5))]), models(),
                    generated_at=AT))
    assert report.plan is not None and report.plan.predicted_before_ms == 0.0
    assert not [f for f in report.findings if f.predicted_gain]
    render_all(report)


@pytest.mark.parametrize("seed", range(12))
def test_random_workloads(seed: int) -> None:
    rng = random.Random(seed)
    specs = []
    start = 0.0
    for i in range(rng.randint(1, 12)):
        size = rng.choice([0.0, 0.01, 1.0, 20.0])
        width = size * 10**9 / 500e9
        zone = None if rng.random() < 0.2 else (start, min(1.0, start + width))
        start = min(0.99, start + width + rng.random() * 0.1)
        specs.append(AreaSpec(
            f"a{i}", kind=rng.choice(KINDS), size_gb=size, read_iops=rng.choice([0.0, 0.5, 50.0, 500.0]),
            write_iops=rng.choice([0.0, 5.0, 100.0]), random_share=rng.choice([None, 0.0, 0.5, 1.0]),
            syncs=rng.choice([None, 0.0, 130.0]), zone=zone, files=rng.randint(1, 3),
            placement_known=rng.random() > 0.1, reason="dm-0: LVM"))
    options = PlanOptions(disks=rng.choice([1, 2, 3]), headroom=rng.choice([0.0, 0.3]), force=True,
                          dbms=rng.choice(["postgres", "oracle"]), new_disks=rng.random() < 0.5)
    report = advise(AdviceRequest(workload(specs, io_share=rng.choice([None, 0.05, 0.6])), models(), options,
                                  generated_at=AT))
    if report.plan is not None:
        assert report.plan.predicted_after_ms >= 0 and len(report.plan.service_times) <= len(specs)
        names = [p.area for p in report.plan.placements]
        assert len(names) == len(set(names)), "every area placed once"
    render_all(report)
