"""Push documents, spool first: what ``advisor push`` and ``advisor collect --push`` share.

Order: check the spool can be trusted; connect; check the schema version; send what waits
in the spool (oldest first); send the new documents. Every failure that is not the
document's own fault keeps the documents not yet sent in the spool and is reported: the
repository unreachable or the session lost (exit 3), a grant missing (5), the repository
newer than this tool (7) or not yet migrated (6), or any other server error, such as a
read-only or full repository or a deadlock (1). The next run sends them. Only a document
the repository refuses for what it holds (:class:`~advisor.repo.connection.DocumentRefused`)
is not kept: it could never be stored. A spooled file that is not what advisor spooled, or
no longer reads as an advisor document, is set aside as ``*.rejected`` with a warning, so
it is never pushed and cannot block the queue.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError, BadInput
from advisor.repo.connection import DocumentRefused, connect
from advisor.repo.documents import Pushable
from advisor.repo.ingest import checked_connection, push
from advisor.repo.spool import Spool


@dataclass
class PushResult:
    """What one run did: documents new in the repository, already there, left in the spool."""

    new: int = 0
    present: int = 0
    from_spool: int = 0
    spooled: list[Path] = field(default_factory=list)  # this run's documents now in the spool
    unsaved: list[Pushable] = field(default_factory=list)  # neither sent nor spooled (the spool failed)
    waiting: int = 0  # documents in the spool when the run ended, this run's and earlier ones
    warnings: list[str] = field(default_factory=list)
    error: AdvisorError | None = None

    def summary(self, spool: Spool) -> str:
        """One line for stderr."""
        text = f"pushed {self.new} new, {self.present} already in the repository"
        if self.from_spool:
            text += f" ({self.from_spool} from the spool)"
        if self.waiting:
            text += f"; {self.waiting} waiting in {spool.directory} for the next run"
        return text


def push_documents(dsn: str, items: Sequence[Pushable], spool: Spool,
                   connector: Callable[[str], Any] = connect) -> PushResult:
    """Send the spool, then *items*; keep in the spool whatever could not be sent.

    An untrusted spool is refused (BadInput) before anything is sent or kept.
    """
    result = PushResult(warnings=spool.check())
    try:
        _send(dsn, list(items), spool, connector, result)
    finally:
        result.waiting = len(spool.waiting())
    return result


def _send(dsn: str, pending: list[Pushable], spool: Spool, connector: Callable[[str], Any],
          result: PushResult) -> None:
    refused: list[AdvisorError] = []

    def keep_pending(error: AdvisorError) -> None:
        result.error = error
        for item in pending:
            try:
                result.spooled.append(spool.keep(item))
            except (BadInput, OSError) as exc:
                why = exc.one_line() if isinstance(exc, BadInput) else exc.strerror
                result.warnings.append(f"{item.source} could not be kept in the spool: {why}")
                result.unsaved.append(item)
        pending.clear()

    try:
        conn = connector(dsn)
    except AdvisorError as exc:
        keep_pending(exc)
        return
    with conn:
        try:
            checked_connection(conn)
            _drain(conn, spool, result)
            while pending:
                try:
                    new = push(conn, pending[0])
                except DocumentRefused as exc:
                    refused.append(exc)
                    new = None
                pending.pop(0)
                if new is not None:
                    result.new += new
                    result.present += not new
        except AdvisorError as exc:
            keep_pending(exc)
    if refused:
        result.warnings += [exc.one_line() for exc in refused[1:]]
        result.error = result.error or refused[0]


def _drain(conn: Any, spool: Spool, result: PushResult) -> None:
    """Send what waits in the spool; a failure that is not the file's own stops it (the rest waits)."""
    for path in spool.waiting():
        try:
            item = spool.load(path)
            new = push(conn, item)
        except FileNotFoundError:
            continue  # another run sharing the spool sent it meanwhile
        except BadInput as exc:  # the file's own fault (DocumentRefused too): it would fail every time
            result.warnings.append(spool.set_aside(path, exc.one_line()))
            continue
        spool.done(path)
        result.from_spool += 1
        result.new += new
        result.present += not new
