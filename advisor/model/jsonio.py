"""Records <-> JSON for every artifact, with a version check and atomic writes.

The pipeline's stages talk through JSON files (snapshot, workload, disk profile, report),
possibly written on another host or by another release. msgspec encodes and decodes the
document classes (:mod:`advisor.model.record`) from their own type annotations, so the
files and the classes cannot drift apart: a field added to a class is in the JSON, a key
the class does not know makes the file "not ours", and a wrong value is reported with its
path (``Expected `int`, got `str` - at `$.files[3].reads```). On the generated snapshots of
``benchmarks/collect_bench.py --codecs`` (1,000 to 100,000 relations) this reads 4–8 times
faster than orjson with decoders generated per class did, and writes 2–3 times faster.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import msgspec

from advisor.errors import BadInput
from advisor.units import GIB, MIB

T = TypeVar("T")


def to_jsonable(value: Any) -> Any:
    """*value* as the plain JSON values its document would hold (keys as strings, NaN as null)."""
    return msgspec.json.decode(encode_compact(value))


def from_jsonable(tp: Any, data: Any, where: str = "$") -> Any:
    """Build a value of type *tp* from parsed JSON, checking every field on the way.

    Bad input raises :class:`BadInput` naming the field (``where`` prefixes the message,
    e.g. the file name).
    """
    try:
        return msgspec.convert(data, tp, str_keys=True)
    except msgspec.ValidationError as exc:
        raise BadInput(f"{where}: {exc}") from None


COMPACT_ABOVE_ROWS = 5000
"""Documents with more rows than this are written without indentation.

