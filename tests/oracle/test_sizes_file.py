"""Sizes for imported AWR/Statspack workloads: refused without them, planned with them, bad files refused.

The reports are the fixtures of tests/oracle/fixtures (12.2 CDB HTML, 11.2.0.4 text); the
sizes files are the ``sizes`` query's rows printed as SQL*Plus prints them
(:mod:`tests.oracle.sizes_shapes`). Every run goes through the real command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.render.safe import markdown_cell
from tests.helpers.cli import run_advisor
from tests.oracle.sizes_rows import COLUMNS_11, COLUMNS_12, rows_11, rows_12
from tests.oracle.sizes_shapes import sqlplus_csv, sqlplus_grid

FIXTURES = Path(__file__).parent / "fixtures"
GIB = 1 << 30
INVENTORY = """host = "db-new"
headroom = 0.3

[[device]]
name = "ssd0"
medium = "ssd"
capacity = "480 GB"
preset = "sata-ssd"

[[device]]
name = "hdd"
medium = "hdd"
capacity = "4 TB"
count = 2
preset = "class-7200-desktop"
"""
@pytest.fixture()
def inventory(tmp_path: Path) -> Path:
    path = tmp_path / "inventory.toml"
    path.write_text(INVENTORY)
    return path


def _import(report: str, tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "workload.json"
    done = run_advisor("collect", "--from-report", str(FIXTURES / report), "-o", str(out), *extra)
    assert done.returncode == 0, done.stderr
    return out


def _tier_sizes(report: dict) -> dict[str, int]:  # type: ignore[type-arg]
    return {a["area"]: a["size_bytes"] for a in report["plan"]["tiers"]["assignments"]}


def test_an_import_without_sizes_is_refused_by_both_plans(tmp_path: Path, inventory: Path) -> None:
    work = _import("awr_12.2.0.1_cdb.html", tmp_path)
    data = json.loads(work.read_text())
    assert all(r["size_bytes"] is None for r in data["rates"]), "a report states no size: unknown, not 0"
    for args in (("--target", str(inventory)), ("--preset", "class-7200-desktop")):
        done = run_advisor("plan", "--workload", str(work), *args)
        assert done.returncode == 6, done.stdout
        line = done.stderr.strip()
        assert "\n" not in line and "--sizes" in line and "advisor sql show sizes --dbms oracle --version 12" in line
        assert "USERS" in line and "--assume-size" in line
        assert not done.stdout


def test_report_shows_findings_and_the_same_line_instead_of_a_plan(tmp_path: Path) -> None:
    work = _import("awr_11.2.0.4.txt", tmp_path)
    done = run_advisor("report", "--workload", str(work), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["plan"] is None and report["areas"]
    assert all(a["size_bytes"] is None for a in report["areas"])  # unknown, not a false 0
    line = next(w for w in report["warnings"] if w.startswith("No plan: file sizes unknown"))
    refused = run_advisor("plan", "--workload", str(work), "--preset", "class-7200-desktop")
    assert refused.returncode == 6 and line in refused.stderr
    markdown = run_advisor("report", "--workload", str(work), "--format", "markdown")
    plan_section = markdown.stdout.split("## Plan", 1)[1]
    assert markdown_cell(line) in plan_section
    areas_section = markdown.stdout.split("## Areas", 1)[1].split("## Plan", 1)[0]
    assert "| unknown |" in areas_section and "| 0 B |" not in areas_section


def test_sqlplus_csv_sizes_reach_the_tier_plan(tmp_path: Path, inventory: Path) -> None:
    sizes = tmp_path / "sizes.csv"
    sizes.write_text(sqlplus_csv(COLUMNS_12, rows_12()))
    work = _import("awr_12.2.0.1_cdb.html", tmp_path, "--sizes", str(sizes))
    data = json.loads(work.read_text())
    assert data["sizes"]["file_format"] == "sqlplus-csv" and data["sizes"]["taken_at"] == "2026-11-20T10:05:00"
    assert data["sizes"]["files_unknown"] == 0
    done = run_advisor("plan", "--workload", str(work), "--target", str(inventory), "--format", "json")
    assert done.returncode == 0, done.stderr
    sizes_of = _tier_sizes(json.loads(done.stdout))
    assert sizes_of["USERS"] == 600 * GIB and sizes_of["SYSTEM"] == 1 * GIB  # the root's SYSTEM is not SALES'
    assert sizes_of["redo"] == 2 * GIB and sizes_of["control"] == 20 << 20 and sizes_of["archive"] == 300 * GIB
    # 600 GiB of USERS cannot all sit on the 480 GB SSD: the sizes decide, not 1 MiB each
    devices = {a["area"]: a["device"] for a in json.loads(done.stdout)["plan"]["tiers"]["assignments"]}
    assert devices["USERS"] != "ssd0"


def test_sqlplus_grid_sizes_reach_the_zone_plan(tmp_path: Path) -> None:
    sizes = tmp_path / "sizes.txt"
    text = sqlplus_grid(COLUMNS_11, rows_11())
    assert text.count("FILE_NAME") == 2, "the fixture must cross a page break"
    sizes.write_text(text)
    work = _import("awr_11.2.0.4.txt", tmp_path)
    done = run_advisor("plan", "--workload", str(work), "--sizes", str(sizes), "--preset", "class-7200-desktop",
                   "--disks", "2", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    by_area = {a["name"]: a["size_bytes"] for a in report["areas"]}
    assert by_area["USERS"] == 600 * GIB  # two files by name, users03 (no IO) added with its size
    assert by_area["TEMP"] == 32 * GIB and by_area["redo"] == 2 * GIB
    placed = {p["area"]: p["size_bytes"] for p in report["plan"]["placements"]}
    assert placed["USERS"] == 600 * GIB
    users = next(p for p in report["plan"]["placements"] if p["area"] == "USERS")
    assert users["zone_end"] - users["zone_start"] > 0.1  # not 0.0%-0.0%
    assert not any(a["size_assumed"] for a in report["areas"])


def test_assume_size_plans_and_marks_every_output(tmp_path: Path, inventory: Path) -> None:
    work = _import("awr_12.2.0.1_cdb.html", tmp_path)
    done = run_advisor("plan", "--workload", str(work), "--target", str(inventory), "--assume-size", "10G",
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert all(a["size_assumed"] for a in report["areas"])
    assert set(_tier_sizes(report).values()) == {10 * GIB}
    assert any(w.startswith("sizes assumed:") for w in report["warnings"])
    for fmt in ("terminal", "markdown", "html"):
        shown = run_advisor("plan", "--workload", str(work), "--target", str(inventory), "--assume-size", "10G",
                        "--format", fmt)
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.count("assumed") >= len(report["areas"]), fmt


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda rows: [r | {"file_name": f"/nowhere/x{i}.dbf", "tablespace": "NOPE", "kind": "datafile"}
                   for i, r in enumerate(rows)],
     "none of its 14 rows matches"),
    (lambda rows: [*rows, dict(rows[3])], "is listed twice"),
    (lambda rows: [r | {"bytes": "300 MB"} if i == 4 else r for i, r in enumerate(rows)], "in different units"),
    (lambda rows: [r | {"dbid": "42", "db_name": "PROD"} for r in rows], "refused"),
])
def test_bad_sizes_files_are_one_line_naming_file_and_line(tmp_path: Path, mutate, expected: str) -> None:  # type: ignore[no-untyped-def]
    sizes = tmp_path / "sizes.csv"
    sizes.write_text(sqlplus_csv(COLUMNS_11, mutate(rows_11())))
    work = _import("awr_11.2.0.4.txt", tmp_path)
    done = run_advisor("plan", "--workload", str(work), "--sizes", str(sizes), "--preset", "class-7200-desktop")
    assert done.returncode == 6, done.stdout
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert expected in line and str(sizes) in line
    assert expected == "none of its 14 rows matches" or " line " in line


@pytest.mark.parametrize("shape", ["csv", "grid"])
def test_truncated_sizes_files_are_refused(tmp_path: Path, shape: str) -> None:
    full = sqlplus_csv(COLUMNS_11, rows_11()) if shape == "csv" else sqlplus_grid(COLUMNS_11, rows_11())
    sizes = tmp_path / "sizes.txt"
    cut = full[: full.index("redo02a")]  # cut in the middle of a row, the footer lost
    sizes.write_text(cut)
    work = _import("awr_11.2.0.4.txt", tmp_path)
    done = run_advisor("collect", "--from-report", str(FIXTURES / "awr_11.2.0.4.txt"), "--sizes", str(sizes),
                   "-o", str(tmp_path / "out.json"))
    assert done.returncode == 6 and str(sizes) in done.stderr and "truncated" in done.stderr
    assert not (tmp_path / "out.json").exists()
    assert work.exists()


def test_feedback_count_that_disagrees_is_truncation(tmp_path: Path) -> None:
    text = sqlplus_csv(COLUMNS_11, rows_11()).replace("14 rows selected.", "15 rows selected.")
    sizes = tmp_path / "sizes.csv"
    sizes.write_text(text)
    work = _import("awr_11.2.0.4.txt", tmp_path)
    done = run_advisor("plan", "--workload", str(work), "--sizes", str(sizes), "--preset", "class-7200-desktop")
    assert done.returncode == 6 and "says 15 rows but 14 were read" in done.stderr
