"""The ``advisor`` command line: a typer app with one module per command.

Each command module exposes ``register(app)``; this module only assembles them and turns
every :class:`~advisor.errors.AdvisorError` into one line on stderr plus its exit code, so
no command can leak a traceback (or a password inside one).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import typer
from typer._click import exceptions as click_exc
from typer.core import TyperGroup

from advisor import __version__
from advisor.errors import AdvisorError, ExitCode, redact
from advisor.signals import Interrupted, interrupted_code

PIPE_CLOSED = 141
"""Exit code when the reader of stdout closed it early (128 + SIGPIPE, as a shell reports it)."""

COMMAND_MODULES = (
    "collect",
    "workload",
    "sql",
    "collectors",
    "where",
    "audit",
    "disk",
    "bench",
    "report",
    "plan",
    "inventory",
    "demo",
    "repo",
    "push",
    "fleet",
    "schedule",
    "sample",
)


class AdvisorGroup(TyperGroup):
    """Root group that maps advisor errors and Ctrl-C to documented exit codes."""

    def invoke(self, ctx: Any) -> Any:
        """Run the sub-command; print expected failures as one line, never a traceback."""
        try:
            return super().invoke(ctx)
        except AdvisorError as exc:
            typer.echo(f"advisor: error: {exc.one_line()}", err=True)
            raise typer.Exit(int(exc.exit_code)) from None
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP where a command made them one
            typer.echo("advisor: interrupted", err=True)
            code = interrupted_code([exc.signum]) if isinstance(exc, Interrupted) else int(ExitCode.INTERRUPTED)
            raise typer.Exit(code) from None
        except BrokenPipeError:
            raise typer.Exit(_reader_gone()) from None
        except (typer.Exit, typer.Abort, click_exc.ClickException):
            raise
        except Exception as exc:  # noqa: BLE001 - last line of defence, message only
            message = redact(f"{exc.__class__.__name__}: {exc}")
            typer.echo(f"advisor: internal error: {message} (please report this)", err=True)
            raise typer.Exit(int(ExitCode.ERROR)) from None


def build_app() -> typer.Typer:
    """Assemble the root app from the command modules."""
    root = typer.Typer(
        cls=AdvisorGroup,
        name="advisor",
        help="Place Oracle and PostgreSQL files on spinning disks by evidence.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        pretty_exceptions_show_locals=False,
        add_completion=False,
        rich_markup_mode=None,
    )
    root.callback(invoke_without_command=True)(_root_options)
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"advisor.cli.{name}")
        module.register(root)
    return root


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"advisor {__version__} (Python {sys.version.split()[0]})")
        raise typer.Exit(0)


def _root_options(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                 help="Print advisor's version and exit."),
) -> None:
    """Place Oracle and PostgreSQL files on spinning disks by evidence."""
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


app = build_app()


def _reader_gone() -> int:
    """Exit code after the reader of stdout went away (``advisor sql list | head``).

    Like a shell tool killed by SIGPIPE: no message, code 141 (128 + 13). stdout is pointed
    at /dev/null so the interpreter's last flush does not fail again.
    """
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return PIPE_CLOSED


def main() -> None:
    """Console-script entry point."""
    try:
        code = app()
        sys.stdout.flush()
    except BrokenPipeError:
        code = _reader_gone()
    sys.exit(code)
