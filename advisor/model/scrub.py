"""A workload imported from a report, without its impossible figures: each one dropped and named.

:mod:`advisor.model.validate` finds the impossible figures of a document (its ``problems``)
and refuses a document that holds one; a report is evidence, and one bad cell must not hide
the rest of it, so an import repairs instead: an optional figure becomes None, a row whose
required figure is impossible is left out, a repeated id keeps its first row, each with a
warning (docs/awr-import.md). The repairs follow the path each problem names
(``read_evidence.events[2].total_waits``) through the frozen rows, tuples and mappings.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from functools import cache
from typing import Any, TypeVar

from advisor.errors import BadInput
from advisor.model.validate import problems

T = TypeVar("T")


def scrub_workload(workload: T) -> T:
    """A report's workload without its impossible figures, each one named in a warning.

    Optional figures become None; a rate row whose required figure (read IOPS, MB/s, size)
    is impossible is left out; an entry of a mapping (a file's single-block latency, its
    histogram) whose figure is impossible is left out, so that file's figure is unknown; a
    repeated file or segment id keeps its first row. An impossible required figure of the
    workload itself (its interval) is refused. Problems are found at any depth (a row of
    ``read_evidence.events`` as much as of ``rates``).
    """
    found = list(problems(workload))
    if not found:
        return workload
    warnings: list[str] = []
    cleared: list[tuple[Step, ...]] = []
    removed: dict[tuple[Step, ...], set[Step]] = {}  # a sequence or mapping -> the rows or keys it loses
    for problem in found:
        steps = _steps(problem.where)
        owner = _follow(workload, steps[:-1])
        label = getattr(owner, "file_id", None) or getattr(owner, "segment_id", None)
        named = f"{label}: {problem}" if label else str(problem)
        last = steps[-1]
        owner_class: type = type(owner)
        if (isinstance(last, _Attr) and not problem.why.startswith("the same")
                and _optional(owner_class, last.name)):
            cleared.append(steps)
            warnings.append(f"{named}; left unknown")
            continue
        cut = _enclosing_entry(workload, steps)
        if cut is None:
            raise BadInput(named)
        removed.setdefault(steps[:cut], set()).add(steps[cut])
        keyed = isinstance(steps[cut], _Key)
        warnings.append(f"{named}; {'left unknown' if keyed else 'the row is left out'}")
    result: Any = workload
    for steps in cleared:
        result = _replaced(result, steps, None)
    for holder in sorted(removed, key=len, reverse=True):  # inner entries first: outer indexes stay valid
        gone = removed[holder]
        value = _follow(result, holder)
        if isinstance(value, dict):
            kept: Any = {k: v for k, v in value.items() if _Key(k) not in gone}
        else:
            kept = tuple(v for i, v in enumerate(value) if _Index(i) not in gone)
        result = _replaced(result, holder, kept)
    out: T = dataclasses.replace(result, warnings=(*getattr(workload, "warnings", ()), *warnings))
    return out


@dataclasses.dataclass(frozen=True)
class _Attr:
    name: str


@dataclasses.dataclass(frozen=True)
class _Index:
    index: int


@dataclasses.dataclass(frozen=True)
class _Key:
    key: str


Step = _Attr | _Index | _Key
_STEP = re.compile(r'\.?([A-Za-z_]\w*)|\[(\d+)\]|\["(.*?)"\](?=[.\[]|$)')


def _steps(where: str) -> tuple[Step, ...]:
    """The path a :class:`Problem` names (``read_evidence.events[2].total_waits``) as steps."""
    steps: list[Step] = []
    for match in _STEP.finditer(where):
        name, index, key = match.groups()
        steps.append(_Attr(name) if name else _Index(int(index)) if index is not None else _Key(key))
    return tuple(steps)


def _follow(obj: Any, steps: tuple[Step, ...]) -> Any:
    for step in steps:
        if isinstance(step, _Attr):
            obj = getattr(obj, step.name)
        elif isinstance(step, _Index):
            obj = obj[step.index]
        else:
            obj = obj[step.key]
    return obj


def _replaced(obj: Any, steps: tuple[Step, ...], value: Any) -> Any:
    """*obj* (frozen rows, tuples and mappings) with the value at *steps* replaced by *value*."""
    if not steps:
        return value
    step, rest = steps[0], steps[1:]
    if isinstance(step, _Attr):
        return dataclasses.replace(obj, **{step.name: _replaced(getattr(obj, step.name), rest, value)})
    if isinstance(step, _Index):
        items = list(obj)
        items[step.index] = _replaced(items[step.index], rest, value)
        return tuple(items) if isinstance(obj, tuple) else items
    return {**obj, step.key: _replaced(obj[step.key], rest, value)}


def _enclosing_entry(workload: Any, steps: tuple[Step, ...]) -> int | None:
    """Where to cut for an impossible required figure: the step of the nearest row (an element
    that is a record) or mapping entry holding it; None when it is the workload's own figure.
    A number of a tuple of numbers (a histogram's bucket) is not a row: its whole holder goes."""
    for cut in range(len(steps) - 1, -1, -1):
        step = steps[cut]
        if isinstance(step, _Key):
            return cut
        if isinstance(step, _Index) and dataclasses.is_dataclass(_follow(workload, steps[:cut + 1])):
            return cut
    return None


@cache
def _optional(cls: type, name: str) -> bool:
    return type(None) in typing.get_args(typing.get_type_hints(cls).get(name, object))
