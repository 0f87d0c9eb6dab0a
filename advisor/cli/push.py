"""`advisor push FILE...`: send documents to the fleet repository; the spool first.

Exit codes: 0 every document is in the repository (new or already there); 3 the repository
was unreachable or the session was lost: the documents not sent wait in the spool and the
next run sends them; 5 a grant is missing (the documents wait in the spool too); 6 a file
is not an advisor document, is corrupt or of a newer format (nothing is sent then); 7 the
repository is newer than this advisor (the documents wait in the spool).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.render.safe import shown

if TYPE_CHECKING:
    from advisor.repo.documents import Pushable

SPOOL_HELP = "Where documents wait when the repository is unreachable (default $ADVISOR_SPOOL or ~/.local/state)."


def run_push(repo: str, items: Sequence[Pushable], spool_dir: Path | None) -> None:
    """Push *items* (and the spool); print one summary line; raise the error that stopped it."""
    from advisor.repo.pusher import push_documents
    from advisor.repo.spool import Spool, default_dir

    spool = Spool(spool_dir or default_dir())
    result = push_documents(repo, items, spool)
    for warning in result.warnings:
        typer.echo(f"advisor: warning: {shown(warning)}", err=True)
    typer.echo(f"advisor: {result.summary(spool)}", err=True)
    if result.error is not None:
        raise result.error


def push(
    files: list[Path] = typer.Argument(None, help="Snapshots, workloads, disk profiles or reports.",
                                       show_default=False),
    repo: str = typer.Option(..., "--repo", help="libpq DSN of the repository."),
    spool: Path | None = typer.Option(None, "--spool", help=SPOOL_HELP),
) -> None:
    """Send documents to the repository (idempotent); with no FILE, send what waits in the spool."""
    from advisor.repo.documents import load_file

    items = [load_file(path) for path in files or []]  # all checked before anything is sent
    run_push(repo, items, spool)


def register(app: typer.Typer) -> None:
    """Add ``push`` to the root app."""
    app.command(name="push")(push)



def push_after(repo: str | None, output: Path | None) -> Path | None:
    """``collect --push``: where collect should write, and a push of that file when it is done.

    The push runs when the command's context closes, so every way ``collect`` produces a
    document (snapshot, interval workload, history, report file) is pushed the same way, and
    nothing is pushed when nothing was written. Without ``-o`` the document goes to a private
    temporary file (pushed, then removed) instead of stdout. The spool is ``$ADVISOR_SPOOL``
    or the default (see ``advisor push --help``).
    """
    if not repo:
        return output
    import shutil
    import tempfile

    from typer._click.globals import get_current_context

    from advisor.errors import BadInput
    from advisor.repo.documents import load_file

    if output is not None and output.exists() and not output.is_file():
        raise BadInput(f"--push with -o {output}: give a regular file, or no -o (the document is then only pushed)")
    target: Path = output if output is not None else Path(tempfile.mkdtemp(prefix="advisor-push-")) / "document.json"
    scratch = None if output is not None else target.parent

    def send() -> None:
        try:
            if target.is_file():
                run_push(repo, [load_file(target)], None)
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)

    get_current_context().call_on_close(send)
    return target
