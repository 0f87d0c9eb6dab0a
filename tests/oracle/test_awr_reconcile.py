"""Each report import checks itself against the report's own redundant figures (issue 27).

The central property: deleting any one File IO Stats row from any fixture makes the import
fall short of Tablespace IO Stats, the warning names the row's tablespace, and ``--strict``
refuses the import with exit 6. The Statspack data warehouse fixture (the layout that once
lost ten files of eleven without a word) yields every file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import tests.oracle.report_truth as T
from advisor.cli import app
from advisor.collectors.awr import html, read_report, text
from advisor.collectors.awr.reconcile import strict_shortfalls
from advisor.errors import BadInput, ExitCode
from advisor.model import refuse_shortfalls
from tests.helpers.cli import run_advisor

FIXTURES = Path(__file__).parent / "fixtures"
WITH_FILES = ["awr_11.2.0.3_rac.html", "awr_11.2.0.4.html", "awr_12.1.0.2.html", "awr_12.2.0.1_cdb.html",
              "awr_11.2.0.4.txt", "statspack_11.2.0.4.txt", "statspack_11.2.0.4_dwh.txt"]
DWH = "statspack_11.2.0.4_dwh.txt"


def file_rows(name: str) -> list[tuple[str, str, list[int]]]:
    """(tablespace, file name, 1-based lines that print the row) of every File IO Stats row."""
    content = (FIXTURES / name).read_text()
    if name.endswith(".html"):
        table, _ = html.section(html.blocks(content), "File IO Stats")
        assert table is not None
        return [(row[0], row[1], [line]) for row, line in zip(table.rows, table.row_lines, strict=True)]
    section = text.sections(content)["File IO Stats"]
    rows = text.file_grid_rows(text.grid(section))
    return [(ts, filename, list(range(row.line - len(row.name_lines), row.line + 1))) for ts, filename, row in rows]


def without(tmp_path: Path, name: str, lines: list[int]) -> Path:
    kept = [line for number, line in enumerate((FIXTURES / name).read_text().splitlines(keepends=True), start=1)
            if number not in lines]
    target = tmp_path / name
    target.write_text("".join(kept))
    return target


def cases() -> list[tuple[str, str, str, list[int]]]:
    return [(name, ts, filename, lines) for name in WITH_FILES for ts, filename, lines in file_rows(name)]


def test_every_fixture_with_files_accounts_for_all_its_tablespace_io() -> None:
    for name in WITH_FILES:
        result = read_report(FIXTURES / name)
        checks = {c.measure: c for c in result.coverage}
        assert checks["tablespace reads"].accounted == pytest.approx(checks["tablespace reads"].stated), name
        assert checks["tablespace reads"].line().startswith("files account for 100.0 % of tablespace reads"), name
        assert not strict_shortfalls(result), name
        assert not any("rows were not read" in w for w in result.warnings), name


@pytest.mark.parametrize(("name", "tablespace", "filename", "lines"), cases(),
                         ids=[f"{c[0]}:{c[2].rsplit('/', 1)[-1]}" for c in cases()])
def test_deleting_any_file_row_names_its_tablespace(tmp_path: Path, name: str, tablespace: str, filename: str,
                                                    lines: list[int]) -> None:
    path = without(tmp_path, name, lines)
    result = read_report(path)
    assert filename not in {r.path for r in result.rates}
    shown = f"{tablespace} (SALES)" if "cdb" in name else tablespace  # a CDB report names the PDB too
    gaps = [w for w in result.warnings if w.startswith(f"File IO Stats: the files of {shown} sum to ")]
    assert gaps and "Tablespace IO Stats says" in gaps[0] and gaps[0].endswith("rows were not read")
    reads = next(c for c in result.coverage if c.measure == "tablespace reads")
    assert reads.accounted < reads.stated and reads.shortfalls
    with pytest.raises(BadInput) as caught:
        refuse_shortfalls(result.coverage, str(path))
    assert caught.value.exit_code == ExitCode.BAD_INPUT and f"the files of {shown}" in caught.value.one_line()
    out = tmp_path / "w.json"
    strict = CliRunner().invoke(app, ["collect", "--from-report", str(path), "--strict", "-o", str(out)])
    assert strict.exit_code == ExitCode.BAD_INPUT and f"the files of {shown} sum to" in strict.stderr
    assert not out.exists()


def test_strict_exits_6_from_collect_workload_and_report(tmp_path: Path) -> None:
    tablespace, _, lines = file_rows(DWH)[2]  # DWH_STAGE's first file
    path = without(tmp_path, DWH, lines)
    loose = run_advisor("collect", "--from-report", str(path), "-o", str(tmp_path / "w.json"))
    assert loose.returncode == 0 and (tmp_path / "w.json").exists()
    strict = run_advisor("collect", "--from-report", str(path), "--strict", "-o", str(tmp_path / "strict.json"))
    assert strict.returncode == 6 and f"the files of {tablespace} sum to 720,000 reads" in strict.stderr
    assert not (tmp_path / "strict.json").exists()  # refused before anything is written
    shown = run_advisor("workload", str(tmp_path / "w.json"))
    assert shown.returncode == 0
    assert ("files account for 90.1 % of tablespace reads, 50.6 % of tablespace writes (File IO Stats / "
            "Tablespace IO Stats)") in shown.stdout
    assert run_advisor("workload", str(tmp_path / "w.json"), "--strict").returncode == 6
    refused = run_advisor("report", "--workload", str(tmp_path / "w.json"), "--preset", "class-7200-desktop",
                          "--strict")
    assert refused.returncode == 6 and "rows were not read" in refused.stderr
    report = run_advisor("report", "--workload", str(tmp_path / "w.json"), "--preset", "class-7200-desktop", "--force")
    assert report.returncode == 0 and "files account for 90.1 % of tablespace reads" in report.stdout
    markdown = run_advisor("report", "--workload", str(tmp_path / "w.json"), "--preset", "class-7200-desktop",
                           "--force", "--format", "markdown")
    assert "- files account for 90.1 % of tablespace reads, 50.6 % of tablespace writes" in markdown.stdout


def test_statspack_dwh_layout_yields_every_file_row() -> None:
    result = read_report(FIXTURES / DWH)
    rates = {r.path: r for r in result.rates if r.path}
    assert set(rates) == {f.path for f in T.DWH_FILES}
    for truth in T.DWH_FILES:
        rate = rates[truth.path]
        assert (rate.tablespace, rate.kind) == (truth.tablespace, truth.kind)
        assert rate.read_iops == pytest.approx(truth.reads / T.INTERVAL_S)
        assert rate.write_iops == pytest.approx(truth.writes / T.INTERVAL_S)
        assert rate.mean_read_kb == pytest.approx(truth.av_blks_rd * 8)
        # a stated latency is kept: 16.7 ms on DWH_LOB beside a 1.50 ms instance average is a cold file on a disk
        assert rate.read_latency_ms == pytest.approx(truth.av_rd_ms)
    assert result.warnings == ()


def test_dwh_layout_printed_with_a_break_on_the_tablespace(tmp_path: Path) -> None:
    page = (FIXTURES / DWH).read_text()
    second = "DWH_STAGE                /u03/oradata/DWH/dwh_stage02.dbf"
    assert second in page
    target = tmp_path / DWH
    target.write_text(page.replace(second, " " * 25 + "/u03/oradata/DWH/dwh_stage02.dbf"))
    result = read_report(target)
    stage = [r for r in result.rates if r.tablespace == "DWH_STAGE"]
    assert len(stage) == 2 and not strict_shortfalls(result)


def test_names_that_fill_their_column_stay_two_files(tmp_path: Path) -> None:
    page = (FIXTURES / DWH).read_text()
    cut = "/u03/oradata/DWH/dwh_stage_a_very_long_name_cut_by_sql_plus"[:52]
    page = page.replace("/u03/oradata/DWH/dwh_stage01.dbf", cut).replace("/u03/oradata/DWH/dwh_stage02.dbf", cut)
    target = tmp_path / DWH
    target.write_text(page)
    result = read_report(target)
    stage = [r for r in result.rates if r.tablespace == "DWH_STAGE"]
    assert sorted(r.path for r in stage) == [cut, f"{cut} [2]"]
    assert sum("fills its column and may be cut short" in w for w in result.warnings) == 2
    assert not strict_shortfalls(result)


def test_filetype_check_is_looser_and_never_strict(tmp_path: Path) -> None:
    result = read_report(FIXTURES / "awr_11.2.0.4.html")
    loose = {c.measure: c for c in result.coverage if c.check == "File IO Stats / IOStat by Filetype"}
    assert all(not c.strict for c in result.coverage if c.check != "File IO Stats / Tablespace IO Stats")
    assert set(loose) == {"Data File reads", "Data File writes", "Temp File reads", "Temp File writes"}
    assert loose["Data File reads"].accounted == pytest.approx(181.0 * T.INTERVAL_S)
    # a report whose Data File figure is twice what the files sum to: a warning, not a --strict failure
    page = (FIXTURES / "awr_11.2.0.4.html").read_text().replace(">Data File</td><td align=\"right\" class='awrnc'>"
                                                                 "7.0G</td><td align=\"right\" class='awrnc'>181.00<",
                                                                 ">Data File</td><td align=\"right\" class='awrnc'>"
                                                                 "7.0G</td><td align=\"right\" class='awrnc'>362.00<")
    target = tmp_path / "twice.html"
    target.write_text(page)
    doubled = read_report(target)
    assert any("IOStat by Filetype summary says 1,303,200 for Data File (50.0 %)" in w for w in doubled.warnings)
    assert not strict_shortfalls(doubled)


@pytest.mark.parametrize("name", ["awr_11.2.0.4.txt", "awr_12.2.0.1_cdb.html"])
def test_load_profile_is_the_loosest_check(tmp_path: Path, name: str) -> None:
    result = read_report(FIXTURES / name)
    profile = {c.measure: c for c in result.coverage if c.check == "File IO Stats / Load Profile"}
    # Read IO requests count control file reads too (20/s here): the files fall short of it by design
    assert profile["read IO requests"].stated == pytest.approx(T.LOAD_PROFILE_READS_S * T.INTERVAL_S)
    assert profile["read IO requests"].accounted == pytest.approx((T.LOAD_PROFILE_READS_S - 20.0) * T.INTERVAL_S)
    assert not profile["read IO requests"].strict and not profile["read IO requests"].shortfalls
    page = (FIXTURES / name).read_text()
    doubled = page.replace("206.0", "412.0", 1)
    assert doubled != page
    target = tmp_path / name
    target.write_text(doubled)
    warned = read_report(target)
    assert any("Load Profile says 1,483,200 read IO requests (45.1 %)" in w for w in warned.warnings)
    assert not strict_shortfalls(warned)


def test_awr_text_file_io_with_blank_lines_and_a_wrapped_name(tmp_path: Path) -> None:
    page = (FIXTURES / "awr_11.2.0.4.txt").read_text()
    start, end = page.index("File IO Stats  "), page.index("IOStat by Filetype summary")
    section = page[start:end]
    for name in ("SYSTEM  ", "TEMP  ", "UNDOTBS1  "):  # a blank line before each new tablespace group
        section = section.replace("\n" + name, "\n\n" + name, 1)
    long_name = "/u02/oradata/ORCL/" + "u" * 40 + "/users02.dbf"  # wider than its 52-character column
    section = section.replace("USERS                    /u02/oradata/ORCL/users02.dbf",
                              f"USERS                    {long_name[:52]}\n                         {long_name[52:]}")
    assert section.count("\n\n") >= 3 + page[start:end].count("\n\n") and long_name[52:] in section
    target = tmp_path / "awr.txt"
    target.write_text(page[:start] + section + page[end:])
    result = read_report(target)
    assert {r.path for r in result.rates if r.path} == ({f.path for f in T.FILES} - {T.IMPLAUSIBLE_FILE}) | {long_name}
    assert not strict_shortfalls(result)


def test_a_workload_written_before_coverage_existed_still_reads(tmp_path: Path) -> None:
    import json

    from advisor.model import load_workload, save

    result = read_report(FIXTURES / DWH)
    save(result, tmp_path / "new.json")
    assert load_workload(tmp_path / "new.json").coverage == result.coverage and result.coverage
    older = json.loads((tmp_path / "new.json").read_text())
    assert older["format_version"] == 3
    del older["coverage"], older["sizes"]  # format version 2 was written before these fields
    older["format_version"] = 2
    (tmp_path / "old.json").write_text(json.dumps(older))
    assert load_workload(tmp_path / "old.json").coverage == ()
