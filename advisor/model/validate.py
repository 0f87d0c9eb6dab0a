"""One validation layer: the numbers, ids and times a decoded document may hold.

The JSON codec (:mod:`advisor.model.jsonio`) checks shapes and types; this module checks what the
types cannot say: a count, size, rate or time is finite and never negative, a share lies
between 0 and 1, ids are unique, timestamps are ISO 8601. It runs in two modes:

* :func:`check` refuses a document (``BadInput``, exit 6) naming the first impossible field,
  e.g. ``workload.json: rates[12].read_iops is -3.4; a rate cannot be negative``. The model's
  ``load_*`` functions call it, so every command that reads a snapshot, workload or disk
  profile gets the same rules without checking anything itself.
* :func:`advisor.model.scrub.scrub_workload` repairs a workload imported from a report (AWR, Statspack): a
  figure that cannot be true is dropped (None) with a warning naming it, a rate row whose
  required figure is impossible is left out with a warning, a repeated file id keeps its
  first row. A report is evidence; one bad cell must not hide the rest of it.

The rules are driven by the dataclasses' own annotations, so a new numeric field is checked
without being listed here: a share or a time is one by its type (:mod:`advisor.model.kinds`,
whose constraints msgspec also applies while decoding); only signed figures are listed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import types
import typing
from collections.abc import Iterable
from functools import cache, partial
from operator import attrgetter, is_not
from typing import Any, TypeVar

from advisor.errors import BadInput

T = TypeVar("T")

LARGEST = 1e300
"""Above this a figure is treated as overflow: it would turn into infinity in any sum."""

SIGNED = frozenset({"predicted_gain"})
"""Fields that may be negative (a plan can predict a loss)."""


EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
LATEST = dt.datetime(2200, 1, 1, tzinfo=dt.UTC)
"""Times a document may hold: [EARLIEST, LATEST), a time without offset read as UTC. The fleet
repository's ``ensure_month`` refuses the same range, so every month partition has bounds
that PostgreSQL and Python both read (year 9999's partition ends in year 10000)."""

UNIQUE_IDS = {"files": "file_id", "rates": "file_id", "segments": "segment_id"}
"""Sequences whose rows are identified by an id that must not repeat."""

OPAQUE = frozenset({"views", "settings", "machine", "mapped_paths", "evidence"})
"""Raw view rows, settings and evidence: not figures of the document's own (``dict[str, Any]``
fields such as a report's model summaries are skipped too, by their annotation)."""


class Problem(Exception):
    """An impossible figure: where it is, what it is and why it cannot be."""

    def __init__(self, where: str, value: object, why: str) -> None:
        super().__init__(f"{where} is {value!r}; {why}")
        self.where, self.value, self.why = where, value, why


def _what(name: str) -> str:
    if name.endswith(("_iops", "_per_s", "mb_s", "r_s", "w_s")) or name == "util":
        return "a rate"
    if name.endswith(("_bytes", "_kb")) or name.startswith("size"):
        return "a size"
    if name.endswith(("_ms", "_s")):
        return "a time"
    return "a count" if name.endswith("s") else "this figure"


def number_problem(name: str, value: float, share: bool = False) -> str | None:
    """Why *value* cannot be the figure *name* (a :data:`~advisor.model.kinds.Share` when *share*), or None."""
    if value != value:  # NaN
        return f"{_what(name)} must be a number"
    if not -LARGEST <= value <= LARGEST:
        return f"{_what(name)} must be finite"
    if share and not 0.0 <= value <= 1.0:
        return "a share must be between 0 and 1"
    if value < 0 and name not in SIGNED:
        return f"{_what(name)} cannot be negative"
    return None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def timestamp_problem(value: str) -> str | None:
    if not value:
        return None
    try:
        at = dt.datetime.fromisoformat(value)
    except ValueError:
        return "not an ISO 8601 time"
    if not EARLIEST <= (at if at.tzinfo else at.replace(tzinfo=dt.UTC)) < LATEST:
        return "a time must lie between 1970-01-01 and 2199-12-31"
    return None


@cache
def _annotations(cls: type) -> dict[str, Any]:
    """*cls*'s field annotations with their constraints (``Annotated[float, Meta(...)]``)."""
    return typing.get_type_hints(cls, include_extras=True)


@cache
def _shares(cls: type) -> frozenset[str]:
    """The fields of *cls* typed :data:`~advisor.model.kinds.Share`."""
    from advisor.model.kinds import is_share  # advisor.model imports this module: no cycle at import

    return frozenset(name for name, tp in _annotations(cls).items() if is_share(tp))


@cache
def _numeric_fields(cls: type) -> tuple[tuple[str, ...], tuple[tuple[float, float], ...]]:
    """The number fields of *cls* and each one's (low, high) bounds."""
    hints = typing.get_type_hints(cls)
    names = tuple(f.name for f in dataclasses.fields(cls)
                  if f.name not in OPAQUE and _annotation_is_number(hints[f.name]))
    shares = _shares(cls)
    bounds = tuple((-LARGEST if n in SIGNED else 0.0, 1.0 if n in shares else LARGEST) for n in names)
    return names, bounds


def _annotation_is_number(tp: Any) -> bool:
    if tp in (int, float):
        return True
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return bool(args) and all(a in (int, float) for a in args)
    return False


def problems(document: object, where: str = "") -> Iterable[Problem]:
    """Every impossible figure, repeated id and bad timestamp in *document*, in field order."""
    yield from _walk(document, where)


def _walk(obj: object, where: str) -> Iterable[Problem]:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        yield from _walk_dataclass(obj, where)
    elif isinstance(obj, (tuple, list)):
        yield from _walk_sequence(obj, where)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if not _is_number(value):
                yield from _walk(value, f'{where}["{key}"]')
            elif why := number_problem(where.rsplit(".", 1)[-1], value):
                yield Problem(f'{where}["{key}"]', value, why)


def _walk_sequence(items: tuple[Any, ...] | list[Any], where: str) -> Iterable[Problem]:
    if not items:
        return
    first = items[0]
    if dataclasses.is_dataclass(first) and not isinstance(first, type):
        cls = type(first)
        if len(set(map(type, items))) == 1 and _columns_possible(items, cls):
            # the fast path: a hundred thousand relation rows per snapshot, their numbers
            # checked column by column; only the rows' other checks (times, nested rows) one by one
            yield from _walk_details(items, cls, where)
        else:
            for index, item in enumerate(items):
                yield from _walk(item, f"{where}[{index}]")
        key = UNIQUE_IDS.get(where.rsplit(".", 1)[-1])
        if key is not None:
            yield from _repeated_ids(items, key, where)
    else:
        for index, item in enumerate(items):
            if _is_number(item) and (why := number_problem(where.rsplit(".", 1)[-1], item)):
                yield Problem(f"{where}[{index}]", item, why)
            elif not _is_number(item):
                yield from _walk(item, f"{where}[{index}]")


_not_none = partial(is_not, None)


def _columns_possible(items: tuple[Any, ...] | list[Any], cls: type) -> bool:
    """Whether every number field of every row is within its bounds, one column at a time.

    min, max and sum run in C: a finite sum rules out NaN and infinities, min and max the
    bounds. Anything unusual (a sum that overflows, a huge int) answers False, and the rows
    are then walked one by one to name the field.
    """
    names, bounds = _numeric_fields(cls)
    try:
        for name, (low, high) in zip(names, bounds, strict=True):
            values = list(filter(_not_none, map(attrgetter(name), items)))
            if values and not (math.isfinite(sum(values)) and min(values) >= low and max(values) <= high):
                return False
    except (OverflowError, TypeError):
        return False
    return True


def _walk_details(items: tuple[Any, ...] | list[Any], cls: type, where: str) -> Iterable[Problem]:
    """The checks of rows of *cls* other than their number fields (already checked by column)."""
    details = _detail_plan(cls)
    if not details:
        return
    for index, item in enumerate(items):
        if any(getattr(item, name) for name, _action in details):  # empty or None: nothing to check
            yield from _walk_fields(item, f"{where}[{index}]", details)


def _annotation_is_text(tp: Any) -> bool:
    if tp in (str, bool) or typing.get_origin(tp) is typing.Literal:
        return True
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return all(a in (str, bool, type(None)) for a in typing.get_args(tp))
    return typing.get_origin(tp) is tuple and all(a in (str, Ellipsis) for a in typing.get_args(tp))


_NUMBER, _SHARE, _TIMESTAMP, _RESETS, _NESTED = range(5)


@cache
def _plan(cls: type) -> tuple[tuple[str, int], ...]:
    """What to check in each field of *cls*, worked out once per class.

    Text fields (str, bool, literals, tuples of str) can hold nothing to check and are left
    out; a field that may hold rows is checked when it does.
    """
    from advisor.model.kinds import is_timestamp

    hints = typing.get_type_hints(cls)
    numbers, shares = _numeric_fields(cls)[0], _shares(cls)
    plan: list[tuple[str, int]] = []
    for f in dataclasses.fields(cls):
        if f.name in numbers:
            plan.append((f.name, _SHARE if f.name in shares else _NUMBER))
        elif is_timestamp(_annotations(cls)[f.name]):
            plan.append((f.name, _TIMESTAMP))
        elif f.name == "stats_reset":
            plan.append((f.name, _RESETS))
        elif not _free_form(cls, f.name) and not _annotation_is_text(hints[f.name]):
            plan.append((f.name, _NESTED))
    return tuple(plan)


@cache
def _detail_plan(cls: type) -> tuple[tuple[str, int], ...]:
    """The plan of *cls* without its number fields."""
    return tuple(step for step in _plan(cls) if step[1] not in (_NUMBER, _SHARE))


def _walk_dataclass(obj: Any, where: str) -> Iterable[Problem]:
    cls: type = type(obj)
    return _walk_fields(obj, where, _plan(cls))


def _walk_fields(obj: Any, where: str, plan: tuple[tuple[str, int], ...]) -> Iterable[Problem]:
    prefix = f"{where}." if where else ""
    for name, action in plan:
        value = getattr(obj, name)
        if value is None:
            continue
        if action <= _SHARE:
            if why := number_problem(name, value, action == _SHARE):
                yield Problem(prefix + name, value, why)
        elif action == _TIMESTAMP:
            if isinstance(value, str) and (why := timestamp_problem(value)):
                yield Problem(prefix + name, value, why)
        elif action == _RESETS:
            if isinstance(value, dict):
                for key, stamp in value.items():
                    if isinstance(stamp, str) and (why := timestamp_problem(stamp)):
                        yield Problem(f'{prefix}stats_reset["{key}"]', stamp, why)
        elif isinstance(value, (tuple, list, dict)) or dataclasses.is_dataclass(value):
            yield from _walk(value, prefix + name)


def _repeated_ids(items: tuple[Any, ...] | list[Any], key: str, where: str) -> Iterable[Problem]:
    try:
        idents = list(map(attrgetter(key), items))
        if len(set(idents)) == len(idents):
            return  # the usual case, decided in C
    except (AttributeError, TypeError):
        pass
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        ident = getattr(item, key, None)
        if not isinstance(ident, str):
            continue
        if ident in seen:
            yield Problem(f"{where}[{index}].{key}", ident, f"the same {key} as {where}[{seen[ident]}]")
        else:
            seen[ident] = index


def check(document: T, source: str) -> T:
    """*document* unchanged when every figure is possible; else BadInput naming the first one."""
    for problem in problems(document):
        raise BadInput(f"{source}: {problem}")
    return document


@cache
def _free_form(cls: type, name: str) -> bool:
    """Whether field *name* holds data of no fixed shape (raw rows, settings, summaries)."""
    if name in OPAQUE:
        return True
    tp = typing.get_type_hints(cls).get(name, object)
    return "Any" in str(tp)
