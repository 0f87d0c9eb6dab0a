"""Table cells that fit a narrow terminal: figures never wrap, long paths shorten in the middle.

An 80-column terminal cannot hold a full PostgreSQL relation path next to seven figures.
rich would wrap the path over several lines and squeeze the figures' headers into
"partit…"; here a path cell measures as shrinkable and, at whatever width the table gives it,
keeps its start and its file name with "…" between. Full paths stay in the JSON, Markdown
and HTML renderings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.render.safe import shown

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.measure import Measurement
    from rich.table import Table
    from rich.text import Text

ELLIPSIS = "…"
MIN_PATH_CELLS = 16
"""A path cell never gets narrower than this (a file name and a little of its directory)."""


def shorten_middle(text: str, width: int) -> str:
    """*text* in at most *width* cells: its start, "…", and its last path component whole.

    >>> shorten_middle("/var/lib/postgresql/18/main/base/16384/16385", 24)
    '/var/lib/postgres…/16385'
    >>> shorten_middle("/data/tablespace_orders/PG_18_202406281/16384/2619_fsm", 16)
    '/data/…/2619_fsm'
    >>> shorten_middle("/short", 24), shorten_middle("/a/very_long_file_name.dbf", 10)
    ('/short', '…_name.dbf')
    """
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    cut = text.rstrip("/").rfind("/")
    tail = text[cut:] if cut > 0 else text[-(width - 1):]
    if len(tail) + 1 + 4 > width:  # no room for any of the start: keep the end of the name
        return ELLIPSIS + text[-(width - 1):]
    return text[: width - len(tail) - 1] + ELLIPSIS + tail


class MiddlePath:
    """A rich renderable path that shortens in the middle to the width its column gets."""

    def __init__(self, text: str, style: str | None = None) -> None:
        self.text = shown(text)
        self.style = style

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        from rich.measure import Measurement

        return Measurement(min(len(self.text), MIN_PATH_CELLS), len(self.text))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text

        yield Text(shorten_middle(self.text, options.max_width), style=self.style or "", no_wrap=True,
                   overflow="crop", end="")


def one_line(text: str, style: str = "") -> Text:
    """A cell of a shrinking column: cut with "…" at the column's width, never wrapped."""
    from rich.text import Text

    return Text(shown(text), style=style, no_wrap=True, overflow="ellipsis", end="")


def add_columns(table: Table, headers: list[str], *, right: tuple[str, ...] = (),
                shrink: tuple[str, ...] = ()) -> None:
    """Columns that keep figures and headers whole on one line; only the columns in *shrink*
    give up width (their cells are :func:`one_line` or :class:`MiddlePath`)."""
    for header in headers:
        shrinks = header in shrink
        table.add_column(header, justify="right" if header in right else "left", no_wrap=not shrinks,
                         min_width=None if shrinks else len(header))


def plain_table(title: str) -> Table:
    """A borderless table with a header rule and two cells between columns (not three)."""
    from rich.box import SIMPLE_HEAD
    from rich.table import Table

    return Table(title=title, title_justify="left", box=SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
