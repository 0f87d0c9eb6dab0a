"""The lines of a sizes file as a stream, with the look-ahead the readers need.

A sizes file is read a line at a time (a 100 MiB file is not held in memory): each line as
SQL*Plus or psql wrote it, numbered from 1, with the typed commands of a spool started at the
prompt (``SQL> @sizes``) blanked, a form feed counted as a line break, and a UTF-8 byte order
mark removed (it is not text: left in, it hides the first heading and breaks the repeated
headings of a paged grid). :class:`Lines` looks a few lines ahead without taking them.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from advisor.errors import BadInput
from advisor.model.jsonio import open_regular_file

Line = tuple[int, str]
_PROMPT = re.compile(r"^SQL> ")
BOM = "\ufeff"


def _numbered(path: Path, stream: BinaryIO, limit_bytes: int) -> Iterator[Line]:
    number, read = 0, 0
    for raw in stream:
        read += len(raw)
        if read > limit_bytes:
            raise BadInput(f"{path}: the sizes file grew past {limit_bytes:,} bytes while it was read")
        text = raw.decode("utf-8", errors="replace")
        if BOM in text:
            text = text.replace(BOM, "")
        for line in text.replace("\f", "\n").splitlines() or [""]:
            number += 1
            yield number, "" if _PROMPT.match(line) else line


class Lines:
    """Numbered lines with look-ahead: :meth:`peek` and :meth:`content` look, :meth:`take` and ``next*`` take."""

    def __init__(self, source: Iterator[Line]) -> None:
        self._source = source
        self._ahead: deque[Line] = deque()

    def _fill(self, count: int) -> bool:
        while len(self._ahead) < count:
            line = next(self._source, None)
            if line is None:
                return False
            self._ahead.append(line)
        return True

    def peek(self, k: int) -> Line | None:
        """The line *k* lines ahead (0: the next one), or None past the end."""
        return self._ahead[k] if self._fill(k + 1) else None

    def content(self, k: int) -> Line | None:
        """The *k*-th non-blank line ahead (0: the first), without taking anything."""
        seen, index = -1, 0
        while (line := self.peek(index)) is not None:
            if line[1].strip():
                seen += 1
                if seen == k:
                    return line
            index += 1
        return None

    def take(self, count: int) -> None:
        """Take *count* lines (they were peeked)."""
        for _ in range(count):
            self._ahead.popleft()

    def next(self) -> Line | None:
        """Take the next line."""
        if self._ahead:
            return self._ahead.popleft()
        return next(self._source, None)

    def next_content(self) -> Line | None:
        """Take blank lines and then the next non-blank one."""
        while (line := self.next()) is not None:
            if line[1].strip():
                return line
        return None


@contextmanager
def open_lines(path: Path, limit_bytes: int, what: str) -> Iterator[Lines]:
    """*path*'s lines (a regular file of at most *limit_bytes*, see :func:`open_regular_file`)."""
    with open_regular_file(path, limit_bytes, what) as stream:
        yield Lines(_numbered(path, stream, limit_bytes))
