"""Text from documents, shown safely: control characters escaped, Markdown and HTML cells escaped.

Names in documents (tablespaces, files, hosts, instance names pushed by any collector) are
whatever the database or a hand-edited file held. Printed raw, ``ESC ] 0 ; … BEL`` retitles
the terminal, ``ESC [ 2 J`` clears it, a CR overwrites a line with another, a right-to-left
override reverses what a reader sees, and in Markdown a ``|`` or a CR LF breaks a table row
while ``<script>`` reaches any renderer that passes HTML. Every renderer shows such text
through :func:`shown` (one visible escape per character: ``\\x1b``, ``\\r``, ``\\u202e``),
Markdown cells through :func:`markdown_cell` and HTML through :func:`html_text`; the JSON
format keeps the exact text (JSON escapes control characters itself).

The terminal gets a second line of defence: :func:`safe_console` returns a rich console
that escapes whatever control character is left in any text it prints (its own cursor and
colour codes travel apart from the text and are kept).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType
    from rich.segment import Segment
    from rich.text import Text

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls, DEL, and the invisible characters that reorder or break lines (bidi marks)."""
_CONTROL_BUT_NEWLINE = re.compile(
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
    pattern = _CONTROL_BUT_NEWLINE if keep_newlines else _CONTROL
    return pattern.sub(_escape, value) if pattern.search(value) else value


_MARKDOWN = {"|": "\\|", "<": "&lt;", ">": "&gt;", "&": "&amp;", "`": "\\`", "\\": "\\\\"}
_MARKDOWN_SPECIAL = re.compile(r"[|<>&`\\]")


def markdown_cell(text: object) -> str:
    """*text* for one Markdown table cell or list item: one line, no HTML, no cell break.

    Control characters (CR LF included) become visible escapes, ``|`` and backticks are
    backslash-escaped, ``<``, ``>`` and ``&`` become entities, and a backslash is doubled so
    that a name ending in ``\\`` cannot escape the cell's closing ``|``.

    >>> markdown_cell("a|b<script>alert(1)</script>\\r\\n| x |")
    'a\\\\|b&lt;script&gt;alert(1)&lt;/script&gt;\\\\r\\\\n\\\\| x \\\\|'
    >>> markdown_cell("C:\\\\ora\\\\")
    'C:\\\\\\\\ora\\\\\\\\'
    """
    return shown(_MARKDOWN_SPECIAL.sub(lambda m: _MARKDOWN[m.group(0)], str(text)))


def html_text(text: object) -> str:
    """*text* for HTML: entities for ``<>&"'`` and visible escapes for control characters."""
    return html.escape(shown(text))


def rich_text(text: object, style: str = "") -> Text:
    """A rich ``Text`` of *text* with control characters escaped (never parsed as markup)."""
    from rich.text import Text as RichText

    return RichText(shown(text), style=style)


def _safe_segments(segments: Iterable[Segment]) -> Iterable[Segment]:
    from rich.segment import Segment as RichSegment

    for segment in segments:
        if segment.control is None and _CONTROL_BUT_NEWLINE.search(segment.text):
            yield RichSegment(shown(segment.text, keep_newlines=True), segment.style)
        else:
            yield segment


def safe_console(**options: Any) -> Console:
    """A rich console that never writes a control character that came in a text it prints.

    Renderers escape names themselves (so tables measure them right); this catches what
    any code path forgot. rich's own control segments (cursor moves, live displays) pass.
    """
    from rich.console import Console as RichConsole

    class SafeConsole(RichConsole):
        """rich's Console with every printed text segment escaped."""

        def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
            return _safe_segments(super().render(renderable, options))

    return SafeConsole(**options)
