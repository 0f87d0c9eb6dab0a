"""File sizes from the helper process: right values, right codes, and a fallback that holds."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from advisor.collectors.postgres import sizes
from advisor.collectors.postgres.sizes import MISSING, UNREADABLE, SizeReader, stat_sizes


def _files(tmp_path: Path, count: int) -> list[str]:
    paths = []
    for n in range(count):
        path = tmp_path / f"{n}"
        path.write_bytes(b"x" * (n % 7) * 100)
        paths.append(str(path))
    return paths


def test_helper_sizes_match_stat_in_order(tmp_path: Path) -> None:
    first, second = _files(tmp_path, 3000), _files(tmp_path, 5)
    odd = [str(tmp_path / "gone"), str(tmp_path / "0" / "below-a-file"), str(tmp_path / "späce ü")]
    Path(odd[2]).write_bytes(b"12345")
    with SizeReader() as reader:
        assert reader.helper_running
        reader.submit(first)  # larger than a pipe buffer: must not deadlock
        reader.submit([])
        reader.submit(second + odd)
        assert reader.result() == [os.path.getsize(p) for p in first]
        assert reader.result() == []
        assert reader.result() == [os.path.getsize(p) for p in second] + [MISSING, UNREADABLE, 5]
    assert stat_sizes(odd) == [MISSING, UNREADABLE, 5]


def test_a_dead_helper_falls_back_to_stat_here(tmp_path: Path) -> None:
    paths = _files(tmp_path, 50)
    with SizeReader() as reader:
        process = reader._process
        assert process is not None
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        reader.submit(paths)
        reader.submit(paths[:3])
        assert reader.result() == [os.path.getsize(p) for p in paths]
        assert not reader.helper_running
        assert reader.result() == [os.path.getsize(p) for p in paths[:3]]


def test_no_helper_when_it_cannot_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sizes.sys, "executable", str(tmp_path / "no-python-here"))
    paths = _files(tmp_path, 10)
    with SizeReader() as reader:
        assert not reader.helper_running
        reader.submit(paths)
        assert reader.result() == [os.path.getsize(p) for p in paths]


def test_unread_batches_do_not_hang_close(tmp_path: Path) -> None:
    paths = _files(tmp_path, 20000)  # more sizes than a pipe holds, never read
    reader = SizeReader()
    process = reader._process
    assert process is not None
    reader.submit(paths)
    started = time.monotonic()
    reader.close()
    assert process.poll() is not None  # ended (killed), not left blocked on its output
    assert time.monotonic() - started < 4  # not the 5 s wait for a helper that cannot finish


def test_the_helper_is_the_module_file_run_by_path(tmp_path: Path) -> None:
    """The helper program is a module ruff and mypy check, not a string handed to ``python -c``."""
    import io

    from advisor.collectors.postgres import size_helper

    assert sizes.HELPER.suffix == ".py" and sizes.HELPER.samefile(size_helper.__file__)
    with SizeReader() as reader:
        process = reader._process
        assert process is not None
        cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
        assert str(sizes.HELPER).encode() in cmdline and b"-c" not in cmdline
    paths = _files(tmp_path, 3)
    payload = "\0".join([*paths, str(tmp_path / "gone")]).encode()
    answer = io.BytesIO()
    size_helper.serve(io.BytesIO(size_helper.HEADER.pack(4, len(payload)) + payload + b"\x01"), answer)
    assert list(memoryview(answer.getvalue()).cast("q")) == [*map(os.path.getsize, paths), MISSING]
