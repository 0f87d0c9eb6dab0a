"""Dataclass <-> JSON for every artifact, with a version check and atomic writes.

The pipeline's stages talk through JSON files (snapshot, workload, disk profile, report),
possibly written on another host or by another release. One generic codec driven by the
dataclasses' type hints keeps the files and the classes from drifting apart: a field added
to a dataclass is in the JSON, and a file with a key the class does not know is rejected
as "not ours" rather than half-read.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, get_args, get_origin, get_type_hints

from advisor.bulk import gc_paused
from advisor.errors import BadInput
from advisor.jsondecode import Mismatch, decoder

T = TypeVar("T")

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_SCALARS = (str, int, bool, type(None))


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELD_NAMES[cls] = names
    return names


def to_jsonable(value: Any) -> Any:
    """Turn dataclasses, tuples and mappings into plain JSON values.

    Snapshots of large clusters hold 100k+ rows, so the per-class field names are cached
    and scalars take the first branch: this walk used to cost more than collecting.
    """
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, float):
        return None if value != value else value  # NaN is not JSON
    cls = type(value)
    if cls in _FIELD_NAMES or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        return {name: to_jsonable(getattr(value, name)) for name in _field_names(cls)}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


def _fail(where: str, expected: str, got: Any) -> BadInput:
    shown = type(got).__name__ if not isinstance(got, (str, int, float)) else repr(got)[:40]
    return BadInput(f"{where}: expected {expected}, found {shown}")


def from_jsonable(tp: Any, data: Any, where: str = "$") -> Any:
    """Build a value of type *tp* from parsed JSON, checking every field on the way.

    The decoder compiled for *tp* (:mod:`advisor.jsondecode`) does the work; when it meets
    something it does not expect, the generic walk below decides and, for bad input, names
    the field.
    """
    try:
        return decoder(tp)(data)
    except Mismatch:
        return _walk(tp, data, where)


def _int_key(key: str, where: str) -> int:
    try:
        return int(key)
    except ValueError:
        raise _fail(where, "an integer key", key) from None


def _walk(tp: Any, data: Any, where: str) -> Any:  # noqa: C901 - one switch
    """The generic, type-hint driven walk: slow, but it names the field that is wrong."""
    origin = get_origin(tp)
    if tp is Any:
        return data
    if origin in (typing.Union, types.UnionType):
        args = get_args(tp)
        if data is None and type(None) in args:
            return None
        last: BadInput | None = None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _walk(arg, data, where)
            except BadInput as exc:
                last = exc
        raise last or _fail(where, str(tp), data)
    if origin is typing.Literal:
        if data not in get_args(tp):
            raise _fail(where, " or ".join(map(repr, get_args(tp))), data)
        return data
    if origin is tuple:
        if not isinstance(data, list):
            raise _fail(where, "a list", data)
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_walk(args[0], v, f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise _fail(where, f"{len(args)} items", data)
        return tuple(_walk(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True)))
    if origin in (dict, Mapping) or origin is typing.Mapping:
        if not isinstance(data, dict):
            raise _fail(where, "an object", data)
        key_tp, val_tp = get_args(tp)
        return {
            _walk(key_tp, _int_key(k, where) if key_tp is int else k, where): _walk(val_tp, v, f"{where}.{k}")
            for k, v in data.items()
        }
    if origin is list:
        if not isinstance(data, list):
            raise _fail(where, "a list", data)
        return [_walk(get_args(tp)[0], v, f"{where}[{i}]") for i, v in enumerate(data)]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise _fail(where, f"an object ({tp.__name__})", data)
        hints = _hints(tp)
        names = {f.name for f in dataclasses.fields(tp)}
        unknown = set(data) - names
        if unknown:
            raise BadInput(f"{where}: unknown field {sorted(unknown)[0]!r} in {tp.__name__}")
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(tp):
            if f.name in data:
                kwargs[f.name] = _walk(hints[f.name], data[f.name], f"{where}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise BadInput(f"{where}: missing field {f.name!r} in {tp.__name__}")
        return tp(**kwargs)
    if tp is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise _fail(where, "a number", data)
        return float(data)
    if tp is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise _fail(where, "an integer", data)
        return data
    if tp in (str, bool):
        if not isinstance(data, tp):
            raise _fail(where, tp.__name__, data)
        return data
    if tp is type(None):
        if data is not None:
            raise _fail(where, "null", data)
        return None
    raise TypeError(f"no JSON mapping for {tp!r}")


COMPACT_ABOVE_ROWS = 5000
"""Documents with more rows than this are written without indentation.

Indenting adds a third to a 100k-relation snapshot's size and time for no reader's benefit;
small documents stay readable.
"""


def _row_count(obj: Any) -> int:
    """Rows in the top-level lists of a document (dataclass or plain dict)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        values = [getattr(obj, name) for name in _field_names(type(obj))]
    elif isinstance(obj, dict):
        values = list(obj.values())
    else:
        return 0
    return sum(len(v) for v in values if isinstance(v, (list, tuple)))


def _default(value: Any) -> Any:
    """What orjson cannot encode natively goes through the generic walk."""
    converted = to_jsonable(value)
    if converted is value:
        raise TypeError(f"no JSON form for {type(value).__name__}")
    return converted


def encode(obj: Any) -> bytes:
    """Serialise a dataclass artifact as UTF-8 JSON (indented unless it is large).

    orjson writes dataclasses, tuples and dicts straight from the objects, about ten times
    faster than walking them into dicts for the standard library encoder: a 100,000-relation
    snapshot is encoded in about a tenth of a second. NaN and infinities become null. An
    integer beyond 64 bits, which orjson refuses, falls back to the standard encoder.
    """
    import orjson  # here, not at the top: the storage modules run with the standard library alone

    indent = _row_count(obj) <= COMPACT_ABOVE_ROWS
    options = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(obj, default=_default, option=options)
    except orjson.JSONEncodeError as exc:
        if "64-bit" not in str(exc):
            raise TypeError(str(exc)) from None
    data = to_jsonable(obj)
    if indent:
        return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


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
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_document(path: Path | str, kind: str, cls: type[T], format_version: int) -> T:
    """Read an artifact of *kind* written by advisor, refusing foreign or newer files.

    Parsed and decoded with the garbage collector held (:func:`advisor.bulk.gc_paused`): a
    large snapshot is hundreds of thousands of objects and no reference cycles.
    """
    with gc_paused():
        return _read_document(Path(path), kind, cls, format_version)


def _read_document(source: Path, kind: str, cls: type[T], format_version: int) -> T:
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInput(f"{source}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{source}: cannot read ({exc.__class__.__name__}: {exc})") from None
    import orjson

    try:
        data = orjson.loads(text)
    except json.JSONDecodeError as exc:  # orjson's error is a subclass, with line and column
        raise BadInput(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); truncated or corrupt?"
        ) from None
    if not isinstance(data, dict) or data.get("document") != kind:
        found = data.get("document") if isinstance(data, dict) else None
        what = f"an advisor {found!r} document" if isinstance(found, str) else "not an advisor document"
        raise BadInput(f"{source}: expected an advisor {kind!r} document, found {what}")
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise BadInput(f"{source}: format_version missing or not an integer")
    if version > format_version:
        raise BadInput(
            f"{source}: format_version {version} is newer than this advisor reads ({format_version})",
            hint="upgrade advisor",
        )
    try:
        result: T = from_jsonable(cls, data, source.name)
    except BadInput as exc:
        raise BadInput(f"{source}: {exc.message}") from None
    return result
