"""Read buffers on huge pages, so a large O_DIRECT read reaches the device as one request."""

from __future__ import annotations

import ctypes
import os
import re
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from advisor.bench.engines import Job, Region
from advisor.bench.engines.buffers import CONTIGUOUS_FROM, HUGE_PAGE, ReadBuffer
from advisor.bench.engines.builtin import BuiltinEngine, _Worker
from advisor.bench.target import create_scratch, release
from tests.bench.cli_support import require_root
from tests.helpers.loopdisk import no_leaks, scratch_disk

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")
needs_thp = pytest.mark.skipif(not THP.exists() or "[never]" in THP.read_text(),
                               reason="transparent huge pages are off on this kernel")


def _address(buffer: ReadBuffer) -> int:
    probe = ctypes.c_char.from_buffer(buffer.view)
    try:
        return ctypes.addressof(probe)
    finally:
        del probe


def _huge_kib_at(address: int) -> int:
    """AnonHugePages of the mapping holding *address*, from /proc/self/smaps."""
    for block in re.split(r"\n(?=[0-9a-f]+-[0-9a-f]+ )", Path("/proc/self/smaps").read_text()):
        low, high = (int(part, 16) for part in block.split(None, 1)[0].split("-"))
        if low <= address < high:
            found = re.search(r"^AnonHugePages:\s+(\d+) kB", block, re.MULTILINE)
            return int(found.group(1)) if found else 0
    raise AssertionError(f"no mapping holds {address:#x}")


@needs_thp
@pytest.mark.parametrize("size", [8192, 32 * 8192, 1 << 20, 3 << 20])
def test_a_large_buffer_sits_on_huge_pages(size: int) -> None:
    with ReadBuffer(size) as buffer:
        address = _address(buffer)
        assert len(buffer.view) == size and buffer.huge_advised
        assert address % HUGE_PAGE == 0  # aligned to the huge page, hence to the 4 KiB O_DIRECT needs
        assert _huge_kib_at(address) >= 2048
        buffer.view[-1] = 7  # the whole size is usable memory
        assert buffer.view[-1] == 7


def test_a_one_page_buffer_is_a_plain_aligned_mapping() -> None:
    """One page is contiguous by itself: no 2 MiB for a 4 KiB read."""
    with ReadBuffer(4096) as buffer:
        assert len(buffer.view) == 4096 and not buffer.huge_advised
        assert _address(buffer) % 4096 == 0
    assert 4096 < CONTIGUOUS_FROM <= 8192


def test_a_closed_buffer_cannot_be_used() -> None:
    buffer = ReadBuffer(1 << 20)
    buffer.close()
    with pytest.raises(ValueError):
        buffer.view[0]


def test_closing_releases_every_slice_it_handed_out() -> None:
    """The readers' slices are the buffer's to release: an exception that lands between making them
    and registering their releases elsewhere must not leave one exported when the buffer closes."""
    buffer = ReadBuffer(4 << 20)
    slices = buffer.slices(1 << 20, 4)
    assert [len(s) for s in slices] == [1 << 20] * 4
    slices[3][0] = 7
    assert buffer.view[3 << 20] == 7  # the slices are the buffer's memory, not copies
    buffer.close()
    for view in slices:
        with pytest.raises(ValueError):
            view[0]


def test_a_view_still_held_elsewhere_does_not_raise_in_place_of_the_callers_exception() -> None:
    """A view made from the buffer and still held keeps the mapping (Python will not unmap memory a view
    exports, so nothing reads freed memory); close says nothing, and the mapping goes with that view."""
    buffer = ReadBuffer(1 << 20)
    stray = buffer.slices(4096, 1)[0][:16]  # a view of a slice: the buffer does not know of it
    buffer.close()
    stray[0] = 1  # still mapped, still usable
    assert stray[0] == 1
    stray.release()


def _reads_completed(name: str) -> tuple[int, int]:
    """(requests, sectors) read by block device *name* since boot."""
    fields = Path(f"/sys/block/{name}/stat").read_text().split()
    return int(fields[0]), int(fields[2])