Indenting adds a third to a 100k-relation snapshot's size and time for no reader's benefit;
small documents stay readable.
"""


def _row_count(obj: Any) -> int:
    """Rows in the top-level lists of a document (record, dataclass or plain dict)."""
    if isinstance(obj, dict):
        values = list(obj.values())
    else:
        names = getattr(obj, "__struct_fields__", None) or getattr(obj, "__dataclass_fields__", None)
        if names is None or isinstance(obj, type):
            return 0
        values = [getattr(obj, name) for name in names]
    return sum(len(v) for v in values if isinstance(v, (list, tuple)))


_ENCODER = msgspec.json.Encoder()


def encode_compact(obj: Any) -> bytes:
    """*obj* as one line of UTF-8 JSON (no newline); NaN and infinities become null."""
    try:
        return _ENCODER.encode(obj)
    except (TypeError, msgspec.EncodeError) as exc:
        raise TypeError(f"no JSON form: {exc}") from None


def encode(obj: Any) -> bytes:
    """Serialise an artifact as UTF-8 JSON ending in a newline (indented unless it is large)."""
    data = encode_compact(obj)
    if _row_count(obj) <= COMPACT_ABOVE_ROWS:
        data = msgspec.json.format(data, indent=2)
    return data + b"\n"


def dumps(obj: Any) -> str:
    """:func:`encode` as text."""
    return encode(obj).decode()


def write_atomic(path: Path | str, text: str | bytes) -> None:
    """Write *text* to *path* through a temp file and rename: never half a file.

    A crash or Ctrl-C leaves either the old file or the new one, which is the rule for every
    output advisor writes.
    """
    target = Path(path)
    data = text.encode() if isinstance(text, str) else text
    if target.exists() and not target.is_file():
        # A device, FIFO or socket (``-o /dev/null``, ``-o /dev/stdout``): renaming over it
        # would replace the device node with a regular file, so write through it instead.
        if target.is_dir():
            raise BadInput(f"{target}: is a directory; give a file name")
        with open(target, "wb") as handle:
            handle.write(data)
        return
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except FileNotFoundError:
        raise BadInput(f"{target}: the directory {directory} does not exist", hint="create it first") from None
    except NotADirectoryError:
        raise BadInput(f"{target}: {directory} is not a directory") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


MAX_DOCUMENT_BYTES = 2 * GIB
"""The largest snapshot, workload or report document (advisor's own JSON) read: a snapshot of 100,000 relations is
about 60 MB, so this is room for some 3 million; the limit is there so that a stream
(``/dev/zero``) or a wrong file ends in one error line instead of filling the memory."""

MAX_REPORT_FILE_BYTES = 512 * MIB
"""The largest AWR or Statspack report read: a RAC global report of a busy week is tens of MB."""

def read_regular_file(path: Path | str, limit_bytes: int, what: str, *, head: int | None = None) -> bytes:
    """The bytes of *path* when it is a regular file of at most *limit_bytes*; else one BadInput line.

    Opened without blocking (a FIFO would wait for a writer forever) and checked on the open
    descriptor: ``/dev/zero``, a FIFO, a directory or a file larger than the limit is refused
    before a byte is read, and the read stops at the limit even if the file grows meanwhile.
    With *head*, only the first *head* bytes are read (what a reader looks at to recognise a file).
    """
    source = Path(path)
    fd, info = _open_regular(source, limit_bytes, what)
    try:
        if head is not None:
            return os.read(fd, head)
        # the size fstat gave in one read (no chunks to join: a 60 MB snapshot reads as fast as
        # read_bytes), then whatever the file grew by, up to one byte past the limit
        first = os.read(fd, min(info.st_size, limit_bytes) + 1)
        chunks, left = [first], limit_bytes + 1 - len(first)
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = first if len(chunks) == 1 else b"".join(chunks)
    if len(data) > limit_bytes:
        raise BadInput(f"{source}: the {what} grew past {limit_bytes:,} bytes while it was read")
    return data


def open_regular_file(path: Path | str, limit_bytes: int, what: str) -> BinaryIO:
    """*path* opened for reading as a stream, with the checks of :func:`read_regular_file`
    (the caller stops at *limit_bytes* if the file grows while it is read)."""
    fd, _info = _open_regular(Path(path), limit_bytes, what)
    return os.fdopen(fd, "rb")


def _open_regular(source: Path, limit_bytes: int, what: str) -> tuple[int, os.stat_result]:
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise BadInput(f"{source}: no such file") from None
    except OSError as exc:
        raise BadInput(f"{source}: cannot read the {what} ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BadInput(f"{source}: the {what} is not a regular file", hint="give the path of a file")
        if info.st_size > limit_bytes:
            raise BadInput(f"{source}: the {what} is {info.st_size:,} bytes; at most {limit_bytes:,} are read",
                           hint="is this the right file?")
    except BaseException:
        os.close(fd)
        raise
    return fd, info


class _Header(msgspec.Struct):
    """The two keys every advisor document carries; everything else is skimmed, not built."""

    document: Any = None
    format_version: Any = None


def not_utf8(source: Path | str, raw: bytes | str) -> BadInput | None:
    """The error of a file whose bytes are not UTF-8, with the first bad byte; None when they are.

    msgspec up to 0.22 raised UnicodeDecodeError for such a string, 0.23 a DecodeError ("Invalid UTF-8
    encoded string") without the position: the bytes are checked here, whichever it raised."""
    if isinstance(raw, str):
        return None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _damaged_utf8(source, exc)
    return None


def _damaged_utf8(source: Path | str, exc: UnicodeDecodeError) -> BadInput:
    return BadInput(f"{source}: not UTF-8 at byte {exc.start} ({exc.reason}); a damaged file")


def _syntax_error(source: Path, raw: bytes | str, exc: msgspec.DecodeError) -> BadInput:
    """A malformed file, with the line and column the standard parser reports (error path only)."""
    damaged = not_utf8(source, raw)
    if damaged is not None:
        return damaged
    try:
        json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as detail:
        if isinstance(detail, json.JSONDecodeError):
            where = f"line {detail.lineno}, column {detail.colno}: {detail.msg}"
            return BadInput(f"{source}: not valid JSON ({where}); truncated or corrupt?")
        return BadInput(f"{source}: cannot read (UnicodeDecodeError: {detail})")
    except ValueError:  # the standard parser refuses what msgspec did, for its own reason (a 5,000-digit number)
        pass
    return BadInput(f"{source}: not valid JSON ({exc}); truncated or corrupt?")


def read_document(path: Path | str, kind: str, cls: type[T], format_version: int) -> T:
    """Read an artifact of *kind* written by advisor, refusing foreign or newer files."""
    source = Path(path)
    raw = read_regular_file(source, MAX_DOCUMENT_BYTES, kind)
    return decode_document(raw, source, kind, cls, format_version)


def decode_document(raw: bytes | str, source: Path | str, kind: str, cls: type[T], format_version: int) -> T:
    """Decode an artifact of *kind* already in memory (a repository row); *source* names it in errors."""
    source = Path(source)
    _check_header(source, raw, kind, format_version)
    _refuse_nul(source, raw)
    try:
        document: T = msgspec.json.decode(raw, type=cls)
    except msgspec.ValidationError as exc:
        raise BadInput(f"{source}: {exc}") from None
    except msgspec.DecodeError as exc:  # bytes that are not UTF-8 in a string the header's skim passed over
        raise _syntax_error(source, raw, exc) from None
    except UnicodeDecodeError as exc:  # the same, as msgspec before 0.23 raised it
        raise _damaged_utf8(source, exc) from None
    from advisor.model.upgrade import upgraded  # imports the document classes, which import this module

    return upgraded(document)


_ESCAPED_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


def _refuse_nul(source: Path, raw: bytes | str) -> None:
    """A NUL character in a text (``\\u0000``) is refused: no database name holds one, PostgreSQL's
    jsonb cannot store it, and C tools cut the name there."""
    data = raw.encode() if isinstance(raw, str) else raw
    if b"u0000" in data and _ESCAPED_NUL.search(data):
        raise BadInput(f"{source}: a text in the document holds a NUL character (\\u0000); no name has one",
                       hint="the file is damaged or not written by advisor")


def _check_header(source: Path, raw: bytes | str, kind: str, format_version: int) -> None:
    """Refuse a file that is not an advisor *kind* document, or is newer than this release reads."""
    try:
        header = msgspec.json.decode(raw, type=_Header)  # skims the rest: a tenth of the full decode
    except msgspec.ValidationError:
        raise BadInput(f"{source}: expected an advisor {kind!r} document, found not an advisor document") from None
    except msgspec.DecodeError as exc:
        raise _syntax_error(source, raw, exc) from None
    except UnicodeDecodeError as exc:  # a string with bytes that are not UTF-8, met while skimming (msgspec < 0.23)
        raise _damaged_utf8(source, exc) from None
    if header.document != kind:
        found = header.document
        what = f"an advisor {found!r} document" if isinstance(found, str) else "not an advisor document"
        raise BadInput(f"{source}: expected an advisor {kind!r} document, found {what}")
    version = header.format_version
    if not isinstance(version, int) or isinstance(version, bool):
        raise BadInput(f"{source}: format_version missing or not an integer")
    if version > format_version:
        raise BadInput(
            f"{source}: format_version {version} is newer than this advisor reads ({format_version})",
            hint="upgrade advisor",
        )
