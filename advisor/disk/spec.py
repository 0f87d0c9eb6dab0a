"""The drive spec format (TOML): presets, users' ``drive.toml`` and fitted models.

One format everywhere (documented in docs/drive-spec.md)::

    [drive.my-disk]
    base = "class-7200-desktop"     # optional: inherit every field not given here
    description = "Barracuda in the DB server"
    capacity_bytes = 2_000_000_000_000
    r_od_mb_s_decimal = 190.0

    [drive.my-disk.sources]         # where each number comes from (optional for users)
    r_od_mb_s_decimal = "advisor bench zones, 2026-05-01"

Fields are those of :class:`advisor.disk.model.DiskModel` plus ``base``, ``description``,
``class`` and ``sources``. A field inherited from ``base`` gets the source
``"<base> default: <the base's source>"`` so every number of every model stays traceable.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta

from advisor.disk.model import DiskModel
from advisor.errors import BadInput
from advisor.model.record import Record, field
from advisor.model.tomlrecords import Problem, current_keys, decode, given_twice, parse_toml, rule_of, type_at
from advisor.model.validate import LARGEST
from advisor.units import MIB

META_KEYS = ("base", "description", "class", "sources")
MODEL_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(DiskModel) if f.init and f.name != "name")
INT_FIELDS = ("capacity_bytes", "read_ahead_bytes", "cache_bytes", "heads", "cylinders")
PAIR_FIELDS = ("zones", "seek_table")
RENAMED_KEYS = {"r_od_mb_s": "r_od_mb_s_decimal"}
"""Keys by their earlier names, read forever with the same meaning (in a drive table, where
:class:`DriveTable` reads each as a field of its own so a refusal names the key as written, and
in its ``sources``): the drive's megabyte is 10^6 bytes, and ``_mb_s`` alone names MiB/s in advisor."""
Number = Annotated[float, Meta(ge=-LARGEST, le=LARGEST, description="a number")]
"""A finite number (NaN, infinities and overflow such as 1e308 are refused by the bounds)."""
Whole = Annotated[int, Meta(ge=0, description="a whole number")] | Annotated[
    float, Meta(ge=0.0, le=LARGEST, description="a whole number")]
"""A count or size: an integer, or a float with no fraction (``2e12``), checked when resolved."""
Pairs = Annotated[list[tuple[Number, Number]], Meta(description="a list of [number, number] pairs")]
WriteCacheWord = Annotated[Literal["off", "volatile", "battery"], Meta(description='"off", "volatile" or "battery"')]


class DriveTable(Record):
    """One ``[drive.NAME]`` table as written: every model field optional (a ``base`` gives the rest)."""

    base: Annotated[str, Meta(description="a drive name")] | None = None
    description: str | None = None
    drive_class: str | None = field(default=None, name="class")
    sources: Annotated[dict[str, str], Meta(description="a table of texts (field = \"where it comes from\")")] = (
        field(default_factory=dict))
    capacity_bytes: Whole | None = None
    rpm: Number | None = None
    r_od_mb_s_decimal: Number | None = None
    earlier_r_od_mb_s_decimal: Number | None = field(default=None, name="r_od_mb_s")
    """``r_od_mb_s``, the earlier key of ``r_od_mb_s_decimal`` (:data:`RENAMED_KEYS`): moved there once decoded."""
    rho: Number | None = None
    zones: Pairs | None = None
    seek_track_ms: Number | None = None
    seek_avg_ms: Number | None = None
    seek_full_ms: Number | None = None
    seek_table: Pairs | None = None
    overhead_ms: Number | None = None
    head_switch_ms: Number | None = None
    write_settle_ms: Number | None = None
    read_ahead_bytes: Whole | None = None
    cache_bytes: Whole | None = None
    write_cache: WriteCacheWord | None = None
    heads: Whole | None = None
    cylinders: Whole | None = None


class SpecFile(Record):
    """A drive spec file: one or more ``[drive.NAME]`` tables and nothing else (each decoded on its own)."""

    drive: Annotated[dict[str, Any], Meta(min_length=1)]


@dataclass(frozen=True, slots=True)
class DriveSpec:
    """One resolved drive entry: the model plus what describes it."""

    name: str
    description: str
    drive_class: str
    sources: dict[str, str]
    model: DiskModel


MAX_SPEC_BYTES = MIB
"""A drive spec is a few hundred bytes; /dev/zero or a FIFO given as one is refused, never read."""


