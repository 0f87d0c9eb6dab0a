"""`advisor plan` and `advisor report` through the real command line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from advisor.model import save
from tests.helpers.cli import run_advisor
from tests.helpers.workloads import AreaSpec, sample_workload, workload


@pytest.fixture()
def workload_file(tmp_path: Path) -> Path:
    path = tmp_path / "workload.json"
    save(sample_workload(), path)
    return path


def test_plan_two_disks_json_and_scripts(workload_file: Path, tmp_path: Path) -> None:
    scripts = tmp_path / "scripts"
    done = run_advisor("plan", "--workload", str(workload_file), "--preset", "class-7200-desktop", "--disks", "2",
                   "--format", "json", "--scripts", str(scripts))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    plan = report["plan"]
    disks = {p["disk"] for p in plan["partitions"]}
    assert disks == {"disk1", "disk2"}
    wal_disk = {p["disk"] for p in plan["partitions"] if "WAL" in p["areas"]}
    assert len(wal_disk) == 1 and all(p["areas"] == ["WAL"] for p in plan["partitions"] if p["disk"] in wal_disk)
    assert plan["predicted_after_ms"] < plan["predicted_before_ms"]
    names = sorted(p.name for p in scripts.iterdir())
    assert names == sorted(s["name"] for s in plan["scripts"])
    assert "sfdisk-disk1.txt" in names and "postgres.sql" in names and "move_wal.sh" in names
    assert os.access(scripts / "move_wal.sh", os.X_OK)
    assert report["disks"]["target"]["model"] == "class-7200-desktop"
    # 'before' is today's layout (from the workload's host layout) on the target model
    assert plan["predicted_before_ms"] == pytest.approx(report["disks"]["sda"]["mean_ms_now"], abs=1e-3)
    assert "today's layout" in plan["notes"][0]


def test_report_workload_markdown_to_file(workload_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    done = run_advisor("report", "--workload", str(workload_file), "--preset", "class-10k", "--format", "markdown",
                   "-o", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("# advisor report") and "CROSS_SURFACE" in text
    assert not list(tmp_path.glob(".report.md.*")), "no temp file left behind"


def test_not_io_bound_workload_gets_no_plan_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    save(workload([AreaSpec("hot", read_iops=100, zone=(0.9, 0.95))], io_share=0.04), path)
    plain = json.loads(run_advisor("report", "--workload", str(path), "--format", "json").stdout)
    assert [f["code"] for f in plain["findings"]][0] == "NOT_IO_BOUND" and plain["plan"] is None
    forced = json.loads(run_advisor("report", "--workload", str(path), "--format", "json", "--force").stdout)
    assert forced["plan"] is not None


@pytest.mark.parametrize("args, message", [
    (["report", "--workload", "/nonexistent/w.json"], "no such file"),
    (["report"], "nothing to report on"),
    (["report", "--snapshot", "/nonexistent/a.json"], "at least two"),
    (["plan", "--workload", "{corrupt}", "--preset", "class-10k"], "not valid JSON"),
    (["plan", "--workload", "{good}", "--preset", "no-such-drive"], "no-such-drive"),
    (["plan", "--workload", "{good}", "--preset", "class-10k", "--dbms", "mysql"], "use postgres or oracle"),
])
def test_bad_input_is_one_line_exit_6_and_writes_nothing(
    args: list[str], message: str, workload_file: Path, tmp_path: Path
) -> None:
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"document": "workload", "format_version": 1, "server": ')
    out = tmp_path / "out.json"
    argv = [a.replace("{corrupt}", str(corrupt)).replace("{good}", str(workload_file)) for a in args]
    done = run_advisor(*argv, "-o", str(out))
    assert done.returncode == 6, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("advisor: error:") and message in lines[0]
    assert "Traceback" not in done.stderr and not out.exists()


def test_measured_profile_is_fitted_and_used_for_its_disk(workload_file: Path, tmp_path: Path) -> None:
    from dataclasses import replace

    from advisor.disk.presets import get_model
    from advisor.disk.synth import synthesize_profile

    profile = replace(synthesize_profile(get_model("class-5400-laptop"), ios=600, depths=(1,)), device="/dev/sda",
                      target="/dev/sda")
    path = tmp_path / "disk.json"
    save(profile, path)
    done = run_advisor("report", "--workload", str(workload_file), "--disk", str(path), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["disks"]["sda"]["model"].startswith("fitted-") and report["disks"]["sda"]["rpm"] == 5400
    ssd = replace(profile, classification="solid-state", classification_reason="no seek cost measured")
    save(ssd, path)
    flat = json.loads(run_advisor("report", "--workload", str(workload_file), "--disk", str(path), "--format",
                              "json").stdout)
    assert "SOLID_STATE" in {f["code"] for f in flat["findings"]} and flat["plan"] is None
    assert not {"HOT_ON_INNER", "CROSS_SURFACE"} & {f["code"] for f in flat["findings"]}


def test_a_profile_its_fitted_model_misses_refutes_the_model_for_its_disk(workload_file: Path,
                                                                          tmp_path: Path) -> None:
    """A scratch file's profile on a cached virtual disk, classified "unknown" (no mechanical sign, not
    clearly flash either): the closest drive missed its figures by 55-180 % RMS, and the report planned
    zones on that drive without a word. Now the fit's own error refutes the model before it predicts."""
    from dataclasses import replace

    from advisor.disk.presets import get_model
    from advisor.disk.synth import synthesize_profile
    from advisor.engine.model_fit import FIT_TOLERANCE
    from advisor.model.disk import ZonePoint

    drive = replace(synthesize_profile(get_model("class-7200-desktop"), ios=600, depths=(1,)), device="/dev/sda",
                    target="/dev/sda")
    rates = [1136.6, 1221.3, 1472.8, 182.9, 1460.8, 1746.1, 513.6, 1150.8, 1168.0, 1854.3]  # MB/s, as cached
    cached = replace(drive, rpm=None, classification="unknown", zones=tuple(
        ZonePoint(i / 9, r * 1e6) for i, r in enumerate(rates)),
        band_iops=dict.fromkeys(drive.band_iops, 12000.0), full_stroke_iops=11500.0, cross_surface_iops=20000.0)
    found = {}
    for name, profile in (("drive", drive), ("cached", cached)):
        path = tmp_path / f"{name}.json"
        save(profile, path)
        done = run_advisor("report", "--workload", str(workload_file), "--disk", str(path), "--format", "json")
        assert done.returncode == 0, done.stderr
        found[name] = json.loads(done.stdout)
    fits = [f for f in found["drive"]["findings"] if f["code"] == "MODEL_DOES_NOT_FIT"]
    assert not [f for f in fits if f["evidence"]["measure"] == "bench fit"]
    refuted = [f for f in found["cached"]["findings"]
               if f["code"] == "MODEL_DOES_NOT_FIT" and f["evidence"]["measure"] == "bench fit"]
    assert [f["subject"] for f in refuted] == ["sda"]
    assert refuted[0]["evidence"]["measured"] > 100 * FIT_TOLERANCE
    assert "misses its figures by" in refuted[0]["title"]
    assert not {"HOT_ON_INNER", "CROSS_SURFACE", "HOT_DATA_SPREAD"} & {f["code"] for f in found["cached"]["findings"]}
    partitions = (found["cached"]["plan"] or {}).get("partitions", [])
    assert not [p for p in partitions if p["disk"] == "sda"], "a zone plan rests on a refuted model"


