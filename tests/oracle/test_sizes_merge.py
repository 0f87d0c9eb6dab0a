"""Merging a sizes file into an imported workload: by name, else by tablespace, and what stays unknown."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from advisor.collectors.awr import read_report
from advisor.engine.areas import group_areas
from advisor.sizes.formats import read_sizes
from advisor.sizes.merge import merge_sizes, size_unknown
from advisor.sizes.need import assume_sizes, missing_sizes_line
from tests.oracle.sizes_rows import COLUMNS_11, rows_11
from tests.oracle.sizes_shapes import sqlplus_csv

FIXTURES = Path(__file__).parent / "fixtures"
GIB = 1 << 30


def _merged(tmp_path: Path, rows: list[dict[str, str]]):  # type: ignore[no-untyped-def]
    path = tmp_path / "sizes.csv"
    path.write_text(sqlplus_csv(COLUMNS_11, rows))
    return merge_sizes(read_report(FIXTURES / "awr_11.2.0.4.txt"), read_sizes(path))


def _area_sizes(work) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {a.name: a.size_bytes for a in group_areas(work.rates)}


def test_files_named_otherwise_take_their_tablespace_total(tmp_path: Path) -> None:
    """Datafiles moved since the report: no name matches, USERS' three files sum to its area."""
    rows = [r | {"file_name": r["file_name"].replace("/u02/", "/u09/")} if r["tablespace"] == "USERS" else r
            for r in rows_11()]
    work = _merged(tmp_path, rows)
    assert _area_sizes(work)["USERS"] == 600 * GIB
    users = [r for r in work.rates if r.tablespace == "USERS"]
    assert len(users) == 2 and sum(r.size_bytes or 0 for r in users) == 600 * GIB  # no file added: none matched
    assert work.sizes is not None and work.sizes.files_by_tablespace == 2 + 3  # USERS x2, redo, control, archive
    assert work.sizes.files_unknown == 0 and missing_sizes_line(work) is None


def test_a_file_without_io_is_added_to_its_tablespace(tmp_path: Path) -> None:
    work = _merged(tmp_path, rows_11())
    added = [r for r in work.rates if r.path == "/u02/oradata/ORCL/users03.dbf"]
    assert len(added) == 1 and added[0].read_iops == 0.0 and added[0].size_bytes == 100 * GIB
    assert work.sizes is not None and work.sizes.files_by_name == 6


def test_what_the_file_lacks_stays_unknown_and_is_named(tmp_path: Path) -> None:
    work = _merged(tmp_path, [r for r in rows_11() if r["kind"] != "tempfile"])
    assert work.sizes is not None and work.sizes.files_unknown == 1
    line = missing_sizes_line(work)
    assert line is not None and "1 of 8 areas (TEMP)" in line
    assumed, names = assume_sizes(work, 5 * GIB)
    assert names == {"TEMP"} and _area_sizes(assumed)["TEMP"] == 5 * GIB
    assert _area_sizes(assumed)["USERS"] == 600 * GIB  # stated sizes are kept


def test_an_older_document_with_zero_sizes_from_a_report_counts_as_unknown() -> None:
    work = read_report(FIXTURES / "awr_11.2.0.4.txt")
    older = replace(work, rates=tuple(replace(r, size_bytes=0) for r in work.rates))
    assert all(size_unknown(r, older) for r in older.rates)
    assert missing_sizes_line(older) is not None
    live = replace(older, source="snapshots")  # a collector's 0 is a size it read
    assert missing_sizes_line(live) is None


def test_a_report_without_per_file_data_takes_every_container_by_kind(tmp_path: Path) -> None:
    """19c "No data exists" for File IO Stats: the type-level Data File row holds all data files, root included."""
    from tests.oracle.sizes_rows import COLUMNS_12, rows_12

    path = tmp_path / "sizes.csv"
    path.write_text(sqlplus_csv(COLUMNS_12, rows_12()))
    work = merge_sizes(read_report(FIXTURES / "awr_19c_nodata.html"), read_sizes(path))
    by_kind = {r.kind: r.size_bytes for r in work.rates}
    datafiles = sum(int(r["bytes"]) for r in rows_12() if r["kind"] == "datafile")
    assert by_kind["data"] == datafiles == (3 + 1 + 1 + 8 + 400 + 200) * GIB
    assert by_kind["temp"] == 20 * GIB and by_kind["redo"] == 2 * GIB and by_kind["archive"] == 300 * GIB
    assert work.sizes is not None and work.sizes.files_unknown == 0


def test_unlisted_files_go_to_their_own_container(tmp_path: Path) -> None:
    """Two PDBs with a USERS each; a USERS file of the second PDB without IO joins that PDB's area."""
    from tests.oracle.sizes_rows import COLUMNS_12

    work = read_report(FIXTURES / "awr_12.2.0.1_cdb.html")
    hr_users = replace(next(r for r in work.rates if r.tablespace == "USERS"), file_id="data:/u05/hr/users01.dbf",
                       path="/u05/hr/users01.dbf", container="HR")
    work = replace(work, rates=(*work.rates, hr_users))

    def row(container: str, name: str, size: int) -> dict[str, str]:
        return {"db_name": "ORCL", "dbid": "1234567890", "taken_at": "", "kind": "datafile",
                "container": container, "tablespace": "USERS", "file_name": name, "bytes": str(size)}

    path = tmp_path / "sizes.csv"
    path.write_text(sqlplus_csv(COLUMNS_12, [row("HR", "/u05/hr/users01.dbf", 5 * GIB),
                                             row("HR", "/u05/hr/users02.dbf", 7 * GIB)]))
    merged = merge_sizes(work, read_sizes(path))
    added = next(r for r in merged.rates if r.path == "/u05/hr/users02.dbf")
    assert added.container == "HR" and added.size_bytes == 7 * GIB
    assert [r.size_bytes for r in merged.rates if r.container == "SALES" and r.tablespace == "USERS"] == [None, None]
