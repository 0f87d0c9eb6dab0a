"""The helper process of :class:`~advisor.collectors.postgres.sizes.SizeReader`: stat() on the other core.

Run by path as ``python -I -S size_helper.py`` (no site, no environment, no package import:
it starts in a few milliseconds and sees nothing but what it is sent). Its protocol, on
standard input and output: a batch is a header of two little-endian unsigned 64-bit numbers
(paths in the batch, payload bytes) followed by the NUL-separated paths; the answer is one
little-endian signed 64-bit size per path, :data:`MISSING` for a file that does not exist
and :data:`UNREADABLE` when stat() failed otherwise. It ends when its input closes.

Only os, struct and sys are imported (typing only for the type checker: it would double the
start-up time): the module must run without the advisor package on the path.
"""

from __future__ import annotations

import os
import struct
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

HEADER = struct.Struct("<QQ")
"""Paths in the batch, payload bytes."""
MISSING = -1
"""The file does not exist (dropped or rewritten since the query)."""
UNREADABLE = -2
"""stat() failed otherwise (permissions): the caller falls back to the catalog's estimate."""


def sizes_of(paths: list[bytes] | list[str]) -> list[int]:
    """The size of each path, or :data:`MISSING` / :data:`UNREADABLE`."""
    sizes = []
    stat = os.stat
    for path in paths:
        try:
            sizes.append(stat(path).st_size)
        except FileNotFoundError:
            sizes.append(MISSING)
        except OSError:
            sizes.append(UNREADABLE)
    return sizes


def serve(source: BinaryIO, sink: BinaryIO) -> None:
    """Answer batches from *source* on *sink* until *source* ends (a short header ends it too)."""
    while True:
        head = source.read(HEADER.size)
        if len(head) < HEADER.size:
            return
        count, size = HEADER.unpack(head)
        payload = source.read(size)
        sizes = sizes_of(payload.split(b"\0")) if count else []
        sink.write(struct.pack(f"<{len(sizes)}q", *sizes))
        sink.flush()


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
