"""The base of every document class: a frozen msgspec Struct that refuses unknown fields.

Documents are read and written by msgspec, which validates a 100,000-relation snapshot while
parsing it (4–8 times faster than the decoders generated per class it replaced) and
names the field at fault in its errors (``Expected `int`, got `str` - at `$.files[3].reads```).
A key the class does not know is an error, so a file from another tool or a newer release
is refused rather than half-read.

The classes also carry the standard ``__dataclass_fields__`` table, built from the same
field list, so code written for frozen dataclasses keeps working unchanged:
``dataclasses.replace``, ``dataclasses.fields``, ``dataclasses.asdict`` and
``dataclasses.is_dataclass``. The table of a class is built the first time something asks
for it: building all of them when the classes are defined made every ``advisor`` command
start about 0.1 s later (58 classes, each through a generated dataclass), whether it used
them or not. Instances are not tracked by the cyclic garbage collector
(``gc=False``): they are immutable and built from their parts, so they cannot form a cycle,
and a snapshot's 200,000 records no longer make every collection pass longer.

A new document class is written ``class Name(Record):`` with fields as in a dataclass;
defaults that must be fresh per instance use :func:`field` (``field(default_factory=dict)``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, dataclass_transform

import msgspec

field = msgspec.field
"""``field(default_factory=...)`` for a Record (msgspec's, not the dataclasses one)."""


class _Probe(msgspec.Struct):
    made: list[int] = msgspec.field(default_factory=list)


_FACTORY = type(_Probe.__struct_defaults__[0])
"""The class msgspec keeps a ``default_factory`` in (not exported under a public name)."""


def _dataclass_fields(cls: type) -> dict[str, dataclasses.Field[Any]]:
    """The ``__dataclass_fields__`` of a dataclass with the same fields, defaults and annotations."""
    names: tuple[str, ...] = getattr(cls, "__struct_fields__", ())
    defaults: tuple[Any, ...] = getattr(cls, "__struct_defaults__", ())
    first_default = len(names) - len(defaults)
    annotations: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        annotations.update(base.__dict__.get("__annotations__", {}))
    spec: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for index, name in enumerate(names):
        annotation = annotations.get(name, "Any")
        if index < first_default:
            spec.append((name, annotation))
            continue
        default = defaults[index - first_default]
        factory = default.factory if isinstance(default, _FACTORY) else None
        made = dataclasses.field(default_factory=factory) if factory is not None else dataclasses.field(default=default)
        spec.append((name, annotation, made))
    twin = dataclasses.make_dataclass(cls.__name__, spec)
    return {made.name: made for made in dataclasses.fields(twin)}


_TABLES: dict[type, dict[str, dataclasses.Field[Any]]] = {}
"""Each Record class's field table, once asked for (kept here, not on the class: a subclass must not
find its parent's table before it finds :class:`_FieldTable`)."""


class _FieldTable:
    """``__dataclass_fields__`` of a Record class or instance, built on first use (module docstring)."""

    def __get__(self, instance: object, owner: type) -> dict[str, dataclasses.Field[Any]]:
        table = _TABLES.get(owner)
        if table is None:
            table = _TABLES[owner] = _dataclass_fields(owner)
        return table


@dataclass_transform(frozen_default=True, field_specifiers=(msgspec.field,))
class _RecordMeta(msgspec.StructMeta):
    """msgspec's class builder, marked for type checkers as making frozen dataclass-like classes."""


class Record(msgspec.Struct, metaclass=_RecordMeta, frozen=True, forbid_unknown_fields=True, gc=False):
    """A frozen document part: construct it like a dataclass, read it with msgspec."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]] = _FieldTable()  # type: ignore[assignment]
