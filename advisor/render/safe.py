"""Text from documents, shown safely: control characters escaped, Markdown and HTML cells escaped.

Names in documents (tablespaces, files, hosts, instance names pushed by any collector) are
whatever the database or a hand-edited file held. Printed raw, ``ESC ] 0 ; … BEL`` retitles
the terminal, ``ESC [ 2 J`` clears it, a CR overwrites a line with another, a right-to-left
override reverses what a reader sees, and in Markdown a ``|`` or a CR LF breaks a table row,
``<script>`` reaches any renderer that passes HTML, and ``![i](https://...)`` makes the viewer
fetch an image. Every renderer shows such text through :func:`shown` (one visible escape per
character: ``\\x1b``, ``\\r``, ``\\u202e``), Markdown cells through :func:`markdown_cell`
(list items and headings through :func:`markdown_line`) and HTML through :func:`html_text`;
the JSON format keeps the exact text (JSON escapes control characters itself).

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

from advisor.escape import CONTROL as CONTROL  # the one list; the scripts' comments use it too
from advisor.escape import CONTROL_BUT_NEWLINE
from advisor.escape import shown as shown  # re-exported: every renderer and command takes it from here

_MARKDOWN = {"|": "\\|", "<": "&lt;", ">": "&gt;", "&": "&amp;", "`": "\\`", "\\": "\\\\", "*": "\\*",
             "[": "\\[", "]": "\\]", "~": "\\~"}
_MARKDOWN_SPECIAL = re.compile(r"[|<>&`\\*\[\]~]|_+")
_INERT_NEIGHBOUR = re.compile(r"[^\W_]")  # a letter or digit: ``_`` between two of them starts no emphasis


def _markdown_escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char[0] != "_":
        return _MARKDOWN[char]
    text, start, end = match.string, match.start(), match.end()
    inert = (start > 0 and end < len(text) and _INERT_NEIGHBOUR.match(text[start - 1])
             and _INERT_NEIGHBOUR.match(text[end]))
    return char if inert else char.replace("_", "\\_")


def markdown_cell(text: object) -> str:
    """*text* for one Markdown table cell or inline text: one line, no HTML, no cell break, no markup.

    Control characters (CR LF included) become visible escapes, ``<``, ``>`` and ``&`` become
    entities, and Markdown's inline syntax is backslash-escaped: ``|`` (a cell border), backticks
    (code spans), ``*`` and ``_`` (emphasis), ``[`` and ``]`` (links and images: ``![i](url)``
    would load the image when the page is shown), ``~`` (strikethrough) and the backslash itself
    (a name ending in ``\\`` cannot escape the cell's closing ``|``). A ``_`` between two
    letters or digits starts no emphasis and stays as written (``USERS_DATA``).

    >>> markdown_cell("a|b<script>alert(1)</script>\\r\\n| x |")
    'a\\\\|b&lt;script&gt;alert(1)&lt;/script&gt;\\\\r\\\\n\\\\| x \\\\|'
    >>> markdown_cell("C:\\\\ora\\\\")
    'C:\\\\\\\\ora\\\\\\\\'
    >>> print(markdown_cell("![i](https://x/p.png) **b** _i_ USERS_DATA"))
    !\\[i\\](https://x/p.png) \\*\\*b\\*\\* \\_i\\_ USERS_DATA
    """
    return shown(_MARKDOWN_SPECIAL.sub(_markdown_escape, str(text)))


def markdown_line(text: object) -> str:
    """*text* as the content of a list item, heading or quote: :func:`markdown_cell`, and a first
    character that would start a block of its own (``#``, ``-``, ``+``, ``=``, ``1.``) escaped.

    >>> print(markdown_line("# not a heading"), markdown_line("1. not a list"))
    \\# not a heading 1\\. not a list
    """
    escaped = markdown_cell(text)
    number = re.match(r"\d+[.)]", escaped)
    if number:
        return escaped[:number.end() - 1] + "\\" + escaped[number.end() - 1:]
    return "\\" + escaped if escaped[:1] in ("#", "=", "+", "-") else escaped


def html_text(text: object, *, keep_newlines: bool = False) -> str:
    """*text* for HTML: entities for ``<>&"'`` and visible escapes for control characters
    (line breaks kept with *keep_newlines*: a script shown in ``<pre>``)."""
    return html.escape(shown(text, keep_newlines=keep_newlines))


def rich_text(text: object, style: str = "") -> Text:
    """A rich ``Text`` of *text* with control characters escaped (never parsed as markup)."""
    from rich.text import Text as RichText

    return RichText(shown(text), style=style)


def _safe_segments(segments: Iterable[Segment]) -> Iterable[Segment]:
    from rich.segment import Segment as RichSegment

    for segment in segments:
        if segment.control is None and CONTROL_BUT_NEWLINE.search(segment.text):
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