def load_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file (a regular file up to :data:`MAX_SPEC_BYTES`); any failure is a one-line BadInput."""
    from advisor.model.jsonio import read_regular_file

    data = read_regular_file(path, MAX_SPEC_BYTES, "drive spec")
    return parse_toml(data, str(path), "TOML drive spec")  # the one TOML reader (inventories use it too)


def drive_tables(document: Mapping[str, Any], where: str) -> dict[str, DriveTable]:
    """The ``[drive.NAME]`` tables of a parsed document, decoded (types, finite numbers, known keys)."""
    drives = decode(document, SpecFile, where, _file_words).drive
    return {name: _current(decode(table, DriveTable, where, partial(_words, name), at=f"$.drive.{name}"),
                           f"{where}: drive.{name}")
            for name, table in drives.items()}


def _current(table: DriveTable, where: str) -> DriveTable:
    """*table* with the figures and sources given under an earlier key (:data:`RENAMED_KEYS`) under the current one."""
    sources = current_keys(table.sources, RENAMED_KEYS, f"{where}.sources")
    earlier = table.earlier_r_od_mb_s_decimal
    if earlier is None:
        return dataclasses.replace(table, sources=sources)
    if table.r_od_mb_s_decimal is not None:
        raise given_twice(where, "r_od_mb_s", "r_od_mb_s_decimal")
    return dataclasses.replace(table, sources=sources, r_od_mb_s_decimal=earlier, earlier_r_od_mb_s_decimal=None)


def _file_words(problem: Problem) -> str:
    return "expected one or more [drive.NAME] tables and nothing else"


def _words(name: str, problem: Problem) -> str:
    """A refusal in the drive spec's terms: ``drive.x.rpm: expected a number, found 'fast'``."""
    if problem.kind == "unknown":
        return f"drive.{name} has unknown keys: {problem.key}"
    if not problem.steps:
        return f"drive.{name} must be a table"
    key = problem.steps[0]
    rule = rule_of(type_at(DriveTable, (RENAMED_KEYS.get(str(key), key),))) or "another value"
    found = f", found {problem.value!r}" if problem.value is not None else ""
    return f"drive.{name}.{key}: expected {rule}{found}"


def _value(name: str, key: str, value: Any, where: str) -> Any:
    """A decoded field as the model takes it: pairs as tuples, whole numbers as int, 0 cylinders as unset."""
    if key in PAIR_FIELDS:
        return tuple((float(a), float(b)) for a, b in value)
    if key == "write_cache":
        return value
    if key == "cylinders" and value == 0:
        return None
    if key in INT_FIELDS:
        if float(value) != int(value):
            raise BadInput(f"{where}: drive.{name}.{key}: expected a whole number, found {value!r} "
                           f"- at `$.drive.{name}.{key}`")
        return int(value)
    return float(value)


def resolve(
    name: str, tables: Mapping[str, DriveTable], fallback: Mapping[str, DriveTable], where: str
) -> DriveSpec:
    """Build the spec of drive *name*, following ``base`` through *tables* then *fallback*."""
    chain: list[tuple[str, DriveTable]] = []
    current: str | None = name
    while current is not None:
        if any(current == seen for seen, _ in chain):
            raise BadInput(f"{where}: drive.{name} has a base cycle through {current!r}")
        table = tables.get(current) if current in tables else fallback.get(current)
        if table is None:
            close = difflib.get_close_matches(current, [*tables, *fallback], n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise BadInput(f"{where}: drive {current!r} is not defined{hint}")
        chain.append((current, table))
        current = table.base
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    previous = ""
    for owner, table in reversed(chain):  # base first, the drive itself last
        if previous:
            sources = {key: f"{previous} default: {text}" for key, text in sources.items()}
        previous = owner
        for key in MODEL_FIELDS:
            value = getattr(table, key)
            if value is not None:
                values[key] = _value(owner, key, value, where)
                sources[key] = table.sources.get(key, "given in the spec without a source")
    top = chain[0][1]
    description = top.description if top.description is not None else (chain[-1][1].description or "")
    drive_class = next((owner for owner, t in chain if t.drive_class == "class"), "custom")
    missing = [key for key in ("capacity_bytes", "rpm", "r_od_mb_s_decimal") if key not in values]
    if missing:
        raise BadInput(f"{where}: drive.{name} lacks {', '.join(missing)} (give them or a base)")
    model = DiskModel(name=name, **values)
    for key in MODEL_FIELDS:
        sources.setdefault(key, "built-in default of the model")
    return DriveSpec(name=name, description=description, drive_class=drive_class, sources=sources, model=model)


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:_}" if abs(value) >= 10000 else str(value)
    if isinstance(value, float):
        return repr(round(value, 6))
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def to_toml(model: DiskModel, description: str = "", sources: Mapping[str, str] | None = None) -> str:
    """Render *model* as a ``[drive.NAME]`` table that :func:`resolve` reads back."""
    key = model.name if model.name.replace("-", "").replace("_", "").isalnum() else f'"{model.name}"'
    lines = [f"[drive.{key}]"]
    if description:
        lines.append(f"description = {_toml_value(description)}")
    for field_name in MODEL_FIELDS:
        value = getattr(model, field_name)
        if value is None or (field_name in PAIR_FIELDS and not value):
            continue
        lines.append(f"{field_name} = {_toml_value(value)}")
    if sources:
        lines += ["", f"[drive.{key}.sources]"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in sources.items() if k in MODEL_FIELDS]
    return "\n".join(lines) + "\n"
