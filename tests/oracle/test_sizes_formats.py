"""The sizes file reader on its own: each printed shape, its quirks, and the damage it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.errors import BadInput
from advisor.sizes.formats import read_sizes
from tests.oracle.sizes_rows import COLUMNS_11, COLUMNS_12, rows_11, rows_12
from tests.oracle.sizes_shapes import psql_aligned, psql_csv, sqlplus_csv, sqlplus_grid

GIB = 1 << 30


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sizes.out"
    path.write_text(text)
    return path


@pytest.mark.parametrize(("text", "shape"), [
    (sqlplus_csv(COLUMNS_12, rows_12()), "sqlplus-csv"),
    (sqlplus_grid(COLUMNS_11, rows_11()), "sqlplus-grid"),
    (psql_csv(COLUMNS_11, rows_11()), "psql-csv"),
    (psql_aligned(COLUMNS_11, rows_11()), "psql-aligned"),
])
def test_each_shape_gives_the_same_rows(tmp_path: Path, text: str, shape: str) -> None:
    table = read_sizes(_write(tmp_path, text))
    assert table.file_format == shape
    expected = rows_12() if shape == "sqlplus-csv" else rows_11()
    assert [r.file_name for r in table.rows] == [r["file_name"] for r in expected]
    assert [r.size_bytes for r in table.rows] == [int(r["bytes"]) for r in expected]
    assert {r.dbid for r in table.rows} == {"1234567890"}
    # a redo member has no tablespace: SQL*Plus prints NULL as nothing, psql as an empty cell
    assert next(r for r in table.rows if r.kind == "redo").tablespace == ""


@pytest.mark.parametrize("shape", [sqlplus_csv, sqlplus_grid])
def test_a_spool_started_at_the_prompt_keeps_the_typed_commands_out(tmp_path: Path, shape) -> None:  # type: ignore[no-untyped-def]
    text = "SQL> @sizes.sql\n" + shape(COLUMNS_11, rows_11()) + "SQL> spool off\n"
    table = read_sizes(_write(tmp_path, text))
    assert len(table.rows) == len(rows_11()) and table.rows[0].line == (5 if shape is sqlplus_grid else 3)


def test_the_grid_line_numbers_point_into_the_file(tmp_path: Path) -> None:
    text = sqlplus_grid(COLUMNS_11, rows_11())
    path = _write(tmp_path, text)
    lines = text.splitlines()
    for row in read_sizes(path).rows:
        assert row.file_name in lines[row.line - 1]


def test_a_record_wider_than_linesize_spans_lines_under_stacked_headings(tmp_path: Path) -> None:
    """LINESIZE too small for a row: SQL*Plus stacks heading lines and prints each record on as many lines."""
    first = ("db_name", "dbid", "taken_at", "kind", "tablespace", "bytes")
    second = ("file_name",)
    top, low = sqlplus_grid(first, rows_11(), pagesize=50000, feedback=False), sqlplus_grid(
        second, rows_11(), pagesize=50000, feedback=False)
    top_lines, low_lines = top.strip("\n").splitlines(), low.strip("\n").splitlines()
    stacked = ["", top_lines[0], top_lines[1], low_lines[0], low_lines[1]]
    for a, b in zip(top_lines[2:], low_lines[2:], strict=True):
        stacked += [a, b]
    stacked += ["", f"{len(rows_11())} rows selected.", ""]
    table = read_sizes(_write(tmp_path, "\n".join(stacked)))
    assert [r.file_name for r in table.rows] == [r["file_name"] for r in rows_11()]
    assert table.rows[3].size_bytes == 300 * GIB


def test_a_number_sqlplus_printed_in_scientific_notation_is_read(tmp_path: Path) -> None:
    rows = rows_11()
    rows[3]["bytes"] = "3.2212E+11"  # NUMWIDTH 10 overflowed: what the file states, to 5 digits
    table = read_sizes(_write(tmp_path, sqlplus_grid(COLUMNS_11, rows)))
    assert table.rows[3].size_bytes == 322_120_000_000


@pytest.mark.parametrize(("text", "message"), [
    (psql_aligned(COLUMNS_11, rows_11()).replace("(14 rows)\n", ""), "no '(N rows)' line"),
    (sqlplus_grid(COLUMNS_11, rows_11(), feedback=False), "no 'N rows selected.' line"),
    (sqlplus_csv(COLUMNS_11, rows_11()).replace(',"1073741824"', ",", 1), "BYTES is empty"),
    (sqlplus_csv(COLUMNS_11, rows_11()).replace(',"1073741824"', "", 1), "6 fields where the heading has 7"),
    (sqlplus_csv(COLUMNS_11, rows_11()).replace(',"1073741824"', ',"1073741824', 1), "unclosed quote"),
    (sqlplus_csv(COLUMNS_11, rows_11()).replace('"1073741824"', '"lots"', 1), "'lots', not a size"),
    (sqlplus_csv(("db_name", "kind", "tablespace"), rows_11()), "no column FILE_NAME, BYTES"),
])
def test_damage_is_one_line_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(BadInput) as caught:
        read_sizes(path)
    assert message in caught.value.message and str(path) in caught.value.message
    assert "\n" not in caught.value.message
