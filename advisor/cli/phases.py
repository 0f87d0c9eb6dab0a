"""Progress of long work on stderr, one way for every command.

On a terminal a rich bar per phase; in a log or pipe one line as each phase starts (a bar
redrawn into a file is noise). Commands hand the returned callback to the engine or bench,
which report ``(phase, done, total)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import typer

Progress = Callable[[str, int, int], None]


@contextlib.contextmanager
def phases(line: Callable[[str, int], str], *, width: int = 16, transient: bool = False) -> Iterator[Progress]:
    """Yield the progress callback; *line(phase, total)* is what a pipe is told as a phase starts."""
    from advisor.cli.common import progress_enabled, stderr_console

    if not progress_enabled():
        started: set[str] = set()

        def say(phase: str, done: int, total: int) -> None:
            if phase not in started:
                started.add(phase)
                typer.echo(line(phase, total), err=True)

        yield say
        return
    from rich.progress import BarColumn, TaskID, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bars

    bars = Bars(TextColumn(f"{{task.description:<{width}}}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                TimeElapsedColumn(), console=stderr_console(), transient=transient)
    tasks: dict[str, TaskID] = {}

    def update(phase: str, done: int, total: int) -> None:
        if phase not in tasks:
            tasks[phase] = bars.add_task(phase, total=total)
        bars.update(tasks[phase], completed=done)

    with bars:
        yield update
