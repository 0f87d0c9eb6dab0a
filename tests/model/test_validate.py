"""Impossible figures in advisor's own documents are refused when loaded, naming the field.

A workload with -3.4 IOPS or a size of -1 used to reach `report` and `plan` and come out as a
plan (exit 0); the checks live in advisor.model.validate and run inside the model's load functions.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from advisor.errors import BadInput, ExitCode
from advisor.model import DiskProfile, Latency, ZonePoint, load_disk_profile, load_snapshot, load_workload, save
from advisor.model.scrub import scrub_workload
from advisor.model.validate import check, problems
from tests.helpers.cli import run_advisor
from tests.helpers.clock import AT
from tests.helpers.snapshots import small_snapshot
from tests.helpers.workloads import sample_workload


def _edited(tmp_path: Path, document: Any, name: str, edit: Any) -> Path:
    path = tmp_path / name
    save(document, path)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


def _profile() -> DiskProfile:
    return DiskProfile("/dev/loop0", "loop0", 1 << 30, "2026-11-21T09:00:00+00:00", "builtin", 4096,
                       zones=(ZonePoint(0.0, 120e6), ZonePoint(1.0, 60e6)), band_iops={"outer": 90.0},
                       qd_iops={1: 80.0}, qd_latency={1: Latency(12.0, 11.0, 30.0)})


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["rates"][1].update(read_iops=-3.4), "rates[1].read_iops is -3.4; a rate cannot be negative"),
    (lambda d: d["rates"][0].update(size_bytes=-1), "rates[0].size_bytes is -1; a size cannot be negative"),
    (lambda d: d["rates"][2].update(read_latency_ms=-22391.0), "rates[2].read_latency_ms is -22391.0; a time cannot"),
    (lambda d: d["rates"][0].update(random_share=1.5), "Expected `float` <= 1.0 - at `$.rates[0].random_share`"),
    (lambda d: d.update(interval_s=-60.0), "interval_s is -60.0; a time cannot be negative"),
    (lambda d: d["wait"].update(io_wait_share=-0.2), "Expected `float` >= 0.0 - at `$.wait.io_wait_share`"),
    (lambda d: d.update(ended_at="yesterday"), "Expected `str` matching regex"),
    (lambda d: d["rates"].append(d["rates"][0]), "rates[10].file_id is 'WAL/0'; the same file_id as rates[0]"),
    (lambda d: d.update(started_at="2026-00-00T00:00:00"), "started_at is '2026-00-00T00:00:00'; not an ISO 8601"),
])
def test_impossible_workload_is_refused_naming_the_field(tmp_path: Path, edit: Any, message: str) -> None:
    path = _edited(tmp_path, sample_workload(), "workload.json", edit)
    with pytest.raises(BadInput) as caught:
        load_workload(path)
    assert f"workload.json: {message}" in caught.value.one_line()  # a decode refusal names the whole path
    assert caught.value.exit_code == ExitCode.BAD_INPUT


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["files"][0].update(reads=-12), "files[0].reads is -12; a count cannot be negative"),
    (lambda d: d["files"].append(d["files"][0]), "files[1].file_id is 'app/16384'; the same file_id as files[0]"),
    (lambda d: d.update(taken_at="2026-11-21T29:05:00+00:00"), "taken_at is '2026-11-21T29:05:00+00:00'; not an ISO"),
    (lambda d: d["server"]["stats_reset"].update(io="yesterday"), 'server.stats_reset["io"] is \'yesterday\''),
    (lambda d: d["layout"]["locations"][0].update(zone_end=7.0), "Expected `float` <= 1.0 - at `$.layout.locations[0]"
                                                                 ".zone_end`"),
])
def test_impossible_snapshot_is_refused_naming_the_field(tmp_path: Path, edit: Any, message: str) -> None:
    path = _edited(tmp_path, small_snapshot(), "snap.json", edit)
    with pytest.raises(BadInput, match=r"snap\.json: " + re.escape(message)):
        load_snapshot(path)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["band_iops"].update(outer=-90.0), 'band_iops["outer"] is -90.0; a rate cannot be negative'),
    (lambda d: d["zones"][1].update(bytes_per_s=-60e6),
     "zones[1].bytes_per_s is -60000000.0; a rate cannot be negative"),
    (lambda d: d["qd_latency"]["1"].update(p99_ms=-1.0), 'qd_latency["1"].p99_ms is -1.0; a time cannot'),
])
def test_impossible_disk_profile_is_refused(tmp_path: Path, edit: Any, message: str) -> None:
    path = _edited(tmp_path, _profile(), "disk.json", edit)
    with pytest.raises(BadInput, match="^disk.json: " + re.escape(message)):
        load_disk_profile(path)


def test_sound_documents_load_unchanged(tmp_path: Path) -> None:
    for document, load in ((sample_workload(), load_workload), (small_snapshot(), load_snapshot),
                           (_profile(), load_disk_profile)):
        path = tmp_path / "doc.json"
        save(document, path)
        assert load(path) == document


def test_a_report_the_engine_writes_is_possible() -> None:
    from advisor.engine.advise import AdviceRequest, advise
    from tests.helpers.workloads import models

    report = advise(AdviceRequest(sample_workload(), models(), generated_at=AT))
    assert report.findings and report.plan is not None
    assert list(problems(report)) == []
    assert check(report, "report.json") is report


def test_scrub_drops_figures_and_rows_with_warnings() -> None:
    work = sample_workload()
    rates = list(work.rates)
    rates[0] = dataclasses.replace(rates[0], read_latency_ms=float("nan"))
    rates[1] = dataclasses.replace(rates[1], read_iops=-1.0)
    clean = scrub_workload(dataclasses.replace(work, rates=tuple(rates), warnings=()))
    assert clean.rates[0].read_latency_ms is None and rates[1].file_id not in {r.file_id for r in clean.rates}
    assert len(clean.rates) == len(rates) - 1 and len(clean.warnings) == 2
    assert "read_latency_ms is nan; a time must be a number; left unknown" in clean.warnings[0]
    assert "read_iops is -1.0; a rate cannot be negative; the row is left out" in clean.warnings[1]
    assert list(problems(clean)) == []


@pytest.mark.parametrize("command", [["report", "--workload"], ["plan", "--workload"]])
def test_report_and_plan_refuse_a_negative_rate_with_exit_6(tmp_path: Path, command: list[str]) -> None:
    path = _edited(tmp_path, sample_workload(), "workload.json", lambda d: d["rates"][1].update(read_iops=-3.4))
    out = tmp_path / "out.json"
    done = run_advisor(*command, str(path), "--preset", "hdd-7200", "-o", str(out))
    assert done.returncode == 6, done.stderr
    assert done.stderr.strip() == ("advisor: error: workload.json: rates[1].read_iops is -3.4; "
                                   "a rate cannot be negative")
    assert not out.exists()


def test_shares_and_times_are_known_by_their_type_in_memory_too() -> None:
    """A document built in memory (an imported report is never decoded) is checked by the same types."""
    from advisor.model.kinds import SHARE, Share, Timestamp, is_share, is_timestamp

    assert is_share(Share | None) and is_timestamp(Timestamp) and not is_share(float) and SHARE.le == 1.0
    workload = sample_workload()
    rates = list(workload.rates)
    rates[0] = dataclasses.replace(rates[0], random_share=1.5)
    bad = dataclasses.replace(workload, rates=tuple(rates), started_at="2026-02-30T00:00:00")
    found = {p.where: p.why for p in problems(bad)}
    assert found["rates[0].random_share"] == "a share must be between 0 and 1"
    assert found["started_at"] == "not an ISO 8601 time"
    scrubbed = scrub_workload(dataclasses.replace(workload, rates=tuple(rates)))
    assert scrubbed.rates[0].random_share is None and any("random_share" in w for w in scrubbed.warnings)
