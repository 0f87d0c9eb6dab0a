"""Path rules of the PostgreSQL collector (no server needed): tablespaces, segments, archive, temp."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from collectors.postgres import areas, files
from collectors.postgres.areas import Tablespace, archive_directory, on_disk, parse_temp_tablespaces
from collectors.postgres.rows import DatabaseRow


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
