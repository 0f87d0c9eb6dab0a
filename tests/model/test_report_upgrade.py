"""Documents written before the outcome was typed still load, into the typed fields.

``fixtures/report-v3-awr12.json`` is a report written by the version before format 4
(``advisor report --workload`` on the AWR 12.1.0.2 sample with its sizes file): its model
basis is its first warning. The no-plan cases are that document with the plan a format 3
writer left out and the words it wrote instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.model import REPORT_FORMAT_VERSION, Report, Workload
from advisor.model.jsonio import decode_document, encode
from advisor.render.markdown import render_markdown
from tests.helpers.workloads import sample_workload

OLD = Path(__file__).parent / "fixtures" / "report-v3-awr12.json"
BASIS = "the class-7200-desktop preset, the default: no --disk, --preset or --spec given"


def _load(document: dict[str, object]) -> Report:
    return decode_document(json.dumps(document), "old.json", "report", Report, REPORT_FORMAT_VERSION)


def test_a_format_3_report_reads_its_model_basis_from_its_first_warning() -> None:
    old = json.loads(OLD.read_text())
    assert old["format_version"] == 3 and old["warnings"][0] == f"disk model: {BASIS}"
    report = _load(old)
    assert report.model_basis == BASIS
    assert report.warnings == tuple(old["warnings"][1:])
    assert report.no_plan is None and report.outcome is None  # a plan worth making; no outcome was stored
    assert report.format_version == REPORT_FORMAT_VERSION  # today's shape: written again, it says so
    assert f"disk model: {BASIS}" in render_markdown(report)


@pytest.mark.parametrize(("words", "code"), [
    ("No plan: file sizes unknown for 3 of 9 areas (USERS, ...); the report states none. Give --sizes FILE.",
     "sizes-unknown"),
    ("No plan: IO waits are 3% of DB time, under 20% (use --force to plan anyway).", "not-io-bound"),
    ("No zone plan: the disks are solid state (see SOLID_STATE).", "solid-state"),
    ("No plan: the assumed disk model does not fit what was measured (see MODEL_DOES_NOT_FIT).",
     "model-does-not-fit"),
])
def test_a_format_3_report_without_a_plan_reads_the_reason_as_a_code(words: str, code: str) -> None:
    old = json.loads(OLD.read_text())
    old["plan"] = None
    old["warnings"] = [*old["warnings"], words]
    report = _load(old)
    assert report.no_plan is not None and (report.no_plan.code, report.no_plan.words) == (code, words)
    assert f"- {words}" in render_markdown(report)


def test_a_report_of_this_format_is_read_as_written() -> None:
    old = _load(json.loads(OLD.read_text()))
    again = decode_document(encode(old), "new.json", "report", Report, REPORT_FORMAT_VERSION)
    assert again == old and again.model_basis == BASIS  # no words are read again once the fields are typed


def test_a_workload_before_resets_reads_the_rules_from_its_warnings() -> None:
    work = sample_workload()
    old = json.loads(encode(work))
    del old["resets"]
    old["warnings"] = ["restart: server start time changed from a to b", "stats-reset-views: stats_reset of bgwriter",
                       "timing: track_io_timing changed from on to off; latencies dropped"]
    loaded = decode_document(json.dumps(old), "old.json", "workload", Workload, 3)
    assert set(loaded.resets) == {"restart", "stats-reset-views"}
