"""Round-trip of every document through JSON, and refusal of foreign or newer files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.errors import BadInput
from advisor.model import (
    DISK_PROFILE_FORMAT_VERSION,
    FORMAT_VERSION,
    DiskProfile,
    FileIO,
    Latency,
    Snapshot,
    ZonePoint,
    load_snapshot,
    save,
)
from advisor.model.jsonio import read_document
from tests.helpers.snapshots import small_snapshot


def test_snapshot_round_trip_keeps_none_and_tuples(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    snap = small_snapshot()
    save(snap, path)
    assert load_snapshot(path) == snap
    data = json.loads(path.read_text())
    assert data["format_version"] == FORMAT_VERSION
    assert data["files"][0]["writes"] is None  # unknown stays unknown, never 0


def test_disk_profile_int_keys_round_trip(tmp_path: Path) -> None:
    profile = DiskProfile("/dev/loop0", "loop0", 1 << 30, "2026-11-21T09:00:00+00:00", "builtin", 4096,
                          zones=(ZonePoint(0.0, 120e6),), qd_iops={1: 80.0, 16: 210.0},
                          qd_latency={1: Latency(12.0, 11.0, 30.0)})
    path = tmp_path / "d.json"
    save(profile, path)
    assert read_document(path, "disk-profile", DiskProfile, DISK_PROFILE_FORMAT_VERSION) == profile


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format_version=FORMAT_VERSION + 1), "newer"),
        (lambda d: d.update(document="report"), "expected an advisor 'snapshot'"),
        (lambda d: d["files"][0].update(reads="many"), r"Expected `int`, got `str` - at `\$\.files\[0\]\.reads`"),
        (lambda d: d.update(surprise=1), "unknown field `surprise`"),
        (lambda d: d["server"].pop("identity"), r"missing required field `identity` - at `\$\.server`"),
        (lambda d: d["files"][0].update(kind="blob"), r"Invalid enum value 'blob' - at `\$\.files\[0\]\.kind`"),
    ],
)
def test_foreign_or_broken_documents_are_refused(tmp_path: Path, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "s.json"
    save(small_snapshot(), path)
    data = json.loads(path.read_text())
    mutate(data)
    path.write_text(json.dumps(data))
    with pytest.raises(BadInput, match=message):
        load_snapshot(path)


def test_truncated_file_names_the_position(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    save(small_snapshot(), path)
    path.write_text(path.read_text()[:200])
    with pytest.raises(BadInput, match=r"not valid JSON \(line \d+"):
        load_snapshot(path)


def test_write_atomic_never_replaces_a_device_node(tmp_path: Path) -> None:
    from advisor.model.jsonio import write_atomic

    fifo = tmp_path / "pipe"
    import os
    import threading

    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    write_atomic(fifo, "hello\n")
    reader.join(timeout=5)
    assert received == ["hello\n"]
    assert fifo.is_fifo()  # still a FIFO, not a regular file renamed over it
    write_atomic("/dev/null", "discarded\n")
    assert Path("/dev/null").is_char_device()


def test_write_atomic_refuses_a_directory(tmp_path: Path) -> None:
    from advisor.model.jsonio import write_atomic

    with pytest.raises(BadInput, match="is a directory"):
        write_atomic(tmp_path, "x")


def _big_snapshot(rows: int) -> Snapshot:
    base = small_snapshot()
    files = tuple(
        FileIO(f"app/{n}", f"/pg/base/5/{n}", "index", "fäst", "app", 8192, n, None, n * 8192, None, name=f"t{n}")
        for n in range(rows)
    )
    return Snapshot(base.server, base.taken_at, files, base.runs, layout=base.layout,
                    views={"relation_visits": [{"datname": "app", "seconds": 0.5, "error": None}]})


@pytest.mark.parametrize("rows", [3, 6000])
def test_fast_encoder_writes_what_the_generic_walk_describes(rows: int) -> None:
    from advisor.model.jsonio import COMPACT_ABOVE_ROWS, encode, to_jsonable

    snap = _big_snapshot(rows)
    text = encode(snap)
    assert json.loads(text) == to_jsonable(snap)  # same keys, order-independent values, nothing dropped
    assert list(json.loads(text)["files"][0]) == list(FileIO.__dataclass_fields__)  # field order kept
    assert text.endswith(b"\n") and "fäst".encode() in text  # UTF-8, not \u escapes
    assert (b'\n  "server"' in text) == (rows <= COMPACT_ABOVE_ROWS)  # small documents stay readable


def test_encoder_maps_nan_to_null_and_survives_huge_integers() -> None:
    from advisor.model.jsonio import encode

    snap = small_snapshot()
    odd = Snapshot(snap.server, snap.taken_at, snap.files, views={"x": [{"nan": float("nan"), "big": 1 << 70}]})
    data = json.loads(encode(odd))
    assert data["views"]["x"] == [{"nan": None, "big": 1 << 70}]  # 70-bit ints go through the fallback


def test_int_keys_are_written_as_strings() -> None:
    from advisor.model.jsonio import encode

    profile = DiskProfile("/dev/loop0", "loop0", 1 << 30, "2026-11-21T09:00:00+00:00", "builtin", 4096,
                          qd_iops={1: 80.0, 16: 210.0})
    assert json.loads(encode(profile))["qd_iops"] == {"1": 80.0, "16": 210.0}