@needs_thp
@pytest.mark.root
def test_sequential_1m_reads_reach_the_device_whole(tmp_path: Path) -> None:
    """A loop device takes 128 segments per request: 1 MiB in scattered 4 KiB pages would go
    as two or more requests, from huge pages it goes as one."""
    require_root()
    size = 48 << 20
    with scratch_disk(size, None, fs=None, image_dir=tmp_path / "img", direct_io=True) as disk:
        limit_kib = int(Path(f"/sys/block/{disk.name}/queue/max_sectors_kb").read_text())
        if limit_kib < 1024:
            pytest.skip(f"{disk.name} takes at most {limit_kib} KiB per request")
        job = Job("seq 1M", "read", (Region(0, size),), 1 << 20, 30.0)
        before = _reads_completed(disk.name)
        result = BuiltinEngine().run(disk.device, [job], threading.Event())[0]
        after = _reads_completed(disk.name)
    assert no_leaks(tmp_path / "img")
    requests, sectors = after[0] - before[0], after[1] - before[1]
    assert result.ios == 48 and sectors * 512 == size
    assert requests <= 48 + 2, f"{requests} requests for 48 reads of 1 MiB"


class _Alarm(Exception):
    pass


def _raise_alarm_once() -> Callable[[int, object], None]:
    raised = []

    def handler(number: int, frame: object) -> None:
        if not raised:
            raised.append(number)
            raise _Alarm
    return handler


@pytest.fixture
def alarm_target(tmp_path: Path) -> Iterator[str]:
    """A 64 MiB scratch file for the interrupt tests (two regions of 32 MiB); SIGALRM's
    handler and timer are put back afterwards."""
    target = create_scratch(str(tmp_path / "scratch.dat"), 64 << 20, reuse=False)
    previous = signal.getsignal(signal.SIGALRM)
    try:
        yield target.path
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        release(target)


def _two_region_job(pattern: str) -> Job:
    """Two readers per 32 MiB region, 4 MiB reads: a long window for a signal to land in."""
    regions = (Region(0, 32 << 20), Region(32 << 20, 32 << 20))
    return Job("interrupted", pattern, regions, 4 << 20, 30.0, depth=2)


@pytest.mark.parametrize("pattern", ["read", "randread"])
def test_an_exit_raised_while_reading_waits_for_every_reader(alarm_target: str, pattern: str) -> None:
    """An exception from a signal handler (Ctrl-C, SIGTERM turned into SystemExit) reaches the
    caller itself, after every reader has stopped; not a BufferError from freeing memory that
    a thread still reads into (``Thread.join`` interrupted in Python 3.11 says a running thread
    has ended)."""
    job = _two_region_job(pattern)
    for _ in range(4):
        signal.signal(signal.SIGALRM, _raise_alarm_once())
        signal.setitimer(signal.ITIMER_REAL, 0.25)
        with pytest.raises(_Alarm):
            while True:  # a sequential pass may end before the alarm
                BuiltinEngine().run(alarm_target, [job], threading.Event())
        assert not [thread for thread in threading.enumerate() if isinstance(thread, _Worker)]


def test_a_signal_while_the_readers_start_arrives_after_every_start(alarm_target: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A signal raised between two ``Thread.start`` calls used to stop the starting loop
    with readers already running into a buffer about to be freed (and, inside ``start``,
    to leave a thread Python had half forgotten). Signals are held while the readers start,
    but one the kernel gives another thread of the process (a test runner's: the signal here
    goes to the process, as a Ctrl-C or a timer's does) still has its handler run in the main
    thread, inside a start. Whatever the readers that started, every one is waited for, and
    the caller gets the signal's exception, not a BufferError."""
    started: list[_Worker] = []
    original_start = _Worker.start

    def start_then_signal(worker: _Worker) -> None:
        original_start(worker)
        started.append(worker)
        if len(started) == 2:
            os.kill(os.getpid(), signal.SIGALRM)  # to the process: handled in the main thread

    monkeypatch.setattr("advisor.bench.engines.builtin._aio_usable", lambda: False)
    monkeypatch.setattr(_Worker, "start", start_then_signal)
    signal.signal(signal.SIGALRM, _raise_alarm_once())
    with pytest.raises(_Alarm):
        BuiltinEngine().run(alarm_target, [_two_region_job("randread")], threading.Event())
    assert len(started) >= 2  # the signal came after the second start
    assert all(worker.done.is_set() for worker in started)
    assert not [thread for thread in threading.enumerate() if isinstance(thread, _Worker)]
