"""The drive spec format (TOML): presets, users' ``drive.toml`` and fitted models.

One format everywhere (documented in docs/drive-spec.md)::

    [drive.my-disk]
    base = "class-7200-desktop"     # optional: inherit every field not given here
    description = "Barracuda in the DB server"
    capacity_bytes = 2_000_000_000_000
    r_od_mb_s = 190.0

    [drive.my-disk.sources]         # where each number comes from (optional for users)
    r_od_mb_s = "advisor bench zones, 2026-05-01"

Fields are those of :class:`advisor.disk.model.DiskModel` plus ``base``, ``description``,
``class`` and ``sources``. A field inherited from ``base`` gets the source
``"<base> default: <the base's source>"`` so every number of every model stays traceable.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.disk.model import DiskModel
from advisor.errors import BadInput

META_KEYS = ("base", "description", "class", "sources")
MODEL_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(DiskModel) if f.init and f.name != "name")
INT_FIELDS = ("capacity_bytes", "read_ahead_bytes", "cache_bytes", "heads", "cylinders")
PAIR_FIELDS = ("zones", "seek_table")


@dataclass(frozen=True, slots=True)
class DriveSpec:
    """One resolved drive entry: the model plus what describes it."""

    name: str
    description: str
    drive_class: str
    sources: dict[str, str]
    model: DiskModel


MAX_SPEC_BYTES = 1 << 20
"""A drive spec is a few hundred bytes; /dev/zero or a FIFO given as one is refused, never read."""


def load_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file (a regular file up to :data:`MAX_SPEC_BYTES`); any failure is a one-line BadInput."""
    from advisor.model.jsonio import read_regular_file

    data = read_regular_file(path, MAX_SPEC_BYTES, "drive spec")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: not a readable TOML drive spec ({exc})") from None
    except RecursionError:
        raise BadInput(f"{path}: not a readable TOML drive spec (nested too deeply)") from None


def drive_tables(document: Mapping[str, Any], where: str) -> dict[str, dict[str, Any]]:
    """The ``[drive.NAME]`` tables of a parsed document."""
    drives = document.get("drive")
    extra = set(document) - {"drive"}
    if not isinstance(drives, dict) or not drives or extra:
        raise BadInput(f"{where}: expected one or more [drive.NAME] tables and nothing else")
    for name, table in drives.items():
        if not isinstance(table, dict):
            raise BadInput(f"{where}: drive.{name} must be a table")
    return drives


def _coerce(name: str, key: str, value: Any) -> Any:
    where = f"drive.{name}.{key}"
    if key in PAIR_FIELDS:
        if not isinstance(value, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, (int, float)) for v in p) for p in value
        ):
            raise BadInput(f"{where}: expected a list of [number, number] pairs")
        return tuple((float(a), float(b)) for a, b in value)
    if key == "write_cache":
        if not isinstance(value, str):
            raise BadInput(f"{where}: expected \"off\", \"volatile\" or \"battery\"")
        return value
    if key == "cylinders" and value == 0:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadInput(f"{where}: expected a number, found {value!r}")
    if key in INT_FIELDS:
        if float(value) != int(value):
            raise BadInput(f"{where}: expected a whole number")
        return int(value)
    return float(value)


def resolve(
    name: str, tables: Mapping[str, Mapping[str, Any]], fallback: Mapping[str, Mapping[str, Any]], where: str
) -> DriveSpec:
    """Build the spec of drive *name*, following ``base`` through *tables* then *fallback*."""
    chain: list[tuple[str, Mapping[str, Any]]] = []
    current: str | None = name
    while current is not None:
        if any(current == seen for seen, _ in chain):
            raise BadInput(f"{where}: drive.{name} has a base cycle through {current!r}")
        table = tables.get(current) if current in tables else fallback.get(current)
        if table is None:
            close = difflib.get_close_matches(current, [*tables, *fallback], n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise BadInput(f"{where}: drive {current!r} is not defined{hint}")
        unknown = set(table) - set(MODEL_FIELDS) - set(META_KEYS)
        if unknown:
            raise BadInput(f"{where}: drive.{current} has unknown keys: {', '.join(sorted(unknown))}")
        chain.append((current, table))
        base = table.get("base")
        if base is not None and not isinstance(base, str):
            raise BadInput(f"{where}: drive.{current}.base must be a drive name")
        current = base
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    previous = ""
    for owner, table in reversed(chain):  # base first, the drive itself last
        own_sources = table.get("sources", {})
        if not isinstance(own_sources, dict):
            raise BadInput(f"{where}: drive.{owner}.sources must be a table")
        if previous:
            sources = {key: f"{previous} default: {text}" for key, text in sources.items()}
        previous = owner
        for key in MODEL_FIELDS:
            if key in table:
                values[key] = _coerce(owner, key, table[key])
                sources[key] = str(own_sources.get(key, "given in the spec without a source"))
    top = chain[0][1]
    description = str(top.get("description", chain[-1][1].get("description", "")))
    drive_class = next((owner for owner, t in chain if t.get("class") == "class"), "custom")
    missing = [key for key in ("capacity_bytes", "rpm", "r_od_mb_s") if key not in values]
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
