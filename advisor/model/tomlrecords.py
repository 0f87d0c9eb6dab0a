"""TOML files people edit (inventories, drive specs, media presets) decoded into typed records.

The JSON documents are decoded by msgspec straight into their record classes, and a wrong
value is reported with its path (``Expected `int`, got `str` - at `$.files[3].reads```).
The TOML files go the same way: :func:`parse_toml` reads the text, :func:`decode` converts
the table into a record class with msgspec, whose annotations carry the rules (a
``Literal`` of the allowed words, ``Annotated[int, Meta(ge=1, le=1024, description=...)]``
for a bounded count), and a refusal names the field by the same path. Since the people who
read these errors wrote the file by hand, :class:`Problem` also gives what a message needs to
say it in their words: the key, the value as written, and the rule (the ``Meta``
description, or the words a ``Literal`` allows).
"""

from __future__ import annotations

import re
import tomllib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

import msgspec

from advisor.errors import BadInput

T = TypeVar("T")

_ERROR = re.compile(r"(?P<text>.*?)(?: - at `(?P<path>\$[^`]*)`)?", re.DOTALL)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_UNKNOWN = re.compile(r"Object contains unknown field `(?P<key>.*)`", re.DOTALL)
_MISSING = re.compile(r"Object missing required field `(?P<key>.*)`", re.DOTALL)


def parse_toml(data: bytes, where: str, what: str = "TOML") -> dict[str, Any]:
    """TOML text as a table; a file that is not UTF-8, not TOML or nested past Python's stack is one line."""
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BadInput(f"{where}: not UTF-8 at byte {exc.start}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{where}: not valid {what} ({exc})") from None
    except RecursionError:
        raise BadInput(f"{where}: not valid {what} (arrays or tables nested too deeply)") from None


def current_keys(table: Mapping[str, T], renamed: Mapping[str, str], where: str) -> dict[str, T]:
    """A copy of *table* with each key written under an earlier name under its current name (order kept).

    A file written before a field was renamed keeps working, forever, with the same meaning
    (``r_od_mb_s`` of a drive spec's ``sources`` is ``r_od_mb_s_decimal``). A table that gives
    both names holds two things for one field: refused, naming both.
    """
    for old, current in renamed.items():
        if old in table and current in table:
            raise given_twice(where, old, current)
    return {renamed.get(key, key): value for key, value in table.items()}


def given_twice(where: str, old: str, current: str) -> BadInput:
    """The refusal of a table that gives a figure under its earlier and its current key."""
    return BadInput(f"{where}: {old} and {current} name the same figure ({old} is its earlier name): keep {current}")


@dataclass(frozen=True, slots=True)
class Problem:
    """What msgspec refused, in the terms of the file: where, which key, what it held, the rule."""

    kind: str
    """``unknown`` (a key the record does not have), ``missing`` (a required key) or ``value``."""
    path: str
    """msgspec's path of the table or value at fault: ``$.device[0].count``."""
    steps: tuple[str | int, ...]
    """The path as keys and indexes: ``("device", 0, "count")``."""
    key: str
    """The key at fault (the unknown or missing one, or the last key of the path)."""
    value: Any
    """The value as written (None for a missing key)."""
    rule: str
    """What the key must hold, as the end of a sentence about it: the Meta description ("must be a
    whole number from 1 to 1024"), or the words a Literal allows ("is not one of …"); "" if none."""
    expected: tuple[str, ...]
    """For an unknown key: the keys the table may have."""
    detail: str
    """msgspec's own words (``Expected `int` >= 1``)."""

    def default_message(self) -> str:
        """The message when the caller has no words of its own for this problem."""
        if self.kind == "unknown":
            return f"unknown key {self.key!r} (keys: {', '.join(self.expected)})"
        if self.kind == "missing":
            return f"{self.key} is missing" + (f" ({self.rule.removeprefix('must be ')})" if self.rule else "")
        if self.rule:
            return f"{self.key} {_shown(self.value)} {self.rule}"
        return f"{self.key} {_shown(self.value)} is refused ({self.detail})"


