"""The target machine's devices for a tiered plan: what each is, how big, and how it behaves.

An inventory lists devices by medium (``nvme``, ``ssd``, ``hdd``, ``smr-dm``, ``smr-hm``,
``cloud-hdd``, ``array``), capacity and count, each with the model the planner predicts it
with: a measured bench profile (``profile``), a preset (``preset``: a drive preset for
rotating media, a media preset for solid state and cloud volumes) or a drive spec file
(``spec``). ``advisor inventory`` writes one for this host from sysfs; a DBA edits it, or
writes one by hand for a machine that does not exist yet (docs/tiers.md). The file is TOML so
people can edit it; :func:`load_inventory` reads and validates it, naming the field at fault.

Limits (docs/tiers.md): the file is read only when it is a regular file of at most
:data:`MAX_INVENTORY_BYTES`; at most :data:`MAX_DEVICE_ENTRIES` ``[[device]]`` tables and
:data:`MAX_DEVICES` devices once ``count`` is expanded; a capacity is a whole number of
bytes up to :data:`~advisor.units.MAX_CAPACITY_BYTES`. The names ``count`` expands to
(``hdd-1`` … ``hdd-4``, :func:`instance_names`) may not repeat another device's name.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from advisor.errors import BadInput
from advisor.model.record import Record
from advisor.units import MIB, parse_capacity

INVENTORY_FORMAT_VERSION = 1
MAX_INVENTORY_BYTES = 1 * MIB
"""An inventory of the largest machine is a few kB: a bigger file is not one."""
MAX_DEVICE_ENTRIES = 256
MAX_DEVICES = 1024
"""``[[device]]`` tables, and devices once ``count`` is expanded: the planner weighs every pair."""

Medium = Literal["nvme", "ssd", "hdd", "smr-dm", "smr-hm", "cloud-hdd", "array"]

MEDIA: tuple[str, ...] = ("nvme", "ssd", "hdd", "smr-dm", "smr-hm", "cloud-hdd", "array")
"""Every medium an inventory may name, fastest class first."""

SOLID_STATE_MEDIA = frozenset({"nvme", "ssd"})
ROTATING_MEDIA = frozenset({"hdd", "smr-dm", "smr-hm"})
"""Media with zones and seeks: the zone optimizer orders areas on each of them."""


class InventoryDevice(Record):
    """One kind of device on the target machine; ``count`` identical ones (one actuator each).

    Exactly one of ``profile`` (an ``advisor bench`` JSON file), ``preset`` or ``spec``
    (a drive.toml) gives the model. ``path``, ``model``, ``rotational`` and ``zoned`` are
    what sysfs said when ``advisor inventory`` wrote the entry (for the reader; the planner
    does not need them).
    """

    name: str
    medium: Medium
    capacity_bytes: int
    count: int = 1
    profile: str | None = None
    preset: str | None = None
    spec: str | None = None
    path: str | None = None
    model: str | None = None
    rotational: bool | None = None
    zoned: str | None = None
    virtual: bool = False
    note: str | None = None


class Inventory(Record):
    """The devices a tiered plan may use, and the growth headroom each area gets."""

    devices: tuple[InventoryDevice, ...]
    host: str = ""
    headroom: float = 0.3
    document: Literal["inventory"] = "inventory"
    format_version: int = INVENTORY_FORMAT_VERSION


def load_inventory(path: Path | str) -> Inventory:
    """Read and validate an inventory file; any mistake is one BadInput line naming the field."""
    from advisor.model.jsonio import read_regular_file

    source = Path(path)
    if not source.exists() and not source.is_symlink():
        raise BadInput(f"{source}: no such inventory file", hint="write one with `advisor inventory -o FILE`")
    data = read_regular_file(source, MAX_INVENTORY_BYTES, "inventory file")
    return inventory_from_dict(parse_toml(data, str(source)), str(source))


def parse_toml(data: bytes, where: str) -> dict[str, Any]:
    """TOML text as a table; a file that is not UTF-8, not TOML or nested past Python's stack is one line."""
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BadInput(f"{where}: not UTF-8 at byte {exc.start}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{where}: not valid TOML ({exc})") from None
    except RecursionError:
        raise BadInput(f"{where}: not valid TOML (arrays or tables nested too deeply)") from None


def instance_names(device: InventoryDevice) -> list[str]:
    """The names the planner gives the devices of one entry: its name, or ``name-1`` … ``name-N``."""
    return [device.name] if device.count == 1 else [f"{device.name}-{n + 1}" for n in range(device.count)]


def inventory_from_dict(raw: Mapping[str, Any], where: str) -> Inventory:
    """Validate the parsed TOML table of an inventory (see docs/tiers.md for the format)."""
    document = raw.get("document", "inventory")
    if document != "inventory":
        raise BadInput(f"{where}: document is {document!r}, not an inventory")
    version = raw.get("format_version", INVENTORY_FORMAT_VERSION)
    if not isinstance(version, int) or version > INVENTORY_FORMAT_VERSION or version < 1:
        raise BadInput(f"{where}: inventory format_version {version!r} is not one this advisor reads "
                       f"(1..{INVENTORY_FORMAT_VERSION})")
    unknown = set(raw) - {"document", "format_version", "host", "headroom", "device"}
    if unknown:
        raise BadInput(f"{where}: unknown key {sorted(unknown)[0]!r} (keys: host, headroom, [[device]])")
    headroom = raw.get("headroom", 0.3)
    if isinstance(headroom, bool) or not isinstance(headroom, int | float) or not 0.0 <= headroom <= 10.0:
        raise BadInput(f"{where}: headroom {headroom!r} must be a number from 0 to 10 (0.3 = 30 % growth room)")
    tables = raw.get("device")
    if not isinstance(tables, list) or not tables:
        raise BadInput(f"{where}: no [[device]] entries", hint="list each device kind as a [[device]] table")
    if len(tables) > MAX_DEVICE_ENTRIES:
        raise BadInput(f"{where}: {len(tables):,} [[device]] entries; at most {MAX_DEVICE_ENTRIES} are read",
                       hint="list each kind of device once and give it a count")
    devices = tuple(_device(t, f"{where}: device {i + 1}") for i, t in enumerate(tables))
    _check_names(devices, where)
    host = raw.get("host", "")
    return Inventory(devices=devices, host=str(host), headroom=float(headroom))


