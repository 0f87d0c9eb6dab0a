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

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from advisor.errors import AdvisorError, BadInput
from advisor.repo.connection import DocumentRefused, connect
from advisor.repo.documents import Pushable
from advisor.repo.ingest import Outcome, checked_connection, push, push_many
from advisor.repo.spool import Spool

if TYPE_CHECKING:
    from advisor.model import Snapshot


class Summarizer(Protocol):
    """What a push asks of the summarizer (:class:`advisor.fleet.summaries.Summarizer`, handed in by the
    command: the repository does not import the fleet that ranks its rows)."""

    def may(self, conn: Any) -> bool:
        """Whether this session's role may write summaries."""
        ...

    def summarise(self, conn: Any, known: Mapping[tuple[str, dt.datetime], Snapshot]) -> list[str]:
        """Advise every queued arrival (*known*: snapshots already decoded); one line per interval that failed."""
        ...

BATCH = 100
"""Documents per transaction: one COPY each (the measured ingest rate is in docs/fleet.md)."""


@dataclass
class PushResult:
    """What one run did: documents new in the repository, already there, left in the spool."""

    new: int = 0
    present: int = 0
    replaced: list[str] = field(default_factory=list)  # one line per stored document a correction replaced
    from_spool: int = 0
    spooled: list[Path] = field(default_factory=list)  # this run's documents now in the spool
    unsaved: list[Pushable] = field(default_factory=list)  # neither sent nor spooled (the spool failed)
    waiting: int = 0  # documents in the spool when the run ended, this run's and earlier ones
    warnings: list[str] = field(default_factory=list)
    error: AdvisorError | None = None

    def count(self, item: Pushable, outcome: Outcome) -> None:
        """Add what became of *item* to the counts."""
        if outcome == "new":
            self.new += 1
        elif outcome == "present":
            self.present += 1
        else:
            self.replaced.append(replaced_line(item))

    def summary(self, spool: Spool) -> str:
        """One line for stderr."""
        text = f"pushed {self.new} new" + (f", {len(self.replaced)} replaced" if self.replaced else "")
        text += f", {self.present} already in the repository"
        if self.from_spool:
            text += f" ({self.from_spool} from the spool)"
        if self.waiting:
            text += f"; {self.waiting} waiting in {spool.directory} for the next run"
        return text


def replaced_line(item: Pushable) -> str:
    """What a correction did, for stderr: which document replaced which stored one."""
    from advisor.model import Snapshot, Workload
    from advisor.repo.documents import instance_id

    document = item.document
    if isinstance(document, Snapshot):
        where = f"the snapshot stored for {instance_id(document.server)} at {document.taken_at}"
    elif isinstance(document, Workload):
        where = (f"the workload stored for {instance_id(document.server)} from {document.started_at} to "
                 f"{document.ended_at}")
    else:
        where = f"the stored {item.kind}"
    return (f"{item.source}: replaced {where} (a different document under the same key; "
            "the intervals it touches are summarised again)")


def push_documents(dsn: str, items: Sequence[Pushable], spool: Spool,
                   connector: Callable[[str], Any] = connect, *, summarizer: Summarizer | None = None,
                   keep_documents: bool = False) -> PushResult:
    """Send the spool, then *items*, a batch per transaction; keep in the spool what could not be sent.

    With a *summarizer*, and a role that may write summaries, the intervals the new documents
    touch are advised at once (:mod:`advisor.fleet.summaries`); otherwise they wait in the
    repository's queue for ``advisor repo summarize``. An untrusted spool is refused
    (BadInput) before anything is sent or kept.
    """
    result = PushResult(warnings=spool.check())
    try:
        _send(dsn, list(items), spool, connector, result, summarizer, keep_documents)
    finally:
        result.waiting = len(spool.waiting())
    return result


def _summarise(conn: Any, summarizer: Summarizer, items: Sequence[Pushable], result: PushResult) -> None:
    """Advise the queued arrivals now; a failure leaves them queued (the documents are stored)."""
    from advisor.model import Snapshot
    from advisor.repo.documents import instance_id

    known = {(instance_id(i.document.server), _instant(i.document.taken_at)): i.document
             for i in items if isinstance(i.document, Snapshot)}
    try:
        if not summarizer.may(conn):
            return
        failed = summarizer.summarise(conn, known)
    except AdvisorError as exc:
        result.warnings.append(f"the intervals were not summarised ({exc.one_line()}); they wait in the "
                               "repository's queue for `advisor repo summarize`")
        return
    result.warnings += [f"interval not summarised: {why}" for why in failed]


