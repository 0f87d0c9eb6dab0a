"""The local spool: documents that could not reach the repository wait here for the next run.

A collector on a schedule must not lose a sample because the repository was down for an
hour. Each waiting document is one file named by the sha256 of its bytes, written
atomically, so the same document spooled twice is one file and a crash leaves no half file.
The next push sends the spool first, oldest first, and removes each file only after its
transaction committed; if the commit's answer is lost the file stays and the repository's
natural keys make the resend a no-op: nothing lost, nothing twice.

Default place: ``$ADVISOR_SPOOL``, else ``$XDG_STATE_HOME/advisor/spool``, else
``~/.local/state/advisor/spool`` (mode 0700: documents name hosts and paths).
"""

from __future__ import annotations

import os
from pathlib import Path

from advisor.errors import BadInput
from advisor.jsonio import write_atomic
from advisor.repo.documents import Pushable, load_file


def default_dir() -> Path:
    """Where documents wait when no ``--spool`` is given."""
    explicit = os.environ.get("ADVISOR_SPOOL")
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "advisor" / "spool"


class Spool:
    """A directory of documents waiting to be pushed."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _ensure(self) -> None:
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise BadInput(f"cannot create the spool {self.directory}: {exc.strerror}") from None

    def keep(self, item: Pushable) -> Path:
        """Store *item* until the next run (the same document twice is one file)."""
        self._ensure()
        target = self.directory / f"{item.digest}.json"
        if not target.exists():
            write_atomic(target, item.raw)
        return target

    def waiting(self) -> list[Path]:
        """Spooled documents, oldest first."""
        if not self.directory.is_dir():
            return []
        files = [p for p in self.directory.glob("*.json") if p.is_file()]
        return sorted(files, key=lambda p: (p.stat().st_mtime_ns, p.name))

    def load(self, path: Path) -> Pushable:
        """A spooled document, read and checked like any pushed file."""
        return load_file(path)

    def done(self, path: Path) -> None:
        """The document committed in the repository: forget it."""
        path.unlink(missing_ok=True)