def _check_names(devices: tuple[InventoryDevice, ...], where: str) -> None:
    """Each device name once, also after ``count`` expansion (``hdd`` x2 gives ``hdd-1``, ``hdd-2``)."""
    names = [d.name for d in devices]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise BadInput(f"{where}: device name {duplicate!r} appears twice")
    total = sum(d.count for d in devices)
    if total > MAX_DEVICES:
        raise BadInput(f"{where}: {total:,} devices once count is expanded; at most {MAX_DEVICES} are planned")
    owner: dict[str, InventoryDevice] = {}
    for device in devices:
        for expanded in instance_names(device):
            if expanded in owner:
                raise BadInput(f"{where}: the device name {expanded!r} is given twice: by "
                               f"{_described(owner[expanded])} and by {_described(device)}",
                               hint="rename one of them")
            owner[expanded] = device


def _described(device: InventoryDevice) -> str:
    """``device 'hdd' (count 2: hdd-1 … hdd-2)`` or ``device 'hdd-1'``."""
    if device.count == 1:
        return f"device {device.name!r}"
    names = instance_names(device)
    return f"device {device.name!r} (count {device.count}: {names[0]} … {names[-1]})"


_DEVICE_KEYS = {"name", "medium", "capacity", "count", "profile", "preset", "spec", "path", "model",
                "rotational", "zoned", "virtual", "note"}


def _text(table: Mapping[str, Any], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise BadInput(f"{where}: {key} must be a non-empty string")
    return value


def _device(table: object, where: str) -> InventoryDevice:
    if not isinstance(table, dict):
        raise BadInput(f"{where}: must be a table")
    unknown = set(table) - _DEVICE_KEYS
    if unknown:
        raise BadInput(f"{where}: unknown key {sorted(unknown)[0]!r} (keys: {', '.join(sorted(_DEVICE_KEYS))})")
    name = _text(table, "name", where)
    if name is None:
        raise BadInput(f"{where}: name is missing")
    where = f"{where.rsplit(': ', 1)[0]}: device {name!r}"
    medium = table.get("medium")
    if medium not in MEDIA:
        raise BadInput(f"{where}: medium {medium!r} is not one of {', '.join(MEDIA)}")
    if "capacity" not in table:
        raise BadInput(f"{where}: capacity is missing (bytes, or a size such as \"1 TB\" or \"16 TiB\")")
    capacity = parse_capacity(table["capacity"], where)
    count = table.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 1024:
        raise BadInput(f"{where}: count {count!r} must be a whole number from 1 to 1024")
    sources = [k for k in ("profile", "preset", "spec") if table.get(k) is not None]
    if len(sources) > 1:
        raise BadInput(f"{where}: give one of profile, preset or spec, not {' and '.join(sources)}")
    rotational = table.get("rotational")
    if rotational is not None and not isinstance(rotational, bool):
        raise BadInput(f"{where}: rotational must be true or false")
    virtual = table.get("virtual", False)
    if not isinstance(virtual, bool):
        raise BadInput(f"{where}: virtual must be true or false")
    return InventoryDevice(
        name=name, medium=medium, capacity_bytes=capacity, count=count,
        profile=_text(table, "profile", where), preset=_text(table, "preset", where),
        spec=_text(table, "spec", where), path=_text(table, "path", where), model=_text(table, "model", where),
        rotational=rotational, zoned=_text(table, "zoned", where), virtual=virtual, note=_text(table, "note", where),
    )


def inventory_toml(inventory: Inventory) -> str:
    """The inventory as the TOML text ``advisor inventory`` writes (round-trips through the loader)."""
    import tomli_w

    devices = []
    for d in inventory.devices:
        entry: dict[str, Any] = {"name": d.name, "medium": d.medium, "capacity": d.capacity_bytes, "count": d.count}
        for key in ("profile", "preset", "spec", "path", "model", "rotational", "zoned", "note"):
            value = getattr(d, key)
            if value is not None:
                entry[key] = value
        if d.virtual:
            entry["virtual"] = True
        devices.append(entry)
    body = {"document": "inventory", "format_version": inventory.format_version, "host": inventory.host,
            "headroom": inventory.headroom, "device": devices}
    header = ("# advisor inventory: the devices a tiered plan may use (docs/tiers.md).\n"
              "# Edit freely: medium, capacity (bytes or \"1 TB\", \"16 TiB\"), count, and one model per device:\n"
              "# profile = \"disk.json\" (advisor bench), preset = \"<name>\" (advisor disk presets)\n"
              "# or spec = \"drive.toml\".\n")
    return header + tomli_w.dumps(body)
