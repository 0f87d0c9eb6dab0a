"""Global RAC reports, tablespace-only reports, unit-suffixed times, browser-saved HTML, paged text.

Each fixture states its figures (tests/oracle/fixtures/render_global.py, report_truth.py); the
import must give them back, and say what the report is and what it lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from advisor.cli import app
from advisor.collectors.awr import read_report
from advisor.errors import BadInput, ExitCode
from advisor.model import refuse_shortfalls
from tests.oracle import report_truth as T
from tests.oracle.fixtures.render_global import FILETYPES, instances

FIXTURES = Path(__file__).parent / "fixtures"
GLOBAL = ["awr_19c_global_2inst.html", "awr_19c_global_2inst_exadata.html", "awr_19c_global_4inst.html",
          "awr_19c_global_4inst_exadata.html"]


@pytest.mark.parametrize("name", GLOBAL)
def test_global_report_is_the_database_by_file_type_with_each_instance_share(name: str) -> None:
    work = read_report(FIXTURES / name)
    count = int(name.split("_")[3][0])
    assert work.source == "awr-global" and len(work.instances) == count
    by_type = {r.name: r for r in work.rates}
    for filetype, (reads, _, writes, _, small, _) in FILETYPES.items():
        assert by_type[filetype].level == "file type"
        assert by_type[filetype].read_iops == pytest.approx(reads, abs=0.01 * count)
        assert by_type[filetype].write_iops == pytest.approx(writes, abs=0.01 * count)
        if filetype != "Log File":
            assert by_type[filetype].read_latency_ms == pytest.approx(small, abs=0.006)
    truth = instances(count, uneven_interval="4inst.html" in name)
    for share, instance in zip(work.instances, truth, strict=True):
        assert share.instance == instance.name and share.db_time_s == pytest.approx(instance.db_time_min * 60)
        assert share.read_iops == pytest.approx(sum(v[0] for v in FILETYPES.values()) * instance.share, abs=0.05)
        assert share.io_wait_s == pytest.approx(instance.user_io_s + instance.system_io_s)
    assert work.wait.db_time_s == pytest.approx(300.0 * 60)
    assert any("global RAC report (awrgrpt.sql)" in w and "awrrpti.sql" in w for w in work.warnings)
    assert any(w.startswith("Exadata: ") for w in work.warnings) == ("exadata" in name)


def test_instances_disagreeing_on_the_interval_warn_and_the_longest_is_used() -> None:
    work = read_report(FIXTURES / "awr_19c_global_4inst.html")
    assert work.interval_s == 75 * 60
    assert any("the instances disagree on the interval" in w and "75.0 min" in w for w in work.warnings)


def test_text_report_with_unit_suffixed_times_is_read_not_refused() -> None:
    work = read_report(FIXTURES / "awr_12.2.0.1_units.txt")
    assert {r.path for r in work.rates if r.path} == {f.path for f in T.FILES}
    control = next(r for r in work.rates if r.name == "Control File")
    assert control.read_latency_ms == pytest.approx(0.4)  # printed 400.00us
    assert work.wait.db_time_s == T.DB_TIME_S


@pytest.mark.parametrize(("cell", "ms"), [("588.48us", 0.58848), ("2.72ms", 2.72), ("60.00 s", 60_000.0),
                                           (".00ns", 0.0), ("390.79ms", 390.79), ("1.5\u00b5s", 0.0015)])
def test_every_time_unit_reads_in_ms(cell: str, ms: float) -> None:
    from advisor.collectors.awr import numbers

    assert numbers.number(cell) == pytest.approx(ms)


def test_an_unknown_time_unit_refuses_naming_section_line_and_cell(tmp_path: Path) -> None:
    page = (FIXTURES / "awr_19c_global_2inst.html").read_text()
    bad = tmp_path / "g.html"
    bad.write_text(page.replace(">2.72ms<", ">3.2 fortnights<", 1))
    with pytest.raises(BadInput) as caught:
        read_report(bad)
    message = caught.value.one_line()
    assert message.startswith("IOStat by File Type (HTML line ") and ", column Small Read: '3.2 fortnights'" in message
    assert "'fortnights', which is not a time unit" in message
    text = (FIXTURES / "awr_12.2.0.1_units.txt").read_text()
    bad = tmp_path / "r.txt"
    bad.write_text(text.replace("400.00us", "  3.2 wk", 1))
    with pytest.raises(BadInput, match=r"IOStat by Filetype summary line \d+, column Small Read: '3.2 wk' carries "
                                       r"the unit 'wk'"):
        read_report(bad)


def test_tablespace_only_report_makes_tablespace_level_areas() -> None:
    work = read_report(FIXTURES / "awr_12.2.0.1_rac_cdb_tablespaces.html")
    areas = [r for r in work.rates if r.level == "tablespace"]
    assert {(r.tablespace, r.container) for r in areas} == {(f.tablespace, "SALES") for f in T.FILES}
    users = next(r for r in areas if r.tablespace == "USERS")
    assert users.read_iops == pytest.approx(150.0) and users.write_iops == pytest.approx(40.0) and not users.path
    assert any("each tablespace is one area" in w for w in work.warnings)
    with pytest.raises(BadInput, match="File IO Stats: the report has no such section"):
        refuse_shortfalls(work.coverage, "r")  # cut out or never printed: --strict refuses


def test_file_io_section_cut_out_fails_strict(tmp_path: Path) -> None:
    page = (FIXTURES / "awr_18c_nodata.html").read_text()
    start = page.index('<a class="awr" name="1800">')
    cut = tmp_path / "cut.html"
    cut.write_text(page[:start] + page[page.index("<a ", start + 10):])
    work = read_report(cut)
    with pytest.raises(BadInput, match="no such section"):
        refuse_shortfalls(work.coverage, str(cut))
    refuse_shortfalls(read_report(FIXTURES / "awr_18c_nodata.html").coverage, "nodata")  # "No data": not a gap


def test_paged_statspack_reads_every_row_of_every_page() -> None:
    paged = read_report(FIXTURES / "statspack_11.2.0.4_paged.txt")
    plain = read_report(FIXTURES / "statspack_11.2.0.4.txt")
    assert paged.rates == plain.rates and paged.coverage == plain.coverage


def test_utf16_report_is_read(tmp_path: Path) -> None:
    text = (FIXTURES / "awr_11.2.0.4.txt").read_text()
    for encoding in ("utf-16", "utf-16-le"):
        path = tmp_path / f"{encoding}.txt"
        path.write_bytes(text.encode(encoding))
        assert read_report(path).rates == read_report(FIXTURES / "awr_11.2.0.4.txt").rates
    done = CliRunner().invoke(app, ["collect", "--from-report", str(path), "-o", str(tmp_path / "w.json")])
    assert done.exit_code == 0, done.stderr  # the command recognises it from its first bytes too


def test_browser_saved_page_with_preamble_and_crlf_reads_as_the_original(tmp_path: Path) -> None:
    from tests.oracle.fixtures.render_variants import browser_saved

    original = FIXTURES / "awr_12.2.0.1_cdb.html"
    saved = tmp_path / "saved.html"
    saved.write_bytes(browser_saved(original.read_text()).encode())
    assert b"<TABLE BORDER=0" in saved.read_bytes() and b"\r\n" in saved.read_bytes()
    assert read_report(saved).rates == read_report(original).rates


def test_an_unreadable_histogram_is_skipped_with_a_warning(tmp_path: Path) -> None:
    text = (FIXTURES / "statspack_11.2.0.4_cached.txt").read_text()
    start = text.index("\n", text.index("File Read Histogram Stats"))  # after the title line
    rule = text.index("\n------------ ------------", start)  # the buckets' rule; a file name line follows
    line = next(i for i in range(text.index("\n", text.index("\n", rule + 1) + 1), len(text))
                if text[i:i + 1].isdigit())  # the first figure of the first file
    bad = tmp_path / "r.txt"
    bad.write_text(text[:line + 2] + ";" + text[line + 3:])  # 25,200 -> 25;200: not a figure
    work = read_report(bad)
    assert any(w.startswith("File Read Histogram Stats: skipped, the workload does not need it") for w in work.warnings)
    plain = read_report(FIXTURES / "statspack_11.2.0.4_cached.txt")
    assert {r.path for r in work.rates} == {r.path for r in plain.rates}


def test_collect_from_report_says_a_shortfall_on_the_console(tmp_path: Path) -> None:
    report = FIXTURES / "awr_12.2.0.1_rac_cdb_tablespaces.html"
    result = CliRunner().invoke(app, ["collect", "--from-report", str(report), "-o", str(tmp_path / "w.json")])
    assert result.exit_code == 0 and "advisor: warning: File IO Stats: the report has no such section" in result.stderr
    strict = CliRunner().invoke(app, ["collect", "--from-report", str(FIXTURES / "awr_19c_global_2inst.html"),
                                      "--strict", "-o", str(tmp_path / "g.json")])
    assert strict.exit_code == 0, strict.stderr
    assert ExitCode.BAD_INPUT == 6


SIZES = """"DB_NAME","DBID","TAKEN_AT","KIND","CONTAINER","TABLESPACE","FILE_NAME","BYTES"
"ORCL","1234567890","2026-11-20T10:05:00","datafile","SALES","USERS","+DATA/ORCL/A1/DATAFILE/users.301.1",53687091200
"ORCL","1234567890","2026-11-20T10:05:00","datafile","SALES","USERS","+DATA/ORCL/A1/DATAFILE/users.302.1",53687091200
"ORCL","1234567890","2026-11-20T10:05:00","datafile","SALES","SYSTEM","+DATA/ORCL/A1/DATAFILE/system.271.1",1073741824
"ORCL","1234567890","2026-11-20T10:05:00","datafile","SALES","SYSAUX","+DATA/ORCL/A1/DATAFILE/sysaux.272.1",2147483648
"ORCL","1234567890","2026-11-20T10:05:00","datafile","SALES","UNDOTBS1","+DATA/ORCL/A1/DATAFILE/undo.273.1",4294967296
"ORCL","1234567890","2026-11-20T10:05:00","tempfile","SALES","TEMP","+DATA/ORCL/A1/TEMPFILE/temp.274.1",8589934592
"ORCL","1234567890","2026-11-20T10:05:00","redo","","","+REDO/ORCL/ONLINELOG/group_1.256.1",536870912
"ORCL","1234567890","2026-11-20T10:05:00","control","","","+DATA/ORCL/CONTROLFILE/current.260.1",18874368
"ORCL","1234567890","2026-11-20T10:05:00","fra","","ARCHIVED LOG","+FRA",53687091200
"""


def test_a_plan_from_tablespace_level_areas_moves_each_tablespace_whole(tmp_path: Path) -> None:
    sizes = tmp_path / "sizes.csv"
    sizes.write_text(SIZES)
    report = FIXTURES / "awr_12.2.0.1_rac_cdb_tablespaces.html"
    scripts = tmp_path / "scripts"
    result = CliRunner().invoke(app, ["plan", "--workload", str(_workload(tmp_path, report)), "--sizes", str(sizes),
                                      "--preset", "class-7200-desktop", "--force", "--scripts", str(scripts)])
    assert result.exit_code == 0, result.stderr
    sql = (scripts / "oracle.sql").read_text()
    users = sql[sql.index("-- tablespace USERS -> partition "):]
    assert "the whole tablespace (the report names no files)" in users.splitlines()[0]
    assert "ALTER SESSION SET CONTAINER = SALES" in users
    assert "FROM dba_data_files WHERE tablespace_name = 'USERS') LOOP EXECUTE IMMEDIATE 'ALTER DATABASE MOVE " \
           "DATAFILE" in users and users.splitlines()[4] == "/"
    assert "SELECT file_name FROM dba_temp_files WHERE tablespace_name = 'TEMP';" in sql
    assert " USERS (whole) " in result.stdout  # the areas table marks it
    for output_format, marked in (("markdown", "| USERS (whole) |"), ("html", "<td>USERS (whole)</td>"),
                                  ("json", '"whole_tablespace": true')):
        shown = CliRunner().invoke(app, ["plan", "--workload", str(tmp_path / "w.json"), "--sizes", str(sizes),
                                         "--preset", "class-7200-desktop", "--force", "-f", output_format])
        assert shown.exit_code == 0 and marked in shown.stdout, output_format


def _workload(tmp_path: Path, report: Path) -> Path:
    out = tmp_path / "w.json"
    done = CliRunner().invoke(app, ["collect", "--from-report", str(report), "-o", str(out)])
    assert done.exit_code == 0, done.stderr
    return out


def test_a_shortfall_says_whether_the_report_lists_no_rows_or_rows_were_not_read(tmp_path: Path) -> None:
    lines = (FIXTURES / "awr_11.2.0.4.txt").read_text().split("\n")
    temp_ts = lines.index("TEMP")
    temp_file = next(i for i, line in enumerate(lines) if line.startswith("TEMP ") and "temp01.dbf" in line)
    no_rows = tmp_path / "no_temp.txt"  # the report lists no temp file (nor its tablespace) at all
    no_rows.write_text("\n".join(lines[:temp_ts] + lines[temp_ts + 2:temp_file] + lines[temp_file + 2:]))
    gaps = [g for c in read_report(no_rows).coverage for g in c.shortfalls if "Temp File" in g]
    assert gaps and all(g.endswith("the report lists no temp file rows (every row it prints was read)")
                        for g in gaps)
    fewer = tmp_path / "fewer.txt"  # its own rows agree with each other and count less than IOStat
    fewer.write_text("\n".join(line.replace("        18,000       5     2.0    16.0",
                                            "             3       0     2.0    16.0") for line in lines))
    gaps = [g for c in read_report(fewer).coverage for g in c.shortfalls if "temp files sum to 3 reads" in g]
    assert gaps and gaps[0].endswith("the report's own temp file rows sum to less (every row it prints was read)")
    garbled = tmp_path / "garbled.txt"  # a row the reader could not read: the parser's matter
    damaged = lines[temp_file + 1].replace("18,000       5", "18;000       5", 1)
    garbled.write_text("\n".join(lines[:temp_file + 1] + [damaged] + lines[temp_file + 2:]))
    gaps = [g for c in read_report(garbled).coverage for g in c.shortfalls if "Temp File" in g]
    assert gaps and "rows were not read (1 left out: /u03/oradata/ORCL/temp01.dbf)" in gaps[0]


def test_a_section_the_global_import_does_not_need_never_refuses_it(tmp_path: Path) -> None:
    page = (FIXTURES / "awr_19c_global_2inst_exadata.html").read_text()
    for unread in ("12,345.6", "1,234", "98.2", "5,000.00"):  # load profile, cell IOPS, flash cache, time model
        assert unread in page
        page = page.replace(unread, "3.2 fortnights ##")
    damaged = tmp_path / "g.html"
    damaged.write_text(page)
    assert read_report(damaged).rates == read_report(FIXTURES / "awr_19c_global_2inst_exadata.html").rates
