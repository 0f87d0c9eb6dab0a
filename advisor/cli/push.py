"""`advisor push FILE...`: send documents to the fleet repository; the spool first.

Exit codes: 0 every document is in the repository (new or already there); 1 the repository
failed for a reason of its own (read-only, disk full, a deadlock): the documents wait in the
spool; 3 the repository was unreachable or the session was lost: the documents not sent wait
in the spool and the next run sends them; 5 a grant is missing (the documents wait in the
spool too); 6 a file is not an advisor document, is corrupt or of a newer format (nothing is
sent then), a text the repository indexes is longer than 256 bytes (nothing sent), the
repository refused a document for what it holds, the spool belongs to another user, or the
repository is not migrated (the documents wait); 7 the repository is newer than this advisor
(the documents wait in the spool).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.render.safe import shown

if TYPE_CHECKING:
    from advisor.repo.documents import Pushable
    from advisor.repo.pusher import PushResult
    from advisor.repo.spool import Spool
SPOOL_HELP = "Where documents wait when the repository is unreachable (default $ADVISOR_SPOOL or ~/.local/state)."


def _pushed(repo: str, items: Sequence[Pushable], spool: Spool, keep_documents: bool = False) -> PushResult:
    """Push *items* (and the spool) and print the warnings and the one-line summary."""
    from advisor.fleet.summaries import default_summarizer
    from advisor.repo.pusher import push_documents

    result = push_documents(repo, items, spool, summarizer=default_summarizer(), keep_documents=keep_documents)
    for warning in result.warnings:
        typer.echo(f"advisor: warning: {shown(warning)}", err=True)
    for line in result.replaced:
        typer.echo(f"advisor: {shown(line)}", err=True)
    typer.echo(f"advisor: {result.summary(spool)}", err=True)
    return result


def run_push(repo: str, items: Sequence[Pushable], spool_dir: Path | None, keep_documents: bool = False) -> None:
    """Push *items* (and the spool); print one summary line; raise the error that stopped it."""
    from advisor.repo.spool import Spool, default_dir

    result = _pushed(repo, items, Spool(spool_dir or default_dir()), keep_documents)
    if result.error is not None:
        raise result.error


def push(
    files: list[Path] = typer.Argument(None, help="Snapshots, workloads, disk profiles or reports.",
                                       show_default=False),
    repo: str = typer.Option(..., "--repo", help="libpq DSN of the repository."),
    spool: Path | None = typer.Option(None, "--spool", help=SPOOL_HELP),
    keep_documents: bool = typer.Option(False, "--keep-documents",
                                        help="Keep each snapshot's whole document too (about 8x the bytes)."),
) -> None:
    """Send documents to the repository (idempotent); with no FILE, send what waits in the spool.

    A different document under the key of a stored snapshot or workload (a correction)
    replaces it and its interval summaries, and says so; the same document again is a no-op.

    The intervals new snapshots close are advised at once when the role may write summaries;
    otherwise they wait in the repository's queue for `advisor repo summarize`.
    """
    from advisor.repo.documents import load_file

    items = [load_file(path) for path in files or []]  # all checked before anything is sent
    run_push(repo, items, spool, keep_documents)


def register(app: typer.Typer) -> None:
    """Add ``push`` to the root app."""
    app.command(name="push")(push)


def push_after(repo: str | None, output: Path | None) -> Path | None:
    """``collect --push``: where collect should write, and a push of that file when it is done.

    The push runs when the command's context closes, so every way ``collect`` produces a
    document (snapshot, interval workload, history, report file) is pushed the same way, and
    nothing is pushed when nothing was written. Without ``-o`` the document goes to a private
    temporary file (pushed, then removed, never announced) instead of stdout. The spool is
    ``$ADVISOR_SPOOL`` or the default (see ``advisor push --help``); it is checked before
    anything is collected, and a sample that is not pushed, for whatever reason, waits in it.
    """
    if not repo:
        return output
    import tempfile

    from typer._click.globals import get_current_context

    from advisor.cli.common import unannounced
    from advisor.errors import BadInput
    from advisor.repo.spool import Spool, default_dir

    spool = Spool(default_dir())
    for warning in spool.check():  # an untrusted spool is refused before the database is sampled
        typer.echo(f"advisor: warning: {warning}", err=True)
    if output is not None and output.exists() and not output.is_file():
        raise BadInput(f"--push with -o {output}: give a regular file, or no -o (the document is then only pushed)")
    target = output or unannounced(Path(tempfile.mkdtemp(prefix="advisor-push-")) / "document.json")
    get_current_context().call_on_close(lambda: _send_sample(repo, target, spool, target is not output))
    return target


def _send_sample(repo: str, target: Path, spool: Spool, scratch: bool) -> None:
    """Push the sample collect wrote, by the spool's policy (:func:`advisor.repo.pusher.send_sample`)."""
    from advisor.repo.pusher import send_sample

    def left(path: Path) -> None:
        typer.echo(f"advisor: the sample could not be pushed or spooled; it is kept in {path}", err=True)

    send_sample(target, spool, scratch, lambda items: _pushed(repo, items, spool), left)
