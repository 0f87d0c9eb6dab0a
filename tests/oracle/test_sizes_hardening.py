"""Sizes files that used to hang, invent a size, misread a number or size another container's file.

Each case is a sizes file as SQL*Plus or psql prints it (:mod:`tests.oracle.sizes_shapes`),
damaged the way a hostile probe found: a grid whose heading is followed by a blank line
(read for ever), sizes of 0 (V$DATAFILE's "cannot read"), decimal commas and overflowing
exponents, a CDB's sizes without CONTAINER, a name match of another kind of file, a byte
order mark, and ``SET TIMING ON`` after a CSV spool.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.collectors.awr import read_report
from advisor.engine.areas import group_areas
from advisor.errors import BadInput
from advisor.sizes.formats import MAX_ROWS_OF_A_KIND, read_sizes
from advisor.sizes.merge import merge_sizes, wanted
from advisor.sizes.need import missing_sizes_line
from tests.fuzz.run import time_limit
from tests.helpers.cli import run_advisor
from tests.oracle.sizes_rows import COLUMNS_11, COLUMNS_12, row, rows_11, rows_12
from tests.oracle.sizes_shapes import psql_csv, sqlplus_csv, sqlplus_grid

FIXTURES = Path(__file__).parent / "fixtures"
GIB = 1 << 30
HUNG_GRID = "DB_NAME   KIND     FILE_NAME                      BYTES\n\n" \
            "--------- -------- ------------------------------ ----------\n" \
            "ORCL      datafile /u02/oradata/ORCL/users01.dbf  1073741824\n\n1 row selected.\n"


def _write(tmp_path: Path, text: str, name: str = "sizes.out") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _merged_11(tmp_path: Path, rows: list[dict[str, str]]):  # type: ignore[no-untyped-def]
    work = read_report(FIXTURES / "awr_11.2.0.4.txt")
    return merge_sizes(work, read_sizes(_write(tmp_path, sqlplus_csv(COLUMNS_11, rows)), keep=wanted(work)))


def _areas(work) -> dict[str, int | None]:  # type: ignore[no-untyped-def]
    return {a.name: a.size_bytes for a in group_areas(work.rates)}


# 1. the grid reader always advances ---------------------------------------------------------


def test_a_grid_heading_followed_by_a_blank_line_is_refused_not_read_for_ever(tmp_path: Path) -> None:
    path = _write(tmp_path, HUNG_GRID)
    with time_limit(10), pytest.raises(BadInput) as caught:
        read_sizes(path)
    assert "line 1: the column headings are not directly above their line of dashes" in caught.value.message


def test_collect_with_that_grid_ends_with_one_line(tmp_path: Path) -> None:
    sizes = _write(tmp_path, HUNG_GRID)
    done = run_advisor("collect", "--from-report", str(FIXTURES / "awr_11.2.0.4.txt"), "--sizes", str(sizes),
                       "-o", str(tmp_path / "w.json"), timeout=60)
    assert done.returncode == 6 and str(sizes) in done.stderr and len(done.stderr.strip().splitlines()) == 1


# 2. a size of 0 (or below a block) is unknown -------------------------------------------------


@pytest.mark.parametrize("size", ["0", "4096"])  # the fixture's block is 8 KiB
def test_a_file_below_one_block_is_unknown_and_named(tmp_path: Path, size: str) -> None:
    rows = [r | {"bytes": size} if r["file_name"].endswith("users01.dbf") else r for r in rows_11()]
    work = _merged_11(tmp_path, rows)
    users01 = next(r for r in work.rates if r.path.endswith("users01.dbf"))
    assert users01.size_bytes is None
    assert _areas(work)["SYSTEM"] == GIB
    note = next(w for w in work.warnings if "below one database block (8,192 bytes)" in w)
    assert "line 5 /u02/oradata/ORCL/users01.dbf" in note and str(tmp_path / "sizes.out") in note
    line = missing_sizes_line(work)
    assert line is not None and "(USERS)" in line


def test_an_fra_use_of_0_stays_a_size(tmp_path: Path) -> None:
    rows = [r | {"bytes": "0"} if r["kind"] == "fra" else r for r in rows_11()]
    work = _merged_11(tmp_path, rows)
    assert _areas(work)["archive"] == 0 and not any("below one database block" in w for w in work.warnings)


def test_a_tier_plan_with_zero_sizes_is_refused_not_all_on_the_fast_device(tmp_path: Path) -> None:
    inventory = _write(tmp_path, 'host = "h"\n\n[[device]]\nname = "nvme0"\nmedium = "nvme"\ncapacity = "64 MiB"\n'
                                 'preset = "nvme-gen4"\n\n[[device]]\nname = "hdd"\nmedium = "hdd"\n'
                                 'capacity = "4 TB"\npreset = "class-7200-desktop"\n', "inventory.toml")
    sizes = _write(tmp_path, sqlplus_csv(COLUMNS_11, [r | {"bytes": "0"} for r in rows_11()]))
    work = tmp_path / "w.json"
    assert run_advisor("collect", "--from-report", str(FIXTURES / "awr_11.2.0.4.txt"), "-o", str(work)).returncode == 0
    done = run_advisor("plan", "--workload", str(work), "--sizes", str(sizes), "--target", str(inventory))
    assert done.returncode == 6, done.stdout
    assert "No plan: file sizes unknown" in done.stderr and "faster" not in done.stdout
    report = run_advisor("report", "--workload", str(work), "--sizes", str(sizes), "--target", str(inventory),
                         "--format", "json")
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert data["plan"] is None
    assert any("below one database block" in w and "users01.dbf" in w for w in data["warnings"])


# 3. numbers as written ------------------------------------------------------------------------


@pytest.mark.parametrize(("cells", "expected"), [
    (("5,3687E+10", "1,5E+9"), (53_687_000_000, 1_500_000_000)),  # SQL*Plus under a decimal-comma NLS
    (("1,5 GB", "2 GB"), (GIB + GIB // 2, 2 * GIB)),
    (("1,073,741,824", "2,147,483,648"), (GIB, 2 * GIB)),  # grouping commas
    (("1.073.741.824", "2.147.483.648"), (GIB, 2 * GIB)),  # grouping dots
])
def test_the_decimal_separator_is_decided_from_the_files_own_cells(tmp_path: Path, cells: tuple[str, str],
                                                                    expected: tuple[int, int]) -> None:
    rows = [row("datafile", "USERS", f"/u02/u{n}.dbf", 1) | {"bytes": cell} for n, cell in enumerate(cells)]
    table = read_sizes(_write(tmp_path, sqlplus_csv(COLUMNS_11, rows)))
    assert tuple(r.size_bytes for r in table.rows) == expected


def test_both_separators_in_one_file_are_refused_naming_both(tmp_path: Path) -> None:
    rows = [row("datafile", "USERS", f"/u02/u{n}.dbf", 1) | {"bytes": cell}
            for n, cell in enumerate(("5,3687E+10", "1,073,741,824"))]
    path = _write(tmp_path, sqlplus_csv(COLUMNS_11, rows))
    with pytest.raises(BadInput) as caught:
        read_sizes(path)
    assert "line 2: '5,3687E+10'" in caught.value.message and "line 3: '1,073,741,824'" in caught.value.message


@pytest.mark.parametrize(("cell", "message"), [
    ("1e400", "is more than a database file holds (1 EiB)"),
    ("1e309 MB", "is more than a database file holds (1 EiB)"),
    ("1e40", "is more than a database file holds (1 EiB)"),
    ("2000000 TB", "is more than a database file holds (1 EiB)"),
    ("1.5", "is not a whole number of bytes"),
])
def test_impossible_sizes_are_one_line(tmp_path: Path, cell: str, message: str) -> None:
    rows = [r | {"bytes": cell} if r["file_name"].endswith("users01.dbf") else r for r in rows_11()]
    if " " in cell:
        rows = [r | {"bytes": cell} for r in rows]
    path = _write(tmp_path, sqlplus_csv(COLUMNS_11, rows))
    with pytest.raises(BadInput) as caught:
        read_sizes(path)
    assert message in caught.value.message and str(path) in caught.value.message
    assert "\n" not in caught.value.message


# 4. sizes that belong elsewhere ---------------------------------------------------------------


def _cdb_rows_without_container() -> list[dict[str, str]]:
    """The CDB's rows as an 11.2-style query prints them: the root's and another PDB's USERS too."""
    extra = [row("datafile", "USERS", "/u01/oradata/ORCL/root_users01.dbf", 5 * GIB, "CDB$ROOT"),
             row("datafile", "USERS", "+DATA/ORCL/HR/DATAFILE/users01.dbf", 500 * GIB, "HR")]
    return [{k: v for k, v in r.items() if k != "container"} for r in rows_12() + extra]


