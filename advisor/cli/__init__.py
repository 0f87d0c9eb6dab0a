"""The ``advisor`` command line: a typer app with one module per command.

Each command module exposes ``register(app)``; this module only assembles them and turns
every :class:`~advisor.errors.AdvisorError` into one line on stderr plus its exit code, so
no command can leak a traceback (or a password inside one).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import typer
from typer._click import exceptions as click_exc
from typer.core import TyperGroup

from advisor.errors import AdvisorError, ExitCode, redact

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
        except KeyboardInterrupt:
            typer.echo("advisor: interrupted", err=True)
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
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
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"advisor.cli.{name}")
        module.register(root)
    return root


app = build_app()


def main() -> None:
    """Console-script entry point."""
    sys.exit(app())
