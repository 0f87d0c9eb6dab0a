"""The replay in the engine: a trace the model itself produced fits it exactly and the plan's gain
follows the replay; times the model cannot produce are MODEL_DOES_NOT_FIT; every format shows it."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest
from rich.console import Console

from advisor.engine.advise import AdviceRequest, advise
from advisor.model import Report
from advisor.render.html import render_html
from advisor.render.json import render_json
from advisor.render.markdown import render_markdown
from advisor.render.terminal import render_terminal
from advisor.trace.codec import Requests
from tests.helpers.model_trace import NOW, base_workload, model_made_requests, traced
from tests.helpers.workloads import DISK_BYTES, model, models


def test_a_trace_the_model_made_fits_and_the_replay_decides_the_plan() -> None:
    work = base_workload()
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(traced(model_made_requests(), work),)), models(),
                    generated_at=NOW))
    (check,) = report.replay
    assert check.refused is None and check.requests == 750 and check.queue_depth == 5
    assert check.deviation is not None and abs(check.deviation) < 0.01 and check.fits
    assert report.plan is not None and report.plan.not_worth_it is None
    assert check.aggregate_gain == report.plan.predicted_gain
    assert check.predicted_gain is not None and check.predicted_gain > 0.05
    assert any(note.startswith(f"The replay of the traced requests predicts {check.predicted_gain:.1%}")
               for note in report.plan.notes)
    areas = {a.area: a for a in check.areas}
    assert areas["hot"].requests == 600 and areas["cold"].requests == 150
    assert areas["hot"].planned_ms is not None and areas["hot"].planned_ms < areas["hot"].replayed_ms
    assert "MODEL_DOES_NOT_FIT" not in {f.code for f in report.findings}


def test_service_times_the_model_cannot_give_refute_it_and_stop_the_plan() -> None:
    work = base_workload()
    made = model_made_requests()
    slow = Requests(made.issue_s, made.service_s * 3, made.sector, made.sectors, made.op, made.process)
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(traced(slow, work),)), models(), generated_at=NOW))
    (check,) = report.replay
    assert check.fits is False and check.deviation is not None and check.deviation < -0.5
    (misfit,) = [f for f in report.findings if f.code == "MODEL_DOES_NOT_FIT"]
    # its requests overlap: a saturated disk, judged by its busy time, which misses too (the drive's half)
    assert check.basis == "busy time" and check.busy_deviation is not None and check.busy_deviation < -0.4
    assert misfit.subject == "sda" and misfit.evidence["measure"] == "replayed busy time"
    assert report.plan is not None
    assert report.plan.not_worth_it == "the replay's self-check failed on sda (MODEL_DOES_NOT_FIT)"


def test_a_trace_of_another_disk_is_refused_in_a_line_and_the_plan_stands() -> None:
    work = base_workload()
    trace = dataclasses.replace(traced(model_made_requests(), work), disk="sdz")
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(trace,)), models(), generated_at=NOW))
    (check,) = report.replay
    assert check.refused == "trace of sdz: another disk (not in the workload's layout); no replay"
    plain = advise(AdviceRequest(work, models(), generated_at=NOW))
    assert report.plan == plain.plan


def rendered(report: Report) -> dict[str, str]:
    console = Console(file=io.StringIO(), width=140, record=True, color_system=None)
    render_terminal(report, console)
    return {"terminal": console.export_text(), "markdown": render_markdown(report), "html": render_html(report),
            "json": render_json(report)}


def test_every_format_shows_the_self_check_and_both_gains() -> None:
    work = base_workload()
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(traced(model_made_requests(), work),)), models(),
                    generated_at=NOW))
    (check,) = report.replay
    for name, text in rendered(report).items():
        if name == "json":
            assert json.loads(text)["replay"][0]["predicted_gain"] == check.predicted_gain
            continue
        flat = " ".join(text.replace("│", " ").split())  # the terminal panel wraps lines inside its borders
        assert "replay of sda: 750 traced requests, at most 5 in flight" in flat, name
        assert check.phases == 8 and check.gain_low is not None and check.gain_high is not None
        assert check.gain_error is not None
        assert (f"{check.predicted_gain:.1%} ± {check.gain_error:.1%} faster; "
                f"8 phases {check.gain_low:+.1%} to {check.gain_high:+.1%} "
                f"(aggregate model: {check.aggregate_gain:.1%})") in flat, name
        assert f"({check.deviation:+.1%}; 8 phases {check.deviation_low:+.1%} to {check.deviation_high:+.1%}, " in flat
        assert "the model fits" in flat, name


def test_a_plan_for_new_disks_has_no_replay_under_it_and_says_so() -> None:
    from advisor.engine.planner import PlanOptions

    work = base_workload()
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(traced(model_made_requests(), work),)), models(),
                    PlanOptions(new_disks=True), generated_at=NOW))
    (check,) = report.replay
    assert check.fits and check.planned_ms is None and check.predicted_gain is None
    assert "trace of sda: the plan lays out disk1, not this disk; no replay under it" in check.notes
    assert report.plan is not None and not any(n.startswith("The replay") for n in report.plan.notes)


def test_a_trace_whose_data_cannot_be_read_is_refused_and_the_report_goes_on() -> None:
    work = base_workload()
    broken = dataclasses.replace(traced(model_made_requests(), work), data="AAAA")
    report = advise(AdviceRequest(dataclasses.replace(work, traces=(broken,)), models(), generated_at=NOW))
    (check,) = report.replay
    assert check.refused is not None and check.refused.startswith("trace of sda: the trace's data is not valid")
    assert check.refused.endswith("; no replay")
    assert report.plan == advise(AdviceRequest(work, models(), generated_at=NOW)).plan


def test_a_trace_of_the_drive_run_faster_fits_the_model_on_its_clock_and_gains_the_same() -> None:
    """The emulated HDD at scale 4 serves each request in a quarter of the drive's time: the preset
    refutes it, the preset with --time-scale 4 replays it as exactly as the drive's own trace."""
    from advisor.disk.physics import ModelPhysics
    from advisor.engine.advise import Models

    work = base_workload()
    made = model_made_requests()
    start = float(made.issue_s.min())
    fast = Requests((made.issue_s - start) / 4 + start, made.service_s / 4, made.sector, made.sectors, made.op,
                    made.process)
    on_fast = dataclasses.replace(work, traces=(traced(fast, work),))
    (refuted,) = advise(AdviceRequest(on_fast, models(), generated_at=NOW)).replay
    assert refuted.fits is False
    report = advise(AdviceRequest(on_fast, Models(default=ModelPhysics(model(DISK_BYTES), time_scale=4.0)),
                                  generated_at=NOW))
    (check,) = report.replay
    assert check.fits and check.deviation is not None and abs(check.deviation) < 0.01
    (drive,) = advise(AdviceRequest(dataclasses.replace(work, traces=(traced(made, work),)), models(),
                                    generated_at=NOW)).replay
    assert check.predicted_gain == pytest.approx(drive.predicted_gain, abs=0.005)
    assert drive.replayed_span_s is not None
    assert check.replayed_span_s == pytest.approx(drive.replayed_span_s / 4, rel=0.01)
