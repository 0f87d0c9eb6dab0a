"""Path rules of the PostgreSQL collector (no server needed): tablespaces, segments, archive, temp."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from advisor.collectors.postgres import areas, files
from advisor.collectors.postgres.areas import Tablespace, archive_directory, on_disk, parse_temp_tablespaces
from advisor.collectors.postgres.rows import DatabaseRow
from advisor.collectors.postgres.sizes import MISSING, UNREADABLE


def test_doctests_of_areas() -> None:
    result = doctest.testmod(areas)
    assert result.attempted >= 8 and result.failed == 0


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cp %p /mnt/arch/%f", "/mnt/arch"),
        ("test ! -f /mnt/arch/%f && cp %p /mnt/arch/%f", "/mnt/arch"),
        ("rsync -a %p /srv/wal/%f", "/srv/wal"),
        ("/usr/bin/cp %p '/with space/%f'", "/with space"),
        ("cp %p host:/arch/%f", None),
        ("wal-g wal-push %p", None),
        ("(disabled)", None),
        ("cp %p /arch/%f.gz", None),
    ],
)
def test_archive_destination(command: str, expected: str | None) -> None:
    assert archive_directory(command, "", "") == expected


def test_segments_are_found_on_disk(tmp_path: Path) -> None:
    first = tmp_path / "16390"
    first.write_bytes(b"x" * 4096)
    (tmp_path / "16390.1").write_bytes(b"x" * 4096)
    (tmp_path / "16390.2").write_bytes(b"x" * 100)
    size, segments = on_disk(str(first), segment_bytes=4096)
    assert size == 8292 and segments == (f"{first}.1", f"{first}.2")
    assert on_disk(str(tmp_path / "missing")) == (0, ())
    # a first segment below the segment size has no successor, whatever lies around
    assert on_disk(str(tmp_path / "16390.2"), segment_bytes=4096) == (100, ())


def _db(name: str, space: int, temp_bytes: int) -> DatabaseRow:
    return DatabaseRow(1, name, space, True, False, True, None, 0, temp_bytes, 0, None, None)


def test_temp_bytes_follow_temp_tablespaces() -> None:
    spaces = {1663: Tablespace(1663, "pg_default", "/d/base", ""), 20: Tablespace(20, "a", "/a", "/a"),
              21: Tablespace(21, "b b", "/b", "/b")}
    dbs = [_db("one", 1663, 8192 * 10), _db("two", 20, 8192 * 4)]
    by_id = {f.file_id: f for f in files.temp_files(dbs, "", spaces, {}, 8192, 18, 202506291)}
    assert by_id["temp/pg_default"].write_bytes == 81920 and by_id["temp/a"].write_bytes == 32768
    assert by_id["temp/a"].path == "/a/PG_18_202506291/pgsql_tmp" and by_id["temp/a"].writes == 4
    split = {f.file_id: f for f in files.temp_files(dbs, 'a, "b b", missing', spaces, {"a": 5}, 8192, 18, 1)}
    assert set(split) == {"temp/a", "temp/b b"}
    assert split["temp/a"].write_bytes == split["temp/b b"].write_bytes == 57344
    assert split["temp/a"].size_bytes == 5 and split["temp/a"].reads == 0
    assert parse_temp_tablespaces(' "x""y" ,z') == ['x"y', "z"]


def test_relation_files_from_another_host_use_relpages() -> None:
    """Data directory not visible here: sizes are relpages × block size, segments follow from them."""
    spaces = {1663: Tablespace(1663, "pg_default", "/pg/data/base", ""),
              1664: Tablespace(1664, "pg_global", "/pg/data/global", ""),
              16385: Tablespace(16385, "fast", "/srv/fast", "/srv/fast")}
    where = files.RelationPaths(spaces, "/pg/data", 8192, 1 << 30, local=False, version_dir="PG_18_202506291")
    rows = [  # oid, relname, relkind, toast, spcoid, shared, filenode, relpages, blks_read, hit, parent, scans
        (16390, "public.big", "r", False, 16385, False, 16400, 300_000, 12, 0, None, 0),
        (16391, "public.empty", "r", False, 1663, False, 16401, 0, 0, 0, None, 0),
        (16392, "pg_toast.pg_toast_16390_index", "i", True, 1663, False, 16402, 2, 0, 0, 16390, 0),
        (1262, "pg_catalog.pg_database", "r", False, 1664, True, 1262, 1, 3, 0, None, 0),
        (2619, "pg_catalog.pg_statistic", "r", False, 1663, False, None, 5, 1, 0, None, 0),
    ]
    paths = files.relation_paths(5, rows, where)
    assert paths == ["/srv/fast/PG_18_202506291/5/16400", "/pg/data/base/5/16401", "/pg/data/base/5/16402",
                     "/pg/data/global/1262", None]
    found = {f.file_id: f for f in files.relation_files("app", rows, paths, where)}
    assert set(found) == {"app/16390", "app/16392", "global/1262"}  # empty and unread: left out; no storage: none
    big = found["app/16390"]
    assert big.size_bytes == 300_000 * 8192 and big.tablespace == "fast" and big.kind == "data"
    assert big.segment_paths == ("/srv/fast/PG_18_202506291/5/16400.1", "/srv/fast/PG_18_202506291/5/16400.2")
    assert big.reads == 12 and big.read_bytes == 12 * 8192 and big.writes is None
    assert found["app/16392"].kind == "toast" and found["global/1262"].container == "global"


def test_relation_files_on_this_host_take_the_size_codes(tmp_path: Path) -> None:
    """Sizes from the size reader: missing → 0 (left out when unread), unreadable → relpages."""
    base = tmp_path / "base"
    (base / "5").mkdir(parents=True)
    (base / "5" / "100").write_bytes(b"x" * 16384)
    (base / "5" / "300").write_bytes(b"x" * 5000)
    (base / "5" / "300.1").write_bytes(b"x" * 10)  # a next segment only counts after a full one
    spaces = {1663: Tablespace(1663, "pg_default", str(base), "")}
    where = files.RelationPaths(spaces, str(tmp_path), 8192, 4096, local=True, version_dir="PG_18_1")
    rows = [(1, "a", "r", False, 1663, False, 100, 9, 1, 0, None, None),
            (2, "gone", "r", False, 1663, False, 200, 9, 0, 0, None, None),
            (3, "denied", "i", False, 1663, False, 250, 7, 0, 0, 1, None),
            (4, "segmented", "r", False, 1663, False, 300, 1, 0, 0, None, None)]
    paths = files.relation_paths(5, rows, where)
    given = files.relation_files("db", rows, paths, where, [16384, MISSING, UNREADABLE, 5000])
    read_here = files.relation_files("db", rows[:2] + rows[3:], paths[:2] + paths[3:], where)
    by_name = {f.name: f for f in given}
    assert set(by_name) == {"a", "denied", "segmented"}
    assert by_name["denied"].parent == "db/1" and by_name["a"].parent is None
    assert by_name["a"].size_bytes == 16384 and by_name["denied"].size_bytes == 7 * 8192
    assert by_name["segmented"].size_bytes == 5010 and by_name["segmented"].segment_paths == (f"{paths[3]}.1",)
    assert [(f.name, f.size_bytes, f.segment_paths) for f in read_here] == [
        (f.name, f.size_bytes, f.segment_paths) for f in given if f.name != "denied"]
