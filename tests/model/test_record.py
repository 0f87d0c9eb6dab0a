"""Document records: built like frozen dataclasses, read by msgspec, strict about their fields."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import msgspec
import pytest

from advisor.errors import BadInput
from advisor.model import FORMAT_VERSION, FileIO, Location, ServerInfo, Snapshot, WaitProfile, load_snapshot, save
from advisor.model.jsonio import encode, from_jsonable, read_document, to_jsonable


def _file(**changes: object) -> FileIO:
    base = FileIO("db/1", "/d/base/1/1", "data", "pg_default", "db", 8192, 3, None, 24576, None)
    return dataclasses.replace(base, **changes)


def test_dataclass_helpers_work_on_records() -> None:
    file = _file()
    assert dataclasses.is_dataclass(file)
    changed = dataclasses.replace(file, reads=7, segment_paths=("/d/base/1/1.1",))
    assert (changed.reads, changed.segment_paths, changed.path) == (7, ("/d/base/1/1.1",), file.path)
    assert type(changed) is FileIO and file.reads == 3
    assert [f.name for f in dataclasses.fields(FileIO)] == list(FileIO.__struct_fields__)
    assert dataclasses.asdict(file)["read_bytes"] == 24576
    defaults = {f.name: f.default for f in dataclasses.fields(FileIO) if f.default is not dataclasses.MISSING}
    assert defaults["segment_paths"] == () and "file_id" not in defaults


def test_records_are_frozen_and_defaults_are_fresh() -> None:
    file = _file()
    with pytest.raises(AttributeError):
        file.reads = 4  # type: ignore[misc]
    a = ServerInfo("postgres", "18.1", 180001, "h", "db", "1", "t")
    b = ServerInfo("postgres", "18.1", 180001, "h", "db", "1", "t")
    a.settings["x"] = "1"
    assert b.settings == {}
    assert {f.name: f.default_factory for f in dataclasses.fields(Snapshot)}["wait"] is WaitProfile


def test_records_pickle_for_the_forked_locator() -> None:
    location = Location("/d/f", "sda", "sda1", 0.1, 0.2, 1, 4096, 0.15)
    assert pickle.loads(pickle.dumps(location)) == location


def test_an_unknown_field_deep_in_a_document_is_named(tmp_path: Path) -> None:
    when = "2026-11-24T12:00:00+00:00"
    snapshot = Snapshot(ServerInfo("postgres", "18.1", 180001, "h", "db", "1", when), when, (_file(), _file()))
    path = tmp_path / "s.json"
    save(snapshot, path)
    assert read_document(path, "snapshot", Snapshot, FORMAT_VERSION) == snapshot
    data = to_jsonable(snapshot)
    data["files"][1]["reeds"] = 1
    path.write_bytes(encode(data))
    with pytest.raises(BadInput, match=r"unknown field `reeds` - at `\$\.files\[1\]`"):
        read_document(path, "snapshot", Snapshot, FORMAT_VERSION)


def test_a_version_1_snapshot_is_still_read(tmp_path: Path) -> None:
    """Version 2 only named sequences apart; files written before it load as they are."""
    when = "2026-11-24T12:00:00+00:00"
    snapshot = Snapshot(ServerInfo("postgres", "18.1", 180001, "h", "db", "1", when), when, (_file(),))
    data = to_jsonable(snapshot)
    assert data["format_version"] == FORMAT_VERSION == 3
    data["format_version"] = 1
    path = tmp_path / "v1.json"
    path.write_bytes(encode(data))
    assert load_snapshot(path).files == snapshot.files


def test_from_jsonable_converts_keys_and_names_the_field() -> None:
    from advisor.model import DiskProfile

    profile = DiskProfile("/dev/loop0", "loop0", 1 << 30, "2026-11-24", "builtin", 4096, qd_iops={1: 80.0})
    assert from_jsonable(DiskProfile, to_jsonable(profile)) == profile  # "1" -> 1 on the way back
    broken = to_jsonable(profile) | {"size_bytes": "big"}
    with pytest.raises(BadInput, match=r"profile.json: Expected `int`, got `str` - at `\$\.size_bytes`"):
        from_jsonable(DiskProfile, broken, "profile.json")


def test_large_documents_are_compact_and_small_ones_indented() -> None:
    small = encode(_file())
    assert small.startswith(b"{\n  ") and small.endswith(b"}\n")
    assert msgspec.json.decode(small, type=FileIO) == _file()
    assert encode(float("nan")) == b"null\n"
