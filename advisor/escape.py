"""Control characters made visible: the one escape for any text a person reads, in an error or a table.

A name quoted from a document (a tablespace, a file, a host) is whatever the database or a
hand-edited file held; printed raw, ``ESC ] 0 ; … BEL`` retitles the terminal and a CR
overwrites a line. :func:`shown` writes each such character as a visible escape. It sits
below both :mod:`advisor.errors` (one-line errors quote names) and :mod:`advisor.render.safe`
(every renderer), so neither reaches into the other.
"""

from __future__ import annotations

import re

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls, DEL, and the invisible characters that reorder or break lines (bidi marks).

The one list: the scripts' comments (:func:`advisor.engine.scripts.quoting.comment`) use it too."""
_CONTROL = CONTROL
CONTROL_BUT_NEWLINE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: object, *, keep_newlines: bool = False) -> str:
    """*text* with every control character written as a visible escape.

    >>> shown("orders\\x1b]0;pwned\\x07"), shown("a\\r\\nb"), shown("x\\u202egnp.exe")
    ('orders\\\\x1b]0;pwned\\\\x07', 'a\\\\r\\\\nb', 'x\\\\u202egnp.exe')
    >>> shown("two\\nlines", keep_newlines=True)
    'two\\nlines'
    """
    value = str(text)
    pattern = CONTROL_BUT_NEWLINE if keep_newlines else _CONTROL
    return pattern.sub(_escape, value) if pattern.search(value) else value
