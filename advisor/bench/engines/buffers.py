"""Read buffers the block layer can hand to the device in one request.

An O_DIRECT read goes to the device straight from the caller's memory, one scatter-gather
segment per run of physically contiguous pages. A device takes a bounded number of
segments per request (``queue/max_segments``: 254 on virtio, 128-168 on SATA/SAS HBAs),
so a 1 MiB read into 256 scattered 4 KiB pages is split into two requests, while the
same read into contiguous memory is one. fio's fresh process usually gets contiguous
pages; a long-running Python process recycles freed pages and does not. Measured on a
virtio disk: the builtin engine's 1 MiB reads reached the device as 512 KiB requests
(1,976 requests for 1 GiB), fio's as 1,024 KiB (1,024), and the device answered them
differently. Large buffers therefore sit on transparent huge pages (2 MiB, physically
contiguous) when the kernel allows ``madvise`` for them; otherwise the plain mapping.
"""

from __future__ import annotations

import ctypes
import mmap
from types import TracebackType

from advisor.units import MIB

#: A transparent huge page on x86-64 and arm64 with 4 KiB pages.
HUGE_PAGE = 2 * MIB
#: A buffer larger than one page goes on huge pages: even an 8 KiB read into two scattered
#: pages travels as two segments (measured on a virtio disk at QD1: 33k reads/s against
#: fio's 38k from one contiguous buffer).
CONTIGUOUS_FROM = mmap.PAGESIZE + 1


def _address(memory: mmap.mmap) -> int:
    """The virtual address of *memory* (the exported pointer is released at once)."""
    probe = ctypes.c_char.from_buffer(memory)
    try:
        return ctypes.addressof(probe)
    finally:
        del probe


class ReadBuffer:
    """Page-aligned memory for one O_DIRECT read of *size* bytes (``view``);
    ``huge_advised`` tells whether the kernel took the request for huge pages."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.huge_advised = False
        self._slices: list[memoryview] = []
        if size < CONTIGUOUS_FROM or not hasattr(mmap, "MADV_HUGEPAGE"):
            self._memory = mmap.mmap(-1, size)
            self.view = memoryview(self._memory)
            return
        span = -(-size // HUGE_PAGE) * HUGE_PAGE
        # private: a shared anonymous mapping is shmem, which anonymous THP does not cover
        self._memory = mmap.mmap(-1, span + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        start = -_address(self._memory) % HUGE_PAGE
        try:
            self._memory.madvise(mmap.MADV_HUGEPAGE, start, span)
            self.huge_advised = True
        except OSError:  # THP set to "never", or a kernel without it
            pass
        for page in range(start, start + span, HUGE_PAGE):
            self._memory[page] = 0  # fault each huge page in now, not inside a timed read
        self.view = memoryview(self._memory)[start:start + size]

    def slices(self, block: int, count: int) -> list[memoryview]:
        """*count* consecutive views of *block* bytes each, one per reader. The buffer keeps them and
        :meth:`close` releases them: a caller that registered each slice's release itself missed the
        slices made before an exception from a signal's handler landed between making them and
        registering them, and closing the buffer then raised BufferError in place of that exception
        (a clean-clone CI run)."""
        for n in range(count):
            self._slices.append(self.view[n * block:(n + 1) * block])
        return list(self._slices[-count:])

    def close(self) -> None:
        """Release every slice and the buffer's view, then unmap. A view made from them elsewhere and
        still held (a reader's own) keeps the mapping until it goes: Python refuses to unmap memory a
        view still exports, so the memory is never freed under a reader either way; the mapping is then
        unmapped when its last view is collected, and this does not raise in place of what the caller
        is already raising."""
        for view in self._slices:
            view.release()
        self._slices.clear()
        self.view.release()
        try:
            self._memory.close()
        except BufferError:
            pass

    def __enter__(self) -> ReadBuffer:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
