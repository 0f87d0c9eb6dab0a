"""Constrained field types: the rule of a figure travels with its type, not with its name.

A share (``random_share``, ``zone_start``, a partition's ``start_fraction``) is a
:data:`Share`, and msgspec refuses one outside 0..1 while decoding the document, naming its
path (``Expected `float` <= 1.0 - at `$.rates[0].random_share```). A time is a
:data:`Timestamp`: msgspec checks that it starts as a date, and :mod:`advisor.model.validate`, which
finds timestamps by this type, checks the rest (a real ISO 8601 time between 1970 and 2199).
The validator reads the same types when it checks documents built in memory (a workload
imported from a report is never decoded), so both paths apply one rule.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any

from msgspec import Meta

SHARE = Meta(ge=0.0, le=1.0, description="a share of a whole: from 0 to 1")
TIMESTAMP = Meta(pattern=r"^$|^\d{4}-\d{2}-\d{2}", description="an ISO 8601 time, or '' when not known")

Share = Annotated[float, SHARE]
"""A fraction of a whole (a share of reads, a position on the disk from 0 = outer edge to 1)."""
Timestamp = Annotated[str, TIMESTAMP]
"""An ISO 8601 time; the empty string means "not known"."""


def _metas(annotation: Any) -> list[Meta]:
    """The msgspec Meta objects of *annotation*, looking through ``| None``."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [meta for arg in typing.get_args(annotation) for meta in _metas(arg)]
    if typing.get_origin(annotation) is typing.Annotated:
        return [meta for meta in typing.get_args(annotation)[1:] if isinstance(meta, Meta)]
    return []


def is_share(annotation: Any) -> bool:
    """Whether a field of this annotation is a :data:`Share`."""
    return any(meta is SHARE for meta in _metas(annotation))


def is_timestamp(annotation: Any) -> bool:
    """Whether a field of this annotation is a :data:`Timestamp`."""
    return any(meta is TIMESTAMP for meta in _metas(annotation))
