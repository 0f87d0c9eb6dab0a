"""What can be pushed: advisor's own documents, read and checked by the model's load functions.

A push accepts snapshots, workloads (from ``collect --interval`` or from AWR/Statspack
reports), disk profiles and reports. Each file is read through the same loaders every
other command uses, so a foreign file, an unknown ``document`` kind or a newer
``format_version`` is refused exactly as ``advisor report`` refuses it (exit 6), before
anything reaches the repository. The document keeps its original bytes: the repository
stores what the collector wrote, and the spool can hold it unchanged.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import msgspec

from advisor.errors import BadInput, redact
from advisor.model import (
    FORMAT_VERSION,
    REPORT_FORMAT_VERSION,
    DiskProfile,
    Report,
    ServerInfo,
    Snapshot,
    Workload,
)
from advisor.model.disk import decode_disk_profile
from advisor.model.jsonio import MAX_DOCUMENT_BYTES, decode_document, encode, not_utf8, read_regular_file
from advisor.model.validate import check
from advisor.secrets import SECRET_MARKERS

Kind = Literal["snapshot", "workload", "disk-profile", "report"]
Document = Snapshot | Workload | DiskProfile | Report
KINDS: tuple[Kind, ...] = ("snapshot", "workload", "disk-profile", "report")
_SECRET_MARKERS = SECRET_MARKERS
"""Every pattern :func:`advisor.errors.redact` knows needs one of these (password=, pwd=, user:x@, user/x@)."""


@dataclass(frozen=True)
class Pushable:
    """One decoded document with the exact bytes to store and their digest (the spool name)."""

    kind: Kind
    document: Document
    raw: bytes
    source: str  # file name or "collect", for messages

    @property
    def digest(self) -> str:
        """sha256 of the bytes: the same document always has the same digest."""
        return hashlib.sha256(self.raw).hexdigest()


def instance_id(server: ServerInfo) -> str:
    """Stable name of a database instance across restarts and collector hosts.

    PostgreSQL: ``postgres:<system_identifier>``; Oracle: ``oracle:<DBID>[:<instance>]`` (RAC
    instances are ranked apart: each has its own files' IO). Without an identity (a report
    that does not print one) the host and database name stand in.
    """
    key = server.identity or f"{server.host}/{server.name}"
    suffix = f":{server.instance}" if server.dbms == "oracle" and server.instance else ""
    return f"{server.dbms}:{key}{suffix}"


MAX_KEY_TEXT_BYTES = 256
"""The longest text (UTF-8) of a field the repository indexes: the instance id is made of the server's
identity, instance, host and name, and a workload's key holds its source. A B-tree index row holds
at most 2,704 bytes; the widest key (an arrival: instance id, two times, source) stays near a third
of that, and no real host name (253), database name (63 in PostgreSQL) or DBID comes close."""


def key_text_problem(document: Document) -> str | None:
    """The first text of *document* the repository indexes that is too long for it, in words; else None.

    Checked when a document is read for a push, so the repository never meets a key it cannot
    index (SQLSTATE 54000) and a spool never holds one.
    """
    if not isinstance(document, (Snapshot, Workload)):
        return None  # disk profiles and reports are keyed by their digest
    server = document.server
    fields = {"server.identity": server.identity, "server.host": server.host, "server.name": server.name,
              "server.instance": server.instance or ""}
    if isinstance(document, Workload):
        fields["source"] = document.source
    for name, text in fields.items():
        size = len(text.encode("utf-8", errors="surrogatepass"))
        if size > MAX_KEY_TEXT_BYTES:
            return (f"{name} is {size} bytes long; the repository indexes it, and a text it indexes holds at most "
                    f"{MAX_KEY_TEXT_BYTES} bytes")
    return None


def _kind_of(raw: bytes, source: str) -> Kind:
    try:
        head = msgspec.json.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError):  # msgspec before 0.23 raised the second for bytes not UTF-8
        raise (not_utf8(source, raw) or
               BadInput(f"{source}: not valid JSON; not an advisor document (or truncated)")) from None
    kind = head.get("document") if isinstance(head, dict) else None
    if kind not in KINDS:
        what = f"an advisor {kind!r} document cannot be pushed" if isinstance(kind, str) else "not an advisor document"
        raise BadInput(f"{source}: {what}", hint="push snapshots, workloads, disk profiles or reports")
    return kind  # type: ignore[no-any-return]  # checked against KINDS just above


def load_file(path: Path) -> Pushable:
    """Read *path* as an advisor document (refusing foreign, corrupt or newer files)."""
    return load_bytes(read_regular_file(path, MAX_DOCUMENT_BYTES, "document"), str(path))


def load_bytes(raw: bytes, source: str) -> Pushable:
    """*raw* as an advisor document, checked by the same rules as the model's load functions.

    The bytes are read once, by the caller: what is checked is exactly what is stored.
    """
    kind = _kind_of(raw, source)
    name = Path(source).name
    document: Document
    if kind == "snapshot":
        document = check(decode_document(raw, source, kind, Snapshot, FORMAT_VERSION), name)
    elif kind == "workload":
        document = check(decode_document(raw, source, kind, Workload, FORMAT_VERSION), name)
    elif kind == "disk-profile":
        document = decode_disk_profile(raw, source)  # reads version 1 too
    else:
        document = decode_document(raw, source, kind, Report, REPORT_FORMAT_VERSION)
    if problem := key_text_problem(document):
        raise BadInput(f"{source}: {problem}")
    _refuse_secrets(raw, source)
    return Pushable(kind, document, raw, source)


def from_document(document: Document, source: str = "collect") -> Pushable:
    """A document built in this process (``collect --push``), encoded as ``-o`` would write it."""
    raw = encode(document)
    if problem := key_text_problem(document):
        raise BadInput(f"{source}: {problem}")
    _refuse_secrets(raw, source)
    return Pushable(document.document, document, raw, source)


def _refuse_secrets(raw: bytes, source: str) -> None:
    """No password ever reaches the repository: refuse a document that carries one.

    advisor's collectors never record one; a hand-edited or foreign-built document might
    (a DSN in a setting). The same patterns that redact messages decide.
    """
    lowered = raw.lower()
    if not any(marker in lowered for marker in _SECRET_MARKERS):
        return  # no pattern can match: skip the regular expressions (75 ms on a 450 KiB snapshot)
    text = raw.decode("utf-8", errors="replace")
    if redact(text) != text:
        raise BadInput(f"{source}: the document contains what looks like a password; not pushed",
                       hint="remove it from the file; the repository never stores secrets")
