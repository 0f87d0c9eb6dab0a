"""The local spool: documents that could not reach the repository wait here for the next run.

A collector on a schedule must not lose a sample because the repository was down for an
hour. Each waiting document is one file named by the sha256 of its bytes, written
atomically, so the same document spooled twice is one file and a crash leaves no half file.
The next push sends the spool first, oldest first, and removes each file only after its
transaction committed; if the commit's answer is lost the file stays and the repository's
natural keys make the resend a no-op: nothing lost, nothing twice.

Whatever is in the spool is pushed with the collector's role, so the spool is trusted only
when nobody else can put a file there: a directory owned by another user is refused, one of
ours that others could write is tightened to 0700 (with a warning), and a file is pushed
only when it is a regular file of ours whose name is the sha256 of its content (the name
advisor gave it). Anything else is set aside as ``*.rejected``, never pushed.

Default place: ``$ADVISOR_SPOOL``, else ``$XDG_STATE_HOME/advisor/spool``, else
``~/.local/state/advisor/spool`` (mode 0700: documents name hosts and paths).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

from advisor.errors import BadInput
from advisor.model.jsonio import write_atomic
from advisor.repo.documents import Pushable, load_bytes
from advisor.units import GIB

_NAME = re.compile(r"([0-9a-f]{64})(\.whole)?\.json")
"""What advisor names a spooled document: the sha256 of its bytes, ``.whole`` when the push that
spooled it asked to keep the whole document (``push --keep-documents``): the choice travels with it."""
MAX_SPOOLED_BYTES = GIB
"""A spooled document larger than this is not one advisor wrote (a snapshot is about 0.5 MiB)."""


class SpoolRefused(BadInput):
    """A spooled file that advisor did not write as it stands: set aside, never pushed."""


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

    def check(self) -> list[str]:
        """Refuse a spool another user owns; tighten ours if others may write it. Returns warnings.

        A spool that does not exist yet is fine: :meth:`keep` creates it with mode 0700.
        """
        try:
            link = os.lstat(self.directory)
            info = os.stat(self.directory)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise BadInput(f"cannot read the spool {self.directory}: {exc.strerror}") from None
        if not stat.S_ISDIR(info.st_mode):
            raise BadInput(f"the spool {self.directory} is not a directory")
        me = os.geteuid()
        if info.st_uid != me or (stat.S_ISLNK(link.st_mode) and link.st_uid not in (me, 0)):
            owner = info.st_uid if info.st_uid != me else link.st_uid
            raise BadInput(f"the spool {self.directory} belongs to uid {owner}, not to this user (uid {me}): "
                           "its owner could put documents there that would be pushed with this user's role",
                           hint="use a spool directory of your own: --spool DIR or $ADVISOR_SPOOL")
        loose = stat.S_IMODE(info.st_mode) & 0o077
        if not loose:
            return []
        try:
            os.chmod(self.directory, 0o700)
        except OSError as exc:
            raise BadInput(f"the spool {self.directory} is open to other users (mode "
                           f"{stat.S_IMODE(info.st_mode):o}) and cannot be tightened: {exc.strerror}") from None
        return [f"the spool {self.directory} was open to other users (mode {stat.S_IMODE(info.st_mode):o}); "
                "now 0700"]

    def _ensure(self) -> None:
        """Create the spool if needed; checked again, since another user may have made it first."""
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise BadInput(f"cannot create the spool {self.directory}: {exc.strerror}") from None
        self.check()

    def keep(self, item: Pushable, *, whole: bool = False) -> Path:
        """Store *item* until the next run (the same document twice is one file); *whole*: stored whole then."""
        return self.keep_bytes(item.raw, whole=whole)

    def keep_bytes(self, raw: bytes, *, whole: bool = False) -> Path:
        """Store a document's bytes as they are (checked when the next run loads them).

        Spooled once plainly and once *whole*, it is kept whole (one file): the wider choice wins.
        """
        self._ensure()
        digest = hashlib.sha256(raw).hexdigest()
        plain, kept_whole = self.directory / f"{digest}.json", self.directory / f"{digest}.whole.json"
        target = kept_whole if whole else plain
        for path in (kept_whole, plain):
            try:
                self._read(path)
            except (SpoolRefused, FileNotFoundError):
                continue
            if path == kept_whole or not whole:
                return path  # there already, as wide a choice as this one
            break
        try:
            self._read(target)
        except (SpoolRefused, FileNotFoundError):
            write_atomic(target, raw)  # absent, or not what its name says: replaced
        if whole:
            plain.unlink(missing_ok=True)
        return target

    @staticmethod
    def whole(path: Path) -> bool:
        """Whether the push that spooled *path* asked to keep the whole document."""
        match = _NAME.fullmatch(path.name)
        return bool(match and match.group(2))

    def waiting(self) -> list[Path]:
        """Files waiting to be pushed, oldest first (each is checked when loaded)."""
        if not self.directory.is_dir():
            return []
        files = [p for p in self.directory.glob("*.json") if not p.name.startswith(".")]
        return sorted(files, key=_age)

    def load(self, path: Path) -> Pushable:
        """A spooled document, checked to be the one advisor spooled, then read like any pushed file.

        FileNotFoundError when another run sent it meanwhile.
        """
        return load_bytes(self._read(path), str(path))

    def _read(self, path: Path) -> bytes:
        """The bytes of a spooled file that is what advisor wrote, else SpoolRefused saying why."""
        name = _NAME.fullmatch(path.name)
        if not name:
            raise SpoolRefused(f"{path.name}: not a name advisor gives a spooled document (sha256 of it)")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise SpoolRefused(f"{path.name}: cannot be read as a regular file ({exc.strerror})") from None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise SpoolRefused(f"{path.name}: not a regular file")
            if info.st_uid != os.geteuid():
                raise SpoolRefused(f"{path.name}: belongs to uid {info.st_uid}, not to this user")
            if info.st_size > MAX_SPOOLED_BYTES:
                raise SpoolRefused(f"{path.name}: {info.st_size} bytes, larger than any document advisor spools")
            raw = handle.read(MAX_SPOOLED_BYTES + 1)
        if hashlib.sha256(raw).hexdigest() != name.group(1):
            raise SpoolRefused(f"{path.name}: its content is not the document its name says (sha256 differs)")
        return raw

    def set_aside(self, path: Path, why: str) -> str:
        """Rename a file that will not be pushed to ``*.rejected``; the warning that says so."""
        rejected = path.with_name(path.name.removesuffix(".json").removesuffix(".whole") + ".rejected")
        try:
            path.rename(rejected)
        except OSError as exc:
            return f"spooled file {path.name} not pushed ({why}) and not set aside: {exc.strerror}"
        return f"spooled file set aside as {rejected.name}: {why}"

    def done(self, path: Path) -> None:
        """The document committed in the repository: forget it."""
        path.unlink(missing_ok=True)


def _age(path: Path) -> tuple[int, str]:
    try:
        return path.lstat().st_mtime_ns, path.name
    except OSError:
        return 0, path.name