def _instant(at: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(at)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _batch(conn: Any, chunk: list[Pushable], keep_documents: bool) -> list[Outcome | DocumentRefused]:
    """Push *chunk* in one transaction; when the repository refuses one, each alone (to name it)."""
    try:
        return list(push_many(conn, chunk, keep_documents=keep_documents))
    except DocumentRefused:
        if len(chunk) == 1:
            raise
    out: list[Outcome | DocumentRefused] = []
    for item in chunk:
        try:
            out.append(push(conn, item, keep_documents=keep_documents))
        except DocumentRefused as exc:
            out.append(exc)
    return out


def _send(dsn: str, pending: list[Pushable], spool: Spool, connector: Callable[[str], Any],
          result: PushResult, summarizer: Summarizer | None = None, keep_documents: bool = False) -> None:
    refused: list[AdvisorError] = []

    def keep_pending(error: AdvisorError) -> None:
        result.error = error
        for item in pending:
            try:
                result.spooled.append(spool.keep(item, whole=keep_documents))
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
            sent = list(pending)
            sent += _drain(conn, spool, result, keep_documents)
            while pending:
                chunk = pending[:BATCH]
                outcomes: list[Outcome | DocumentRefused]
                try:
                    outcomes = _batch(conn, chunk, keep_documents)
                except DocumentRefused as exc:
                    outcomes = [exc]
                del pending[:len(chunk)]
                for item, outcome in zip(chunk, outcomes, strict=True):
                    if isinstance(outcome, DocumentRefused):
                        refused.append(outcome)
                        continue
                    result.count(item, outcome)
            if summarizer is not None:
                _summarise(conn, summarizer, sent, result)
        except AdvisorError as exc:
            keep_pending(exc)
    if refused:
        result.warnings += [exc.one_line() for exc in refused[1:]]
        result.error = result.error or refused[0]


def _drain(conn: Any, spool: Spool, result: PushResult, keep_documents: bool) -> list[Pushable]:
    """Send what waits in the spool, a batch per transaction; return what was sent.

    A file is removed only after its batch committed; a failure that is not a file's own
    stops the drain (the rest waits). A file that is its own fault (unreadable, or refused
    by the repository: DocumentRefused) is set aside, since it would fail every time. A file
    spooled by ``push --keep-documents`` is stored whole, whatever this run was asked.
    """
    sent: list[Pushable] = []
    waiting = spool.waiting()
    for start in range(0, len(waiting), BATCH):
        loaded: list[tuple[Path, Pushable]] = []
        for path in waiting[start:start + BATCH]:
            try:
                loaded.append((path, spool.load(path)))
            except FileNotFoundError:
                continue  # another run sharing the spool sent it meanwhile
            except BadInput as exc:
                result.warnings.append(spool.set_aside(path, exc.one_line()))
        for whole in (False, True):
            group = [(path, item) for path, item in loaded if (keep_documents or spool.whole(path)) == whole]
            sent += _send_spooled(conn, spool, group, whole, result)
    return sent


def _send_spooled(conn: Any, spool: Spool, loaded: list[tuple[Path, Pushable]], whole: bool,
                  result: PushResult) -> list[Pushable]:
    """Push spooled files in one transaction; forget the ones stored, set aside the ones refused."""
    if not loaded:
        return []
    outcomes: list[Outcome | DocumentRefused]
    try:
        outcomes = _batch(conn, [item for _p, item in loaded], whole)
    except DocumentRefused as exc:
        outcomes = [exc]
    sent: list[Pushable] = []
    for (path, item), outcome in zip(loaded, outcomes, strict=True):
        if isinstance(outcome, DocumentRefused):
            result.warnings.append(spool.set_aside(path, outcome.one_line()))
            continue
        spool.done(path)
        sent.append(item)
        result.from_spool += 1
        result.count(item, outcome)
    return sent


def send_sample(target: Path, spool: Spool, scratch: bool, send: Callable[[list[Pushable]], PushResult],
                left: Callable[[Path], None]) -> None:
    """``collect --push``: send the document collect wrote to *target*; whatever goes wrong, it waits in
    the spool (the spool's policy, in one place).

    A push refused, interrupted or failed unforeseen keeps the bytes in the spool (the next run
    decides); a document the repository refused for what it holds is set aside there too. A
    *scratch* target (a private temporary file) is removed once the spool holds it, or when
    nothing was written; *left* is told its path when it stays because neither the push nor the
    spool took it. The push's own error is raised after that.
    """
    import shutil

    from advisor.repo.documents import load_file

    if not target.is_file():  # nothing was written: the collection failed
        if scratch:
            shutil.rmtree(target.parent, ignore_errors=True)
        return
    kept = False
    try:
        raw = target.read_bytes()
        try:
            result = send([load_file(target)])
        except BaseException:
            spool.keep_bytes(raw)  # refused, interrupted or failed unforeseen: the next run decides
            kept = True
            raise
        kept = not result.unsaved
        if result.error is not None and not result.spooled and kept:
            spool.keep_bytes(raw)  # refused by the repository for what it holds: set aside by the next run
        if result.error is not None:
            raise result.error
    finally:
        if scratch and kept:
            shutil.rmtree(target.parent, ignore_errors=True)
        elif scratch:
            left(target)
