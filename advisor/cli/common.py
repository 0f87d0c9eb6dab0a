"""Helpers shared by the command modules: limits of options, and the output of :mod:`advisor.render.output`.

Data goes to stdout, diagnostics to stderr; a command writes what the user asked for with
:func:`emit` (``-o FILE`` atomically, terminal output to a file FILE_WIDTH columns wide) and a
one-shape document with :func:`write_output`. Consoles are created lazily so ``advisor --help``
does not pay for rich.
"""

from __future__ import annotations

import math
import sys

import typer

from advisor.render.output import OutputFormat as OutputFormat
from advisor.render.output import emit as emit
from advisor.render.output import require_format as require_format
from advisor.render.output import stderr_console as stderr_console
from advisor.render.output import stdout_console as stdout_console
from advisor.render.output import unannounced as unannounced
from advisor.render.output import write_output as write_output

MAX_STATEMENT_TIMEOUT_S = 2_147_483.0
"""PostgreSQL's statement_timeout is an int of milliseconds (at most 2^31-1) and Oracle's
call_timeout an unsigned 32-bit count of them: a larger value would reach the server and fail
there as a connection error."""

MAX_INTERVAL_S = 30 * 86_400.0
"""Thirty days between two samples: counters of a longer interval are better read from two
separate ``collect`` runs, and a larger value only overflows the sleep."""


def finite(value: float | None) -> float | None:
    """Callback of every float option: NaN and the infinities stop at parsing (exit 2).

    click's ``FloatRange`` compares the value with its bounds, and NaN compares false with
    both, so ``--interval nan`` would pass a range and reach a sleep or a server; a bound on
    one side only lets an infinity through. tests/cli/test_option_ranges.py walks every
    command and holds each float option to this.
    """
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a finite number.")
    return value


def progress_enabled() -> bool:
    """Show progress bars only when stderr is a terminal."""
    return sys.stderr.isatty()