def test_a_cdb_sizes_file_without_container_sizes_by_name_only(tmp_path: Path) -> None:
    work = read_report(FIXTURES / "awr_12.2.0.1_cdb.html")
    path = _write(tmp_path, sqlplus_csv(COLUMNS_11, _cdb_rows_without_container()))
    merged = merge_sizes(work, read_sizes(path, keep=wanted(work)))
    assert _areas(merged)["USERS"] == 600 * GIB  # SALES' two files, not + the root's and HR's 505 GiB
    assert not any(r.path.endswith(("root_users01.dbf", "HR/DATAFILE/users01.dbf")) for r in merged.rates)
    assert any("no CONTAINER column" in w and "by name only" in w for w in merged.warnings)
    with_container = merge_sizes(work, read_sizes(_write(tmp_path, sqlplus_csv(COLUMNS_12, rows_12()), "c.csv")))
    assert _areas(with_container)["USERS"] == 600 * GIB
    assert not any("no CONTAINER column" in w for w in with_container.warnings)


def test_a_name_match_of_another_kind_of_file_is_refused(tmp_path: Path) -> None:
    rows = [r for r in rows_11() if not r["file_name"].endswith("users01.dbf")]
    rows.append(row("control", "", "/u02/oradata/ORCL/users01.dbf", 16 << 10))
    with pytest.raises(BadInput) as caught:
        _merged_11(tmp_path, rows)
    assert "users01.dbf is a control row, but the workload's data:" in caught.value.message


