"""Truncated, garbled, foreign or unknown-version reports: a one-line BadInput or a warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.collectors.awr import read_report
from advisor.errors import BadInput, ExitCode
from advisor.model import coverage_lines, refuse_shortfalls

FIXTURES = Path(__file__).parent / "fixtures"


def variant(tmp_path: Path, name: str, edit: object) -> Path:
    text = (FIXTURES / name).read_text()
    assert callable(edit)
    changed = edit(text)
    assert changed != text, "the edit did not apply"
    target = tmp_path / name
    target.write_text(changed)
    return target


def truncate_after(marker: str) -> object:
    return lambda text: text[: text.index(marker) + len(marker)] + "\n"


def test_truncated_text_report_names_section_and_line(tmp_path: Path) -> None:
    marker = "USERS                    /u02/oradata/ORCL/users01.dbf"
    path = variant(tmp_path, "awr_11.2.0.4.txt", truncate_after(marker))
    with pytest.raises(BadInput) as caught:
        read_report(path)
    line = caught.value.one_line()
    number = (FIXTURES / "awr_11.2.0.4.txt").read_text().splitlines().index(marker) + 1
    assert "File IO Stats" in line and f"line {number}:" in line and "truncated" in line
    assert caught.value.exit_code == ExitCode.BAD_INPUT


def test_garbled_file_row_is_a_warning_naming_the_file_and_the_gap(tmp_path: Path) -> None:
    edit = lambda t: t.replace("       360,000     100", "       36O,000     100")  # noqa: E731
    path = variant(tmp_path, "statspack_11.2.0.4.txt", edit)
    result = read_report(path)
    assert "/u02/oradata/ORCL/users01.dbf" not in {r.path for r in result.rates}
    assert any(w.startswith("File IO Stats line 90: '36O,000' under reads is not a number")
               and w.endswith("/u02/oradata/ORCL/users01.dbf (USERS) is left out") for w in result.warnings)
    assert any("the files of USERS sum to 180,000 reads, Tablespace IO Stats says 540,000 (33.3 %)" in w
               for w in result.warnings)
    assert [c.shortfalls != () for c in result.coverage if c.strict] == [True, True]


def test_truncated_html_inside_file_table(tmp_path: Path) -> None:
    def cut(text: str) -> str:
        start = text.index("users01.dbf</td>")
        return text[: start + 40]

    path = variant(tmp_path, "awr_11.2.0.4.html", cut)
    with pytest.raises(BadInput, match="File IO Stats .*cells for 12 columns"):
        read_report(path)


def test_html_missing_end_is_a_warning_when_data_is_sound(tmp_path: Path) -> None:
    path = variant(tmp_path, "awr_12.1.0.2.html", lambda t: t.replace("End of Report", ""))
    result = read_report(path)
    assert any("truncated" in w for w in result.warnings) and len(result.rates) == 9


def test_tablespace_mismatch_is_a_warning(tmp_path: Path) -> None:
    edit = lambda t: t.replace("       540,000     150", "       541,000     150")  # noqa: E731
    path = variant(tmp_path, "statspack_11.2.0.4.txt", edit)
    result = read_report(path)
    assert any("the files of USERS sum to 540,000 reads, Tablespace IO Stats says 541,000 (99.8 %); rows were not read"
               in w for w in result.warnings)
    edit = lambda t: t.replace("       540,000     150", "       539,000     150")  # noqa: E731
    result = read_report(variant(tmp_path, "statspack_11.2.0.4.txt", edit))
    assert any("the files of USERS sum to 540,000 reads, more than Tablespace IO Stats line" in w
               and "says (539,000, 100.2 %): a row counted twice or a misread cell" in w for w in result.warnings)
    reads = next(c for c in result.coverage if c.measure == "tablespace reads")
    assert reads.excess == 1000.0 and reads.shortfalls  # an excess fails --strict as a shortfall does


def test_a_file_row_at_ten_times_its_tablespace_fails_strict_and_shows_in_coverage(tmp_path: Path) -> None:
    edit = lambda t: t.replace("       540,000     150", "        54,000     150")  # noqa: E731
    result = read_report(variant(tmp_path, "statspack_11.2.0.4.txt", edit))
    reads = next(c for c in result.coverage if c.measure == "tablespace reads")
    assert reads.excess == 486_000.0
    assert reads.line() == ("files account for 100.0 % of tablespace reads (+264.7 % beyond it) (File IO Stats / "
                            "Tablespace IO Stats)")
    assert "(+264.7 % beyond it)" in coverage_lines(result.coverage)[0]
    with pytest.raises(BadInput, match="more than Tablespace IO Stats"):
        refuse_shortfalls(result.coverage, "r")


def test_histogram_disagreement_is_a_warning(tmp_path: Path) -> None:
    edit = lambda t: t.replace("       72,000      20    5.0   32", "       72,000      20    0.5   32")  # noqa: E731
    result = read_report(variant(tmp_path, "statspack_11.2.0.4.txt", edit))
    assert any("system01.dbf: Av Rd(ms) 0.50 disagrees with its read histogram" in w for w in result.warnings)


def test_unknown_version_is_best_effort(tmp_path: Path) -> None:
    result = read_report(variant(tmp_path, "awr_11.2.0.4.txt", lambda t: t.replace("11.2.0.4.0  NO", "31.1.0.0.0  NO")))
    assert any("release 31.1.0.0.0 is not one advisor knows" in w for w in result.warnings)
    assert result.server.major == 31 and len(result.rates) >= 6


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"document": "snapshot", "format_version": 1}', "not an AWR"),
        ("", "not an AWR"),
        ("WORKLOAD REPOSITORY report for\n\nnothing else\n", "no Release"),
    ],
)
def test_other_kinds_of_file_are_refused(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "input.txt"
    path.write_text(content)
    with pytest.raises(BadInput, match=message):
        read_report(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="absent.html: no such file"):
        read_report(tmp_path / "absent.html")


def test_garbled_html_file_row_is_a_warning_naming_the_file(tmp_path: Path) -> None:
    cell = "users02.dbf</td><td align=\"right\" class='awrc'>180,000<"
    path = variant(tmp_path, "awr_12.1.0.2.html", lambda t: t.replace(cell, cell.replace("180,000", "18O,000")))
    result = read_report(path)
    assert "/u02/oradata/ORCL/users02.dbf" not in {r.path for r in result.rates}
    assert any("'18O,000' is not a number" in w and w.endswith("/u02/oradata/ORCL/users02.dbf (USERS) is left out")
               for w in result.warnings)
    assert any("the files of USERS sum to 360,000 reads, Tablespace IO Stats says 540,000 (66.7 %)" in w
               for w in result.warnings)
