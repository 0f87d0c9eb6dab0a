"""Decoders compiled once per type: JSON values to dataclasses at a few microseconds a row.

The generic walk in :func:`advisor.jsonio.from_jsonable` inspects type hints at every value
and builds an error path for every field, which made reading a 100,000-relation snapshot
take six seconds. Here each type gets a decoder closure the first time it is met, and
values are checked with a type identity test. A decoder only accepts what the generic walk
accepts and returns the same value; on anything else it raises :class:`Mismatch`, and the
caller re-runs the generic walk, which then names the offending field exactly (or, for a
value only the generic walk understands, returns it). Errors stay as precise as before and
the common case is fast.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, get_args, get_origin, get_type_hints

from advisor.bulk import slot_constructor

Decoder = Callable[[Any], Any]


class Mismatch(Exception):  # noqa: N818 - a control-flow signal, not an error shown to anyone
    """The value is not what the fast decoder expects; the generic walk decides."""


_CACHE: dict[Any, Decoder] = {}


def decoder(tp: Any) -> Decoder:
    """The decoder of *tp*, built on first use and cached."""
    found = _CACHE.get(tp)
    if found is None:
        found = _build(tp)
        _CACHE[tp] = found
    return found


def _fail(value: Any) -> Any:
    raise Mismatch


def _identity(value: Any) -> Any:
    return value


def _exactly(kind: type) -> Decoder:
    """A decoder accepting values of exactly *kind* (parsed JSON has no subclasses)."""

    def check(value: Any) -> Any:
        if type(value) is kind:
            return value
        raise Mismatch

    return check


def _float(value: Any) -> Any:
    kind = type(value)
    if kind is float:
        return value
    if kind is int:
        return float(value)
    raise Mismatch


def _none(value: Any) -> Any:
    if value is None:
        return None
    raise Mismatch


_SCALARS: dict[Any, Decoder] = {
    str: _exactly(str), int: _exactly(int), bool: _exactly(bool), float: _float, type(None): _none,
}


def _build(tp: Any) -> Decoder:  # noqa: C901 - one case per kind of type, as in from_jsonable
    if tp is Any:
        return _identity
    if tp in _SCALARS:
        return _SCALARS[tp]
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _union(get_args(tp))
    if origin is typing.Literal:
        allowed = get_args(tp)
        return lambda value: value if value in allowed else _fail(value)
    if origin is tuple:
        return _tuple(get_args(tp))
    if origin in (dict, Mapping) or origin is typing.Mapping:
        return _dict(*get_args(tp))
    if origin is list:
        item = decoder(get_args(tp)[0])
        return lambda value: [item(v) for v in value] if type(value) is list else _fail(value)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    return _fail  # a type only the generic walk knows what to do with (or rejects)


def _union(args: tuple[Any, ...]) -> Decoder:
    optional = type(None) in args
    choices = [decoder(a) for a in args if a is not type(None)]
    if len(choices) == 1:
        only = choices[0]
        if optional:
            return lambda value: None if value is None else only(value)
        return only

    def first_that_fits(value: Any) -> Any:
        if value is None and optional:
            return None
        for choice in choices:
            try:
                return choice(value)
            except Mismatch:
                continue
        raise Mismatch

    return first_that_fits


def _tuple(args: tuple[Any, ...]) -> Decoder:
    if len(args) == 2 and args[1] is Ellipsis:
        item = decoder(args[0])
        return lambda value: tuple([item(v) for v in value]) if type(value) is list else _fail(value)
    items = [decoder(a) for a in args]

    def fixed(value: Any) -> Any:
        if type(value) is not list or len(value) != len(items):
            raise Mismatch
        return tuple([item(v) for item, v in zip(items, value, strict=True)])

    return fixed


def _dict(key_tp: Any, value_tp: Any) -> Decoder:
    key, item = decoder(key_tp), decoder(value_tp)
    numeric = key_tp is int

    def mapping(value: Any) -> Any:
        if type(value) is not dict:
            raise Mismatch
        if numeric:
            if not all(type(k) is str and k.lstrip("-").isdigit() for k in value):
                raise Mismatch
            return {int(k): item(v) for k, v in value.items()}
        return {key(k): item(v) for k, v in value.items()}

    return mapping


def _dataclass(cls: type) -> Decoder:
    fields = dataclasses.fields(cls)
    hints = get_type_hints(cls)
    names = frozenset(f.name for f in fields)
    required = frozenset(
        f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    try:
        make: Callable[..., Any] = slot_constructor(cls)
    except TypeError:
        make = cls  # __post_init__ or default factories: the class's own __init__
    decoders: dict[str, Decoder] = {}

    def partial_fields(value: Any) -> Any:
        """Any subset of the fields (defaults for the rest), in any order."""
        if type(value) is not dict or not required <= value.keys():
            raise Mismatch
        kwargs = {}
        for name, raw in value.items():
            field_decoder = decoders.get(name)
            if field_decoder is None:
                if name not in names:
                    raise Mismatch  # an unknown field: the generic walk names it
                field_decoder = decoders[name] = decoder(hints[name])
            kwargs[name] = field_decoder(raw)
        return make(**kwargs)

    if any(not f.init for f in fields):
        return partial_fields
    return _all_fields(cls, [(f.name, hints[f.name]) for f in fields], make, partial_fields)


_CHECKS = {str: "str", int: "int", bool: "bool"}


def _check(var: str, tp: Any, namespace: dict[str, Any]) -> list[str]:
    """Straight-line Python that validates (and converts) local *var* holding a value of *tp*."""
    if tp in _CHECKS:
        return [f"if type({var}) is not {_CHECKS[tp]}: raise Mismatch"]
    if tp is float:
        return [f"if type({var}) is int: {var} = float({var})", f"elif type({var}) is not float: raise Mismatch"]
    args = get_args(tp)
    if get_origin(tp) in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _check(var, args[0] if args[1] is type(None) else args[1], namespace)
        return [f"if {var} is not None:", *("    " + line for line in inner)]
    namespace[f"_d_{var}"] = decoder(tp)
    return [f"{var} = _d_{var}({var})"]


def _all_fields(cls: type, fields: list[tuple[str, Any]], make: Callable[..., Any], fallback: Decoder) -> Decoder:
    """A decoder generated for documents that carry every field (what advisor writes).

    The checks are inlined, one ``type(x) is ...`` per field, because a function call per
    field was most of the cost of reading 100,000 rows.
    """
    namespace: dict[str, Any] = {
        "Mismatch": Mismatch, "_make": make, "_fallback": fallback, "_names": frozenset(n for n, _ in fields),
    }
    lines = [
        "def build(value):",
        f"    if type(value) is not dict or len(value) != {len(fields)} or value.keys() != _names:",
        "        return _fallback(value)",
    ]
    for i, (name, tp) in enumerate(fields):
        lines.append(f"    x{i} = value[{name!r}]")
        lines.extend("    " + line for line in _check(f"x{i}", tp, namespace))
    lines.append(f"    return _make({', '.join(f'x{i}' for i in range(len(fields)))})")
    exec("\n".join(lines), namespace)  # noqa: S102 - code built above from the dataclass's field names and types
    build: Decoder = namespace["build"]
    build.__qualname__ = f"decode_{cls.__name__}"
    return build