def test_a_name_match_of_another_tablespace_is_refused(tmp_path: Path) -> None:
    rows = [r | {"tablespace": "SYSAUX"} if r["file_name"].endswith("users01.dbf") else r for r in rows_11()]
    with pytest.raises(BadInput) as caught:
        _merged_11(tmp_path, rows)
    assert "of tablespace SYSAUX, but the workload's file is of USERS" in caught.value.message


def test_a_byte_order_mark_hides_neither_the_database_check_nor_a_page_break(tmp_path: Path) -> None:
    other = [r | {"db_name": "PROD"} for r in rows_11()]
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + sqlplus_csv(("db_name", "kind", "tablespace", "file_name", "bytes"),
                                                    other).encode())
    work = read_report(FIXTURES / "awr_11.2.0.4.txt")
    with pytest.raises(BadInput, match="sizes of database PROD"):
        merge_sizes(work, read_sizes(path))
    grid = tmp_path / "bom.txt"
    grid.write_bytes(b"\xef\xbb\xbf" + sqlplus_grid(COLUMNS_11, rows_11()).lstrip("\n").encode())
    table = read_sizes(grid)
    assert table.file_format == "sqlplus-grid" and len(table.rows) == len(rows_11())


@pytest.mark.parametrize("shape", ["csv", "grid"])
def test_set_timing_on_after_the_feedback_line_is_accepted(tmp_path: Path, shape: str) -> None:
    text = sqlplus_csv(COLUMNS_11, rows_11()) if shape == "csv" else sqlplus_grid(COLUMNS_11, rows_11())
    table = read_sizes(_write(tmp_path, text + "Elapsed: 00:00:00.04\n"))
    assert len(table.rows) == len(rows_11())
    with pytest.raises(BadInput, match="rows after the feedback line"):
        read_sizes(_write(tmp_path, sqlplus_csv(COLUMNS_11, rows_11()) + '"ORCL","1"\n', "more.csv"))


# 14. big files: streamed, only what matches is kept ----------------------------------------


def test_only_rows_that_can_match_the_workload_are_kept(tmp_path: Path) -> None:
    work = read_report(FIXTURES / "awr_11.2.0.4.txt")
    others = [row("datafile", f"TS_{n:04d}", f"/u09/ts_{n:04d}.dbf", GIB) for n in range(3000)]
    table = read_sizes(_write(tmp_path, sqlplus_csv(COLUMNS_11, rows_11() + others)), keep=wanted(work))
    assert table.row_count == len(rows_11()) + 3000 and len(table.rows) == len(rows_11())
    merged = merge_sizes(work, table)
    assert merged.sizes is not None and merged.sizes.rows == len(rows_11()) + 3000
    assert _areas(merged)["USERS"] == 600 * GIB


def test_more_rows_of_a_kind_than_a_database_has_files_are_refused(tmp_path: Path) -> None:
    header = "kind,tablespace,file_name,bytes\n"
    body = "".join(f"datafile,USERS,/u/{n}.dbf,8192\n" for n in range(MAX_ROWS_OF_A_KIND + 1))
    path = _write(tmp_path, header + body, "many.csv")
    with pytest.raises(BadInput) as caught:
        read_sizes(path)
    assert f"line {MAX_ROWS_OF_A_KIND + 2}: more than 65,533 rows of kind datafile" in caught.value.message


def test_psql_csv_reads_as_before(tmp_path: Path) -> None:
    table = read_sizes(_write(tmp_path, psql_csv(COLUMNS_11, rows_11())))
    assert [r.size_bytes for r in table.rows] == [int(r["bytes"]) for r in rows_11()]
    assert replace(table, rows=()).row_count == len(rows_11())
