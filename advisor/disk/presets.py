"""The preset catalogue (``presets.toml``) and the one entry point to get a model.

``get_model(name_or_path)`` accepts a preset name (``st4000vn006``, ``class-7200-desktop``)
or the path of a user's ``drive.toml`` in the same format (docs/drive-spec.md); a user's
drive may name a preset as its ``base``. An unknown name is a :class:`BadInput` that lists
the closest preset names.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from advisor.disk.model import DiskModel
from advisor.disk.spec import DriveSpec, DriveTable, drive_tables, load_toml, resolve
from advisor.errors import BadInput


@dataclass(frozen=True, slots=True)
class PresetInfo:
    """A preset as listed by ``advisor disk presets``."""

    name: str
    description: str
    drive_class: str
    sources: dict[str, str]


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, DriveTable]:
    path = resources.files("advisor.disk").joinpath("presets.toml")
    with resources.as_file(path) as real:
        return drive_tables(load_toml(Path(real)), "presets.toml")


def preset_names() -> list[str]:
    """Names of all presets, in file order."""
    return list(_catalogue())


def preset_spec(name: str) -> DriveSpec:
    """The resolved spec of a built-in preset."""
    tables = _catalogue()
    if name not in tables:
        close = difflib.get_close_matches(name, tables, n=4, cutoff=0.4)
        hint = f"did you mean {', '.join(close)}?" if close else "see `advisor disk presets`"
        raise BadInput(f"unknown drive preset {name!r}", hint=hint)
    return resolve(name, tables, {}, "presets.toml")


def list_presets() -> list[PresetInfo]:
    """Every preset with its description, class and per-field sources."""
    out = []
    for name in preset_names():
        spec = preset_spec(name)
        out.append(PresetInfo(spec.name, spec.description, spec.drive_class, spec.sources))
    return out


def load_spec_file(path: Path) -> DriveSpec:
    """Read a user's drive spec; it must define exactly one drive (bases may be presets)."""
    tables = drive_tables(load_toml(path), str(path))
    own = list(tables)
    if len(own) != 1:
        raise BadInput(f"{path}: defines {len(own)} drives ({', '.join(own)}); give a file with exactly one")
    return resolve(own[0], tables, _catalogue(), str(path))


def get_spec(name_or_path: str) -> DriveSpec:
    """Spec of a preset name or of a ``drive.toml`` path."""
    looks_like_path = name_or_path.endswith(".toml") or "/" in name_or_path
    if looks_like_path or (name_or_path not in _catalogue() and Path(name_or_path).is_file()):
        return load_spec_file(Path(name_or_path))
    return preset_spec(name_or_path)


def get_model(name_or_path: str) -> DiskModel:
    """The :class:`DiskModel` of a preset name or of a ``drive.toml`` path."""
    return get_spec(name_or_path).model
