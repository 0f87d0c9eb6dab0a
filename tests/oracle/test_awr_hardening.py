"""What a hostile probe of the report reader found: impossible figures, decimal commas,
damaged dates, several reports in one file, overflow marks, and a figure dropped by a rule
that was too strict. Each test edits a real-layout fixture the way the probe did."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import tests.oracle.report_truth as T
from advisor.collectors.awr import read_report
from advisor.errors import BadInput, ExitCode
from advisor.model import FileRate, Workload

FIXTURES = Path(__file__).parent / "fixtures"
ALL = ["awr_11.2.0.3_rac.html", "awr_11.2.0.4.html", "awr_12.1.0.2.html", "awr_12.2.0.1_cdb.html",
       "awr_18c_nodata.html", "awr_19c_nodata.html", "awr_11.2.0.4.txt", "statspack_11.2.0.4.txt",
       "statspack_11.2.0.4_dwh.txt"]
_FIGURE = re.compile(r"(?<![\w.,/:+#-])(\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+)(?![\d.,])")


def edited(tmp_path: Path, name: str, old: str, new: str, count: int = 1) -> Path:
    text = (FIXTURES / name).read_text()
    assert text.count(old) >= count, f"{old!r} is not in {name}"
    target = tmp_path / name
    target.write_text(text.replace(old, new, count))
    return target


def as_european(text: str) -> str:
    """The report as a database with NLS_NUMERIC_CHARACTERS=',.' prints it: 1.234,5 for 1,234.5."""
    return _FIGURE.sub(lambda m: m.group().translate(str.maketrans(",.", ".,")), text)


def by_file(result: Workload) -> dict[str, FileRate]:
    return {r.path.rsplit("/", 1)[-1]: r for r in result.rates if r.path}


def assert_possible(result: Workload) -> None:
    for rate in result.rates:
        for value in (rate.read_iops, rate.write_iops, rate.read_mb_s, rate.read_latency_ms, rate.write_latency_ms):
            assert value is None or (math.isfinite(value) and value >= 0), rate


# item 3: impossible numbers in a report are dropped one by one, each named


def test_negative_latency_is_dropped_with_a_warning(tmp_path: Path) -> None:
    path = edited(tmp_path, "statspack_11.2.0.4.txt", "       360,000     100    8.0", "       360,000     100   -8.0")
    result = read_report(path)
    users = by_file(result)["users01.dbf"]
    assert users.read_latency_ms is None and users.read_iops == pytest.approx(100.0)
    assert any("read_latency_ms is -8.0; a time cannot be negative" in w and "users01.dbf" in w
               for w in result.warnings)
    assert_possible(result)


def test_negative_count_leaves_the_row_out_with_a_warning(tmp_path: Path) -> None:
    path = edited(tmp_path, "awr_11.2.0.4.txt", "       360,000     100     8.0", "      -360,000     100     8.0")
    result = read_report(path)
    assert "users01.dbf" not in by_file(result) and "users02.dbf" in by_file(result)
    assert any("read_iops" in w and "cannot be negative" in w and "the row is left out" in w for w in result.warnings)
    assert_possible(result)


def test_huge_count_is_not_an_infinite_rate(tmp_path: Path) -> None:
    cell = "users02.dbf</td><td align=\"right\" class='awrc'>"
    path = edited(tmp_path, "awr_11.2.0.4.html", cell + "180,000<", cell + "9" * 400 + "<")
    result = read_report(path)
    assert "users02.dbf" not in by_file(result)
    assert any("users02.dbf" in w and "more than any server does in 3,600 s" in w for w in result.warnings)
    assert_possible(result)


def test_duplicated_file_row_keeps_the_first(tmp_path: Path) -> None:
    row = ("USERS                    /u02/oradata/ORCL/users02.dbf\n"
           "       180,000      50     7.0     1.0      50     7.0       36,000       10          0     0.0\n")
    path = edited(tmp_path, "awr_11.2.0.4.txt", row, row + row)
    result = read_report(path)
    assert [r.path for r in result.rates].count("/u02/oradata/ORCL/users02.dbf") == 1
    assert any("the same file_id" in w for w in result.warnings)


# item 4: decimal commas


@pytest.mark.parametrize("name", ALL)
def test_european_decimal_commas_read_the_same_figures(tmp_path: Path, name: str) -> None:
    text = (FIXTURES / name).read_text()
    converted = as_european(text)
    assert converted != text and "60,00 (mins)" in converted
    target = tmp_path / name
    target.write_text(converted)
    result, original = read_report(target), read_report(FIXTURES / name)
    assert result.interval_s == T.INTERVAL_S
    assert [(r.file_id, r.read_iops, r.write_iops, r.read_latency_ms, r.read_mb_s) for r in result.rates] == \
        [(r.file_id, r.read_iops, r.write_iops, r.read_latency_ms, r.read_mb_s) for r in original.rates]
    assert result.wait == original.wait
    assert result.coverage == original.coverage
    assert any("decimal commas" in w for w in result.warnings)


@pytest.mark.parametrize("name", [n for n in ALL if n.startswith("awr")])
def test_ash_session_ids_have_no_say_in_the_decimal_separator(name: str) -> None:
    # "Sid, Serial#" cells (13071,63938) look like a decimal comma beside 12.34; they are identifiers
    text = (FIXTURES / name).read_text()
    assert "13071,63938" in text and "12.34" in text and ("2581,52211( 1)" in text or name.endswith(".txt"))
    result = read_report(FIXTURES / name)
    assert result.rates and not any("decimal commas" in w for w in result.warnings)


def test_mixed_separators_in_read_columns_name_the_section_and_column(tmp_path: Path) -> None:
    path = edited(tmp_path, "statspack_11.2.0.4_dwh.txt", "        36,000      10  16.7  64",
                  "        36,000      10  16,7  64")
    with pytest.raises(BadInput) as caught:
        read_report(path)
    assert ("numbers use both decimal separators ('16,7' in File IO Stats line 84, column Av Rd(ms) reads with a "
            "decimal comma, '60.00' in the report header, Elapsed with a decimal point)") in caught.value.one_line()
    assert caught.value.exit_code == ExitCode.BAD_INPUT


def test_comma_elapsed_is_not_read_as_hundreds_of_minutes(tmp_path: Path) -> None:
    # the probe's case: only the header's figures were printed with a decimal comma (9,23 min)
    text = (FIXTURES / "awr_11.2.0.4.txt").read_text().replace("20-Nov-26 11:00:00", "20-Nov-26 10:09:14")
    target = tmp_path / "awr.txt"
    target.write_text(text.replace("   Elapsed:               60.00 (mins)", "   Elapsed:                9,23 (mins)"))
    # the host's memory (31.42 GB) is not a figure advisor reads: only the parsed cells vote
    with pytest.raises(BadInput, match=r"both decimal separators \('9,23' in the report header, Elapsed reads with a "
                       r"decimal comma, '120.00' in the report header, DB Time with a decimal point\)"):
        read_report(target)


def test_numbers_inside_sql_text_prove_nothing(tmp_path: Path) -> None:
    sql = "SQL ordered by Reads\n  select substr(name,1,30) from t where id in (1,2) and x = :1\n\n"
    path = edited(tmp_path, "awr_11.2.0.4.txt", "Foreground Wait Class", sql + "Foreground Wait Class")
    assert read_report(path).interval_s == T.INTERVAL_S


def test_elapsed_that_disagrees_with_the_snap_times_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "awr_11.2.0.4.txt", "60.00 (mins)", "6,000 (mins)")
    with pytest.raises(BadInput, match=r"Elapsed 6,000.00 min disagrees with the Begin/End Snap times \(60.00 min"):
        read_report(path)


def test_swapped_separator_in_one_cell_is_refused(tmp_path: Path) -> None:
    path = edited(tmp_path, "awr_11.2.0.4.html", ">7.00<", ">7,00<")
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if ">7,00<" in text)
    with pytest.raises(BadInput, match=f"both decimal separators \\('7,00' in File IO Stats \\(HTML line {line}\\), "
                       "column Av Rd\\(ms\\) reads with a decimal comma, "):
        read_report(path)


# item 5: damaged dates are refused naming the field, never an internal error


@pytest.mark.parametrize(("name", "old", "new", "field"), [
    ("awr_11.2.0.4.txt", "20-Nov-26 10:00:00", "00-Nov-00 00:00:00", "Begin Snap time"),
    ("awr_11.2.0.4.html", "20-Nov-26 11:00:00", "20-Nov-26 00:00:60", "End Snap time"),
    ("statspack_11.2.0.4.txt", "20-Nov-26 11:00:00", "00-Nov-26 11:00:00", "End Snap time"),
])
def test_damaged_snap_time_names_the_field(tmp_path: Path, name: str, old: str, new: str, field: str) -> None:
    with pytest.raises(BadInput) as caught:
        read_report(edited(tmp_path, name, old, new))
    assert f"{field} '{new}' is not a date" in caught.value.one_line()
    assert caught.value.exit_code == ExitCode.BAD_INPUT


def test_damaged_times_without_elapsed_are_refused_not_an_internal_error(tmp_path: Path) -> None:
    text = (FIXTURES / "awr_11.2.0.4.txt").read_text().replace("   Elapsed:               60.00 (mins)\n", "")
    target = tmp_path / "awr.txt"
    target.write_text(text.replace("20-Nov-26 10:00:00", "20-Nov-26 10:00:00".replace("2", "0")))
    with pytest.raises(BadInput, match="Begin Snap time '00-Nov-06 10:00:00' is not a date"):
        read_report(target)


def test_damaged_startup_time_is_a_warning(tmp_path: Path) -> None:
    result = read_report(edited(tmp_path, "awr_11.2.0.4.txt", "01-Nov-26 08:00", "00-Nov-26 08:00"))
    assert result.server.started_at == "" and len(result.rates) >= 6
    assert any("Startup Time '00-Nov-26 08:00' is not a date" in w for w in result.warnings)


# item 6: several reports in one file


@pytest.mark.parametrize("name", ["awr_11.2.0.4.html", "awr_11.2.0.4.txt", "statspack_11.2.0.4.txt"])
def test_concatenated_reports_are_refused_with_their_count(tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    target.write_text((FIXTURES / name).read_text() * 3)
    with pytest.raises(BadInput) as caught:
        read_report(target)
    line = caught.value.one_line()
    assert "holds 3 reports" in line and "csplit" in line


def test_the_csplit_line_of_the_message_splits_a_file(tmp_path: Path) -> None:
    import shlex
    import subprocess

    target = tmp_path / "many.html"
    target.write_text((FIXTURES / "awr_11.2.0.4.html").read_text() * 3)
    with pytest.raises(BadInput) as caught:
        read_report(target)
    command = re.search(r"e\.g\. (csplit .*), and import", caught.value.one_line())
    assert command is not None
    subprocess.run(shlex.split(command.group(1)), cwd=tmp_path, check=True, capture_output=True)
    parts = sorted(tmp_path.glob("report-*"))
    assert len(parts) == 3
    assert all(read_report(p).interval_s == T.INTERVAL_S for p in parts)


# issue 13 item 4: overflow marks and figures dropped only when impossible


def test_statspack_overflow_cell_keeps_the_row(tmp_path: Path) -> None:
    path = edited(tmp_path, "statspack_11.2.0.4.txt", "       360,000     100    8.0", "       360,000     100 ######")
    result = read_report(path)
    users = by_file(result)["users01.dbf"]
    assert users.read_iops == pytest.approx(100.0) and users.read_latency_ms is None
    assert any("File IO Stats line 90: USERS /u02/oradata/ORCL/users01.dbf: Av Rd(ms) printed as '######'" in w
               for w in result.warnings)


def test_overflowed_reads_come_from_the_per_second_column(tmp_path: Path) -> None:
    path = edited(tmp_path, "awr_11.2.0.4.txt", "       360,000     100     8.0", "    ##########     100     8.0")
    result = read_report(path)
    users = by_file(result)["users01.dbf"]
    assert users.read_iops == pytest.approx(100.0) and users.read_latency_ms == pytest.approx(8.0)
    assert any("Reads overflowed its column; taken from its per-second figure" in w for w in result.warnings)
    assert not any("does not match the sum of its files" in w for w in result.warnings)


def test_overflow_in_the_wait_events_is_a_warning(tmp_path: Path) -> None:
    path = edited(tmp_path, "statspack_11.2.0.4.txt", "direct path read                   18,000",
                  "direct path read             ############")
    result = read_report(path)
    assert any("Wait Events line 32: direct path read: Waits printed as" in w for w in result.warnings)
    assert len(by_file(result)) == 6


def test_overflow_in_the_filetype_summary_is_a_warning(tmp_path: Path) -> None:
    path = edited(tmp_path, "awr_11.2.0.4.txt", "Control File       1.1G    20.0", "Control File       1.1G    ####")
    result = read_report(path)
    control = next(r for r in result.rates if r.kind == "control")
    assert control.read_mb_s == pytest.approx(0.3)  # the rest of the row stays
    assert any("Reads: Reqs per sec printed as '####'" in w for w in result.warnings)


def test_small_latency_beside_a_cache_fed_event_average_is_kept(tmp_path: Path) -> None:
    # db file sequential read averages 0.02 ms (one large cached file): it says nothing of small cold files
    path = edited(tmp_path, "awr_11.2.0.4.txt",
                  "db file sequential read         600,000     0      3,600",
                  "db file sequential read         600,000     0         12")
    result = read_report(path)
    rates = by_file(result)
    for truth in T.FILES:
        assert rates[truth.path.rsplit("/", 1)[-1]].read_latency_ms == pytest.approx(truth.av_rd_ms, abs=0.051)
    assert not any("implausible" in w for w in result.warnings)


def test_seconds_per_read_is_still_dropped() -> None:
    result = read_report(FIXTURES / "awr_12.1.0.2.html")
    rate = next(r for r in result.rates if r.path == T.IMPLAUSIBLE_FILE)
    assert rate.read_latency_ms is None
    assert any("36,250.00 is more than a second per read" in w for w in result.warnings)


@pytest.mark.parametrize("digits", [19, 5000])
def test_release_with_a_huge_number_is_refused(tmp_path: Path, digits: int) -> None:
    # found by the fuzz suite: an internal error (int conversion limit) or a document advisor could not read back
    path = edited(tmp_path, "awr_19c_nodata.html", ">19.0.0.0.0<", ">" + "9" * digits + ".0.0.0.0<")
    with pytest.raises(BadInput, match=r"Release '9+[.0]*' is not a database release"):
        read_report(path)
