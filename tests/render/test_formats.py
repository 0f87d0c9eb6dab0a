"""Structure of the JSON, Markdown, terminal and HTML renderings of a real engine report."""

from __future__ import annotations

import io
import json
import re

from rich.console import Console

from advisor.engine.audit_map import build_audit_maps
from advisor.model import REPORT_FORMAT_VERSION, Report
from advisor.model.jsonio import from_jsonable
from advisor.render.html import render_html
from advisor.render.json import render_json
from advisor.render.markdown import render_markdown
from advisor.render.terminal import render_terminal
from tests.helpers.workloads import sample_workload


def test_json_has_the_documented_fields_and_round_trips(report: Report) -> None:
    data = json.loads(render_json(report))
    assert data["document"] == "report" and data["format_version"] == REPORT_FORMAT_VERSION == 4
    assert {f["code"] for f in data["findings"]} >= {"CROSS_SURFACE", "HOT_ON_INNER", "WAL_SHARES_ACTUATOR",
                                                       "ARCHIVE_ON_OUTER"}
    for finding in data["findings"]:
        assert {"code", "severity", "evidence", "predicted_gain", "action", "subject", "title"} <= set(finding)
        assert isinstance(finding["evidence"], dict) and finding["evidence"]
    plan = data["plan"]
    assert {"partitions", "placements", "service_times", "predicted_before_ms", "predicted_after_ms",
            "predicted_gain", "scripts", "method"} <= set(plan)
    assert plan["predicted_after_ms"] < plan["predicted_before_ms"]
    assert len(plan["service_times"]) == len(data["areas"]) == 5
    assert from_jsonable(Report, data) == report


def test_markdown_sections_tables_and_scripts(report: Report) -> None:
    text = render_markdown(report)
    headings = re.findall(r"^#+ .*$", text, flags=re.MULTILINE)
    assert headings[:4] == ["# advisor report", "## Findings", "## Areas", "## Plan"]
    finding_rows = [line for line in text.splitlines() if line.startswith("| ") and "`" in line.split("|")[2]]
    assert [row.split("|")[2].strip().strip("`") for row in finding_rows] == [f.code for f in report.findings]
    assert report.plan is not None
    plan_rows = [line for line in text.splitlines() if re.match(r"^\| \S+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|", line)]
    assert len(plan_rows) == len(report.plan.service_times)
    for script in report.plan.scripts:
        assert f"### `{script.name}`" in text
    assert text.count("````") == 2 * len(report.plan.scripts)


def test_terminal_shows_findings_plan_and_both_disk_maps(report: Report) -> None:
    console = Console(file=io.StringIO(), width=140, record=True, color_system=None)
    render_terminal(report, console, build_audit_maps(sample_workload()))
    text = console.export_text()
    for finding in report.findings:
        assert finding.code in text
    assert "before ms" in text and "after ms" in text
    assert "tablespace orders" in text, "the current map comes from the audit disk map"
    assert re.search(r"plan outer .* inner", text)
    assert "MB/s" in text and "Partitions from the outer edge" in text


def test_html_is_self_contained_with_inline_svg(report: Report) -> None:
    page = render_html(report)
    assert page.startswith("<!DOCTYPE html>")
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="diskmap"' in page
    assert 'class="zonecurve"' in page
    without_ns = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "http://" not in without_ns and "https://" not in without_ns
    assert not re.search(r"<(script|link|img|iframe)\b", page)
    for finding in report.findings:
        assert f'data-code="{finding.code}"' in page


def test_each_rate_names_its_own_megabyte(report: Report) -> None:
    """The areas' rates are MiB/s (2^20 bytes, as the documents store them); a drive's zone rates
    are datasheet MB/s (10^6). Both once read "MB/s" side by side in one report, 4.9 % apart."""
    console = Console(file=io.StringIO(), width=160, record=True, color_system=None)
    render_terminal(report, console, build_audit_maps(sample_workload()))
    terminal = console.export_text()
    header = next(line for line in terminal.splitlines() if "IO share" in line and "IOPS" in line)
    assert "MiB/s" in header and " MB/s" not in header
    assert re.search(r"\d MB/s .* \d+ MB/s", terminal), "the zone curve keeps the drive's MB/s"
    assert "| MiB/s |" in render_markdown(report) and "<th>MiB/s</th>" in render_html(report)
