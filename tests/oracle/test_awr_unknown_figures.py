"""One impossible or unreadable figure of a report leaves that figure unknown, never the run or the file.

A negative ``Av 1-bk Rd(ms)`` reached the scrubber as ``read_evidence.single_block_ms["..."]``
and stopped ``collect --from-report`` with an internal error (exit 1); a literal ``NaN``
under ``Av Rd(ms)`` left the busiest file out of the workload with its reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fuzz import mutate, run
from tests.helpers.cli import run_advisor

FIXTURES = Path(__file__).parent / "fixtures"
USERS01 = "/u02/oradata/ORCL/users01.dbf"
TEXT_ROW = "       360,000     100     8.0     2.5      80     8.0      108,000"
HTML_ROW = ("users01.dbf</td><td align=\"right\" class='awrnc'>360,000</td><td align=\"right\" class='awrnc'>100"
            "</td><td align=\"right\" class='awrnc'>8.00</td><td align=\"right\" class='awrnc'>2.50</td>"
            "<td align=\"right\" class='awrnc'>80</td><td align=\"right\" class='awrnc'>8.00</td>")


def _import(tmp_path: Path, fixture: str, edit: Callable[[str], str]) -> dict:  # type: ignore[type-arg]
    text = (FIXTURES / fixture).read_text()
    edited = edit(text)
    assert edited != text, "the edit must hit the fixture"
    report = tmp_path / fixture
    report.write_text(edited)
    out = tmp_path / "workload.json"
    done = run_advisor("collect", "--from-report", str(report), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr
    data: dict = json.loads(out.read_text())  # type: ignore[type-arg]
    return data


def _text_cells(single_ms: str = "8.0", read_ms: str = "8.0") -> Callable[[str], str]:
    row = f"       360,000     100 {read_ms:>7}     2.5      80 {single_ms:>7}      108,000"
    return lambda t: t.replace(TEXT_ROW, row)


def _html_cells(single_ms: str = "8.00", read_ms: str = "8.00") -> Callable[[str], str]:
    new = HTML_ROW.replace("'awrnc'>8.00</td><td align=\"right\" class='awrnc'>2.50",
                           f"'awrnc'>{read_ms}</td><td align=\"right\" class='awrnc'>2.50")
    new = new[: new.rindex("8.00")] + single_ms + new[new.rindex("8.00") + 4:]
    return lambda t: t.replace(HTML_ROW, new)


@pytest.mark.parametrize(("fixture", "edit"), [
    ("awr_11.2.0.4.txt", _text_cells(single_ms="-8.0")),
    ("awr_11.2.0.4.html", _html_cells(single_ms="-8.00")),
])
def test_a_negative_single_block_latency_is_left_unknown(tmp_path: Path, fixture: str,
                                                          edit: Callable[[str], str]) -> None:
    data = _import(tmp_path, fixture, edit)
    users01 = next(r for r in data["rates"] if r["path"] == USERS01)
    assert users01["read_iops"] == 100.0 and users01["read_latency_ms"] == 8.0
    assert not any(USERS01 in key for key in data["read_evidence"]["single_block_ms"])
    assert any("single_block_ms" in w and "cannot be negative" in w and "left unknown" in w for w in data["warnings"])


@pytest.mark.parametrize(("fixture", "edit"), [
    ("awr_11.2.0.4.txt", _text_cells(read_ms="NaN")),
    ("awr_11.2.0.4.html", _html_cells(read_ms="NaN")),
])
def test_nan_under_av_rd_ms_leaves_only_that_latency_unknown(tmp_path: Path, fixture: str,
                                                              edit: Callable[[str], str]) -> None:
    data = _import(tmp_path, fixture, edit)
    users01 = next(r for r in data["rates"] if r["path"] == USERS01)
    assert users01["read_iops"] == 100.0 and users01["read_latency_ms"] is None
    assert users01["write_iops"] == 30.0
    assert any("'NaN'" in w and w.endswith(f"left unknown for {USERS01} (USERS)") for w in data["warnings"])
    assert not any(w.endswith(f"{USERS01} (USERS) is left out") for w in data["warnings"])


@pytest.mark.parametrize("seed", [2909407178, 158130693, 402324239, 4293612504])
def test_the_fuzz_cases_that_found_it_keep_the_property(tmp_path: Path, seed: int) -> None:
    # negative or huge latencies in read_evidence.single_block_ms, .file_histograms and .events; and
    # (4293612504, `make fuzz` at seed 2) a Statspack report cut inside the Wait Event Histogram's rule
    assert run.run_case(mutate.case_from(seed), tmp_path) is None
