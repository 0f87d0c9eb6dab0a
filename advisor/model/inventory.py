"""The target machine's devices for a tiered plan: what each is, how big, and how it behaves.

An inventory lists devices by medium (``nvme``, ``ssd``, ``hdd``, ``smr-dm``, ``smr-hm``,
``cloud-hdd``, ``array``), capacity and count, each with the model the planner predicts it
with: a measured bench profile (``profile``), a preset (``preset``: a drive preset for
rotating media, a media preset for solid state and cloud volumes) or a drive spec file
(``spec``). ``advisor inventory`` writes one for this host from sysfs; a DBA edits it, or
writes one by hand for a machine that does not exist yet (docs/tiers.md). The file is TOML so
people can edit it; :func:`load_inventory` decodes it with msgspec into :class:`InventoryFile`
records, whose types carry the rules (the media a ``Literal``, ``count`` and ``headroom``
bounded ``Meta`` types), and each refusal says the rule in words and ends with the field's
path as the JSON documents' errors do (``- at `$.device[1].count```).

Limits (docs/tiers.md): the file is read only when it is a regular file of at most
:data:`MAX_INVENTORY_BYTES`; at most :data:`MAX_DEVICE_ENTRIES` ``[[device]]`` tables and
:data:`MAX_DEVICES` devices once ``count`` is expanded; a capacity is a whole number of
bytes up to :data:`~advisor.units.MAX_CAPACITY_BYTES`. The names ``count`` expands to
(``hdd-1`` … ``hdd-4``, :func:`instance_names`) may not repeat another device's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta

from advisor.errors import BadInput
from advisor.model.record import Record
from advisor.model.tomlrecords import Problem, parse_toml
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


Text = Annotated[str, Meta(pattern=r"\S", description="must be a non-empty string")]
"""A name, path or note: not empty, not only blanks."""
Count = Annotated[int, Meta(ge=1, le=MAX_DEVICES, description=f"must be a whole number from 1 to {MAX_DEVICES}")]
Headroom = Annotated[float, Meta(ge=0.0, le=10.0,
                                 description="must be a number from 0 to 10 (0.3 = 30 % growth room)")]
Capacity = Annotated[int | float | str, Meta(description='must be bytes, or a size such as "1 TB" or "16 TiB"')]
Flag = Annotated[bool, Meta(description="must be true or false")]


class DeviceEntry(Record):
    """One ``[[device]]`` table as written (``capacity`` may be a size with its unit)."""

    name: Text
    medium: Medium
    capacity: Capacity
    count: Count = 1
    profile: Text | None = None
    preset: Text | None = None
    spec: Text | None = None
    path: Text | None = None
    model: Text | None = None
    rotational: Flag | None = None
    zoned: Text | None = None
    virtual: Flag = False
    note: Text | None = None


class InventoryFile(Record):
    """An inventory file as written: what :func:`inventory_from_dict` decodes before its own checks."""

    device: Annotated[list[DeviceEntry], Meta(min_length=1, max_length=MAX_DEVICE_ENTRIES)]
    host: Annotated[str, Meta(description="must be a string (the machine's name)")] = ""
    headroom: Headroom = 0.3
    document: Literal["inventory"] = "inventory"
    format_version: Annotated[int, Meta(ge=1, le=INVENTORY_FORMAT_VERSION)] = INVENTORY_FORMAT_VERSION


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


def instance_names(device: InventoryDevice) -> list[str]:
    """The names the planner gives the devices of one entry: its name, or ``name-1`` … ``name-N``."""
    return [device.name] if device.count == 1 else [f"{device.name}-{n + 1}" for n in range(device.count)]


def inventory_from_dict(raw: Mapping[str, Any], where: str) -> Inventory:
    """The parsed TOML table of an inventory decoded and checked (see docs/tiers.md for the format).

    msgspec decodes it into :class:`InventoryFile` (types, ranges, unknown and missing keys,
    each refusal naming its path as the JSON documents' do); what one field cannot say by
    itself is checked after: a capacity's unit, one model per device, unique names.
    """
    from advisor.model.tomlrecords import decode

    document = decode(raw, InventoryFile, where, partial(_words, raw))
    devices = tuple(_device(entry, index, where) for index, entry in enumerate(document.device))
    _check_names(devices, where)
    return Inventory(devices=devices, host=document.host, headroom=document.headroom)


def _words(raw: Mapping[str, Any], problem: Problem) -> str | None:
    """The inventory's own message for *problem*, prefixed with the device it is about (None: the default)."""
    steps = problem.steps
    if steps[:1] == ("document",):
        return f"document is {problem.value!r}, not an inventory"
    if steps[:1] == ("format_version",):
        return (f"inventory format_version {problem.value!r} is not one this advisor reads "
                f"(1..{INVENTORY_FORMAT_VERSION})")
    if steps == ("device",) or (problem.kind == "missing" and problem.key == "device"):
        tables = raw.get("device")
        if isinstance(tables, list) and len(tables) > MAX_DEVICE_ENTRIES:
            return (f"{len(tables):,} [[device]] entries; at most {MAX_DEVICE_ENTRIES} are read "
                    "(list each kind of device once and give it a count)")
        return "no [[device]] entries (list each device kind as a [[device]] table)"
    if len(steps) >= 2 and steps[0] == "device" and isinstance(steps[1], int):
        tables = raw.get("device")
        table = tables[steps[1]] if isinstance(tables, list) else None
        message = "must be a table" if len(steps) == 2 and problem.kind == "value" else problem.default_message()
        return f"{_subject(table, steps[1])}: {message}"
    return None


def _subject(table: object, index: int) -> str:
    """``device 'nvme0'`` when the entry has a usable name, else ``device 3`` (counted from 1)."""
    name = table.get("name") if isinstance(table, dict) else None
    return f"device {name!r}" if isinstance(name, str) and name.strip() else f"device {index + 1}"


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


def _device(entry: DeviceEntry, index: int, where: str) -> InventoryDevice:
    """One decoded ``[[device]]`` table as the planner's device: capacity in bytes, one model source."""
    subject = f"{where}: device {entry.name!r}"
    at = f" - at `$.device[{index}]`"
    try:
        capacity = parse_capacity(entry.capacity, subject)
    except BadInput as exc:
        raise BadInput(f"{exc.message} - at `$.device[{index}].capacity`", hint=exc.hint) from None
    sources = [k for k in ("profile", "preset", "spec") if getattr(entry, k) is not None]
    if len(sources) > 1:
        raise BadInput(f"{subject}: give one of profile, preset or spec, not {' and '.join(sources)}{at}")
    return InventoryDevice(
        name=entry.name, medium=entry.medium, capacity_bytes=capacity, count=entry.count,
        profile=entry.profile, preset=entry.preset, spec=entry.spec, path=entry.path, model=entry.model,
        rotational=entry.rotational, zoned=entry.zoned, virtual=entry.virtual, note=entry.note,
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