def test_output_into_a_fifo_writes_through_it_and_keeps_it(workload_file: Path, tmp_path: Path) -> None:
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    done = run_advisor("report", "--workload", str(workload_file), "--format", "json", "-o", str(fifo))
    reader.join(timeout=60)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO (like /dev/null) must not be replaced by a file"
    assert json.loads(received[0])["document"] == "report"


def test_lying_cache_is_found_from_a_profile_without_rpm(workload_file: Path, tmp_path: Path) -> None:
    from dataclasses import replace

    from advisor.disk.presets import get_model
    from advisor.disk.synth import synthesize_profile

    honest = replace(synthesize_profile(get_model("class-7200-desktop"), ios=600, depths=(1,)), device="/dev/sda",
                     target="/dev/sda", rpm=None)
    assert honest.commit_per_s is not None and honest.commit_per_s <= 1.2 * 7200 / 60
    lying = replace(honest, commit_per_s=2500.0)
    for profile, expected in ((honest, False), (lying, True)):
        path = tmp_path / "disk.json"
        save(profile, path)
        done = run_advisor("report", "--workload", str(workload_file), "--disk", str(path), "--preset",
                       "class-7200-desktop", "--format", "json")
        assert done.returncode == 0, done.stderr
        codes = {f["code"]: f for f in json.loads(done.stdout)["findings"]}
        assert ("CACHE_LIES" in codes) is expected
        if expected:
            assert codes["CACHE_LIES"]["evidence"]["rpm"] == 7200


def test_plan_in_place_stages_today_s_disk_and_refuses_a_small_spare(tmp_path: Path) -> None:
    """--in-place plans the workload's own disk; no spare, or --spare alone, is exit 6."""
    workload_file = tmp_path / "w.json"
    save(workload([AreaSpec("hot", size_gb=0.5, read_iops=300, zone=(0.7, 0.75)),
                   AreaSpec("WAL", kind="wal", size_gb=0.1, write_iops=50, random_share=None, zone=(0.0, 0.02)),
                   AreaSpec("cold", size_gb=1, read_iops=1, zone=(0.3, 0.4))]), workload_file)
    spare = tmp_path / "spare"
    spare.mkdir()
    done = run_advisor("plan", "--workload", str(workload_file), "--preset", "class-7200-desktop", "--force",
                       "--in-place", "--format", "json")
    assert done.returncode == 6 and "--spare DIR" in done.stderr, done.stderr
    done = run_advisor("plan", "--workload", str(workload_file), "--preset", "class-7200-desktop", "--force",
                       "--spare", str(spare))
    assert done.returncode == 6 and "--spare goes with --in-place" in done.stderr, done.stderr
    free = os.statvfs(spare).f_bavail * os.statvfs(spare).f_frsize
    done = run_advisor("plan", "--workload", str(workload_file), "--preset", "class-7200-desktop", "--force",
                       "--in-place", "--spare", str(spare), "--format", "json", "--scripts", str(tmp_path / "s"))
    if "no order of moves fits" in done.stderr:  # this machine's free space is smaller than the areas
        assert done.returncode == 6 and free < 2 << 30, done.stderr
        return
    assert done.returncode == 0, done.stderr
    stages = json.loads(done.stdout)["plan"]["stages"]
    assert [s["number"] for s in stages] == [1, 2, 3] and stages[0]["needs_bytes"] <= free
    assert os.stat(tmp_path / "s" / "stage1-evacuate.sql").st_mode & 0o044 == 0o044, "readable by the server's account"
