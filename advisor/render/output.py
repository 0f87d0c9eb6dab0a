"""Where rendered output goes: one :func:`emit` for every command, one width for files.

A command hands :func:`emit` the format the user chose, the ``-o`` file (or None for stdout)
and one renderer per format it offers; :func:`emit` picks the renderer, gives a terminal
renderer its console (the terminal's width on a terminal, ``COLUMNS`` or :data:`FILE_WIDTH`
when piped, always :data:`FILE_WIDTH` for a file), and writes a file atomically. So the
choice between formats is written once, and terminal output saved to a file is as wide for
``report`` as for ``fleet report`` (docs/output.md).
"""

from __future__ import annotations

import enum
import io
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.errors import BadInput
from advisor.model.jsonio import write_atomic

if TYPE_CHECKING:
    from rich.console import Console


class OutputFormat(enum.StrEnum):
    """Output formats a command may offer."""

    terminal = "terminal"
    json = "json"
    markdown = "markdown"
    html = "html"


FILE_WIDTH = 120
"""Columns of terminal-format output that does not go to a terminal: a ``-o FILE`` always, and a
pipe when ``COLUMNS`` is not set (docs/output.md). Wide enough for whole paths in most tables,
narrow enough to read in a mail or a ticket; the same for every command."""

MIN_COLUMNS = 40
"""A ``COLUMNS`` below this is taken as unset: no table of advisor can be drawn narrower."""

Text = str | bytes
Rendered = Text | Callable[[], Text]
"""A rendering in a text format: the text itself, or a function that makes it (called only
when that format was chosen, so a command pays for the format it prints)."""

Drawing = Callable[["Console"], object]
"""A terminal renderer: prints onto the console it is given."""


def output_width(is_terminal: bool) -> int | None:
    """Columns for stdout: the terminal's own (None lets rich ask it), else ``COLUMNS``, else FILE_WIDTH.

    A pipe must not take the width of whatever terminal stderr happens to be on (rich's default),
    so ``advisor report | less`` and ``COLUMNS=80 advisor report > r.txt`` are what the user chose.
    """
    if is_terminal:
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) >= MIN_COLUMNS else FILE_WIDTH


def stdout_console() -> Console:
    """Console for data (stdout): the terminal's width, or (piped) ``COLUMNS`` or FILE_WIDTH."""
    from advisor.render.safe import safe_console

    console = safe_console(file=sys.stdout, highlight=False, soft_wrap=False)
    width = output_width(console.is_terminal)
    if width is not None:
        console.width = width
    return console


def file_console() -> Console:
    """A recording console for terminal-format output written to a file (``-o``): FILE_WIDTH
    columns and no colour, whatever terminal the command runs in."""
    from advisor.render.safe import safe_console

    return safe_console(file=io.StringIO(), width=FILE_WIDTH, record=True, color_system=None, highlight=False)


def stderr_console() -> Console:
    """Console for progress and diagnostics (stderr)."""
    from advisor.render.safe import safe_console

    return safe_console(file=sys.stderr, highlight=False)


_UNANNOUNCED: set[Path] = set()


def unannounced(path: Path) -> Path:
    """*path* is a file written for a moment and then removed (``collect --push`` without ``-o``).

    :func:`write_output` writes it without printing "wrote ...": the user never sees that file.
    """
    _UNANNOUNCED.add(path)
    return path


def write_output(text: Text, output: Path | None) -> None:
    """Write *text* to *output* atomically (saying so on stderr), or to stdout when no file is given.

    For a document that has one shape (a snapshot, a fitted drive.toml); output a user chooses
    the format of goes through :func:`emit`.
    """
    if output is None:
        if isinstance(text, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(text if text.endswith(b"\n") else text + b"\n")
            sys.stdout.buffer.flush()
            return
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    else:
        write_atomic(output, text)
        if output not in _UNANNOUNCED:
            print(f"wrote {output}", file=sys.stderr, flush=True)


def emit(fmt: OutputFormat, output: Path | None, *, terminal: Drawing | None = None, json: Rendered | None = None,
         markdown: Rendered | None = None, html: Rendered | None = None) -> None:
    """Render in *fmt* with the renderer given for it and write to stdout or atomically to *output*.

    *terminal* draws on a console: stdout's, or for a file one of FILE_WIDTH columns whose
    text is then written. A format with no renderer is refused as bad input (commands check
    their formats before long work; this is the last guard).
    """
    texts: dict[OutputFormat, Rendered | None] = {OutputFormat.json: json, OutputFormat.markdown: markdown,
                                                  OutputFormat.html: html}
    if fmt is OutputFormat.terminal:
        if terminal is None:
            raise _not_offered(fmt, terminal, texts)
        if output is None:
            terminal(stdout_console())
            return
        console = file_console()
        terminal(console)
        write_output(console.export_text(), output)
        return
    rendered = texts[fmt]
    if rendered is None:
        raise _not_offered(fmt, terminal, texts)
    write_output(rendered() if callable(rendered) else rendered, output)


def _not_offered(fmt: OutputFormat, terminal: Drawing | None, texts: dict[OutputFormat, Rendered | None]) -> BadInput:
    offered = ["terminal"] * (terminal is not None) + [f.value for f, text in texts.items() if text is not None]
    return BadInput(f"--format {fmt.value} is not offered here; use {' or '.join(offered)}")


def require_format(fmt: OutputFormat, command: str, offered: tuple[OutputFormat, ...]) -> None:
    """Refuse *fmt* before any work when *command* does not offer it (exit 6)."""
    if fmt not in offered:
        raise BadInput(f"--format {fmt.value} is not offered by {command}; use {' or '.join(f.value for f in offered)}")
