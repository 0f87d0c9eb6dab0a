"""The ``advisor`` command line: a typer app with one module per command.

Each command module exposes ``register(app)``; this module only assembles them and turns
every :class:`~advisor.errors.AdvisorError` into one line on stderr plus its exit code, so
no command can leak a traceback (or a password inside one).

A command line that names a command assembles only that command's module (:func:`needed`):
each module registers the one top-level command it is named after, and importing the other
sixteen made every command start about 0.15 s later (``report --help`` 0.51 -> 0.39 s). Help,
``--version`` and a name that is not a command get every module, as ``app`` does.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
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


def needed(argv: Sequence[str]) -> tuple[str, ...]:
    """The command modules the command line *argv* (without the program) needs: the command it names
    first, else every one (no argument, ``--help``, ``--version``, a mistyped name, which click
    answers from the whole list)."""
    return (argv[0],) if argv and argv[0] in COMMAND_MODULES else COMMAND_MODULES


def build_app(modules: Sequence[str] = COMMAND_MODULES) -> typer.Typer:
    """Assemble the root app from the command *modules* (each registers the command named after it)."""
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
    for name in modules:
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


def __getattr__(name: str) -> Any:
    """``app``, the root app with every command, assembled when first imported (module docstring)."""
    if name == "app":
        built = globals()["app"] = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        code = build_app(needed(sys.argv[1:]))()
        sys.stdout.flush()
    except BrokenPipeError:
        code = _reader_gone()
    sys.exit(code)
