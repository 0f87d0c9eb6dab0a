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

from advisor.jsonio import write_atomic

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


def stdout_console() -> Console:
    """Console for data (stdout); plain when not a terminal."""
    from advisor.render.safe import safe_console

    return safe_console(file=sys.stdout, highlight=False, soft_wrap=False)


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
