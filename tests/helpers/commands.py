"""Every command of the ``advisor`` app as click builds it, for tests that check each one."""

from __future__ import annotations

from typing import Any

import typer.main

from advisor.cli import app


def leaf_commands() -> list[tuple[tuple[str, ...], Any]]:
    """(the words that name it, the click command) of every command that runs, groups walked through."""
    found: list[tuple[tuple[str, ...], Any]] = []

    def walk(group: Any, path: tuple[str, ...]) -> None:
        for name, command in group.commands.items():
            if getattr(command, "commands", None):
                walk(command, (*path, name))
            else:
                found.append(((*path, name), command))

    walk(typer.main.get_command(app), ())
    return found