def _shown(value: Any) -> str:
    """A value as the person wrote it, short: a long string or table is cut."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def decode(
    table: Mapping[str, Any], cls: type[T], where: str, words: Callable[[Problem], str | None] | None = None,
    at: str = "$",
) -> T:
    """*table* as a *cls* record; a refusal is one BadInput line naming the field by its path.

    *words* may give the message of a problem in the file's own terms (None: the default).
    *at* is the path of *table* in its file, for a table decoded on its own (msgspec names
    the key of a ``dict[str, Record]`` entry ``[...]``, so such entries are decoded one by one).
    """
    try:
        return msgspec.convert(table, cls)
    except msgspec.ValidationError as exc:
        problem = problem_of(str(exc), table, cls)
        message = (words(problem) if words is not None else None) or problem.default_message()
        raise BadInput(f"{where}: {message} - at `{at}{problem.path[1:]}`") from None


def problem_of(error: str, table: Mapping[str, Any], cls: type) -> Problem:
    """The :class:`Problem` of msgspec's *error* on *table* decoded as *cls*."""
    match = _ERROR.fullmatch(error)
    text, path = (match.group("text"), match.group("path") or "$") if match else (error, "$")
    steps: tuple[str | int, ...] = tuple(
        key if key else int(index) for key, index in _STEP.findall(path[1:])
    )
    value: Any = table
    for step in steps:
        if isinstance(value, dict) and isinstance(step, str):
            value = value.get(step)
        elif isinstance(value, list) and isinstance(step, int) and step < len(value):
            value = value[step]
        else:
            value = None
    target = type_at(cls, steps)
    if found := _UNKNOWN.fullmatch(text):
        return Problem("unknown", path, steps, found.group("key"), None, "", _fields(target), text)
    if found := _MISSING.fullmatch(text):
        key = found.group("key")
        return Problem("missing", path, steps, key, None, rule_of(_field_type(target, key)), (), text)
    key = next((s for s in reversed(steps) if isinstance(s, str)), "$")
    return Problem("value", path, steps, key, value, rule_of(target), (), text)


def _unwrapped(tp: Any) -> Any:
    """*tp* without Annotated and without ``| None``."""
    while True:
        if typing.get_origin(tp) is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif typing.get_origin(tp) in (typing.Union, types.UnionType):
            rest = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(rest) != 1:
                return tp
            tp = rest[0]
        else:
            return tp


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


def _field_type(cls: Any, key: str) -> Any:
    cls = _unwrapped(cls)
    return _hints(cls).get(key) if isinstance(cls, type) and hasattr(cls, "__struct_fields__") else None


def _fields(cls: Any) -> tuple[str, ...]:
    cls = _unwrapped(cls)
    return tuple(getattr(cls, "__struct_fields__", ()))


def type_at(cls: Any, steps: tuple[str | int, ...]) -> Any:
    """The annotation the value at *steps* was decoded as."""
    tp: Any = cls
    for step in steps:
        if isinstance(step, int):
            args = typing.get_args(_unwrapped(tp))
            tp = args[-1] if args else None  # list[X], tuple[X, ...] and dict[str, X] keep X last
        else:
            inner = _unwrapped(tp)
            if typing.get_origin(inner) is dict:
                tp = typing.get_args(inner)[1]
            else:
                tp = _field_type(inner, step)
        if tp is None:
            return None
    return tp


def rule_of(tp: Any) -> str:
    """What a value of annotation *tp* must be, in words: its Meta description, or its Literal's words."""
    if tp is None:
        return ""
    if typing.get_origin(tp) is typing.Annotated:
        for meta in typing.get_args(tp)[1:]:
            if isinstance(meta, msgspec.Meta) and meta.description:
                return meta.description
        return rule_of(typing.get_args(tp)[0])
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            if (rule := rule_of(arg)):
                return rule
        return ""
    if typing.get_origin(tp) is typing.Literal:
        return "is not one of " + ", ".join(str(word) for word in typing.get_args(tp))
    return ""
