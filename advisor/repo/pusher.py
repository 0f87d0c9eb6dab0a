"""Push documents, spool first: what ``advisor push`` and ``advisor collect --push`` share.

Order: connect; check the schema version; send what waits in the spool (oldest first); send
the new documents. A document that cannot be sent because the repository is unreachable,
the session was lost, a grant is missing, or the repository is newer than this tool is kept
in the spool and the error is reported (exit 3, 5 or 7): the next run sends it. A spooled file that no longer
reads as an advisor document is set aside as ``*.rejected`` with a warning, so one bad file
cannot block the queue forever.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError, BadInput, ConnectionFailed, PrivilegeMissing, Unsupported
from advisor.repo.connection import connect
from advisor.repo.documents import Pushable
from advisor.repo.ingest import checked_connection, push
from advisor.repo.spool import Spool

_KEEP = (ConnectionFailed, PrivilegeMissing, Unsupported)
"""Failures after which a document waits in the spool (the next run, once fixed, sends it)."""


@dataclass
class PushResult:
    """What one run did: documents new in the repository, already there, left in the spool."""

    new: int = 0
    present: int = 0
    from_spool: int = 0
    spooled: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: AdvisorError | None = None

    def summary(self, spool: Spool) -> str:
        """One line for stderr."""
        text = f"pushed {self.new} new, {self.present} already in the repository"
        if self.from_spool:
            text += f" ({self.from_spool} from the spool)"
        if self.spooled:
            text += f"; {len(self.spooled)} waiting in {spool.directory} for the next run"
        return text


def push_documents(dsn: str, items: Sequence[Pushable], spool: Spool,
                   connector: Callable[[str], Any] = connect) -> PushResult:
    """Send the spool, then *items*; keep in the spool whatever could not be sent."""
    result = PushResult()
    try:
        conn = connector(dsn)
    except ConnectionFailed as exc:
        result.spooled = [spool.keep(item) for item in items]
        result.error = exc
        return result
    with conn:
        try:
            checked_connection(conn)
        except _KEEP as exc:
            result.spooled = [spool.keep(item) for item in items]
            result.error = exc
            return result
        _drain(conn, spool, result)
        if result.error is not None:
            result.spooled += [spool.keep(item) for item in items]
            return result
        for index, item in enumerate(items):
            try:
                if push(conn, item):
                    result.new += 1
                else:
                    result.present += 1
            except _KEEP as exc:
                result.spooled += [spool.keep(rest) for rest in items[index:]]
                result.error = exc
                break
    return result


def _drain(conn: Any, spool: Spool, result: PushResult) -> None:
    for path in spool.waiting():
        try:
            item = spool.load(path)
        except BadInput as exc:
            rejected = path.with_suffix(".rejected")
            path.rename(rejected)
            result.warnings.append(f"spooled file set aside as {rejected.name}: {exc.one_line()}")
            continue
        try:
            new = push(conn, item)
        except _KEEP as exc:
            result.spooled = spool.waiting()
            result.error = exc
            return
        spool.done(path)
        result.from_spool += 1
        if new:
            result.new += 1
        else:
            result.present += 1
