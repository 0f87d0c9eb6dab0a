"""Helpers shared by the command modules: output formats, consoles, file output.

Data goes to stdout, diagnostics to stderr; ``-o FILE`` writes atomically. Consoles are
created lazily so ``advisor --help`` does not pay for rich.
"""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.model.jsonio import write_atomic

if TYPE_CHECKING:
    from rich.console import Console


MAX_STATEMENT_TIMEOUT_S = 2_147_483.0
"""PostgreSQL's statement_timeout is an int of milliseconds (at most 2^31-1) and Oracle's
call_timeout an unsigned 32-bit count of them: a larger value would reach the server and fail
there as a connection error."""

MAX_INTERVAL_S = 30 * 86_400.0
"""Thirty days between two samples: counters of a longer interval are better read from two
separate ``collect`` runs, and a larger value only overflows the sleep."""


class OutputFormat(enum.StrEnum):
    """Output formats a command may offer."""

    terminal = "terminal"
    json = "json"
    markdown = "markdown"
    html = "html"


FILE_WIDTH = 120
"""Columns of terminal-format output that does not go to a terminal: a ``-o FILE``, and a pipe
when ``COLUMNS`` is not set (docs/report.md, "Width"). Wide enough for whole paths in most tables,
narrow enough to read in a mail or a ticket."""


def output_width(is_terminal: bool) -> int | None:
    """Columns for stdout: the terminal's own (None lets rich ask it), else ``COLUMNS``, else FILE_WIDTH.

    A pipe must not take the width of whatever terminal stderr happens to be on (rich's default),
    so ``advisor report | less`` and ``COLUMNS=80 advisor report > r.txt`` are what the user chose.
    """
    import os

    if is_terminal:
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) >= 40 else FILE_WIDTH


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
    import io

    from advisor.render.safe import safe_console

    return safe_console(file=io.StringIO(), width=FILE_WIDTH, record=True, color_system=None, highlight=False)


def stderr_console() -> Console:
    """Console for progress and diagnostics (stderr)."""
    from advisor.render.safe import safe_console

    return safe_console(file=sys.stderr, highlight=False)


_UNANNOUNCED: set[Path] = set()


def unannounced(path: Path) -> Path:
    """*path* is a file written for a moment and then removed (``collect --push`` without ``-o``).

    :func:`emit` writes it without printing "wrote ...": the user never sees that file.
    """
    _UNANNOUNCED.add(path)
    return path


def emit(text: str | bytes, output: Path | None) -> None:
    """Write *text* to *output* atomically, or to stdout when no file is given."""
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
            typer.echo(f"wrote {output}", err=True)


def progress_enabled() -> bool:
    """Show progress bars only when stderr is a terminal."""
    return sys.stderr.isatty()
