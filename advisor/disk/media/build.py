"""Turn an inventory entry into the model the tier planner predicts with.

Rotating media get the zone physics (a preset, a drive spec or a fitted bench profile) sized
to the device; SMR adds its write side; solid state comes from a bench profile or a media
preset; cloud volumes from a class preset. A device without a model, or with a profile that
contradicts its medium (an ``hdd`` measured as solid state), is refused with one line naming
it and what to do.
"""

from __future__ import annotations

import posixpath
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, ClassVar

from msgspec import Meta

from advisor.disk.media.cloud import CloudVolume
from advisor.disk.media.smr import SmrWrites
from advisor.disk.media.solid import SolidState, from_profile
from advisor.disk.physics import DiskPhysics, ModelPhysics
from advisor.disk.spec import MAX_SPEC_BYTES
from advisor.errors import AdvisorError, BadInput
from advisor.model import DiskProfile
from advisor.model.disk import MAX_PROFILE_BYTES, load_disk_profile
from advisor.model.inventory import ROTATING_MEDIA, SOLID_STATE_MEDIA, InventoryDevice
from advisor.model.record import Record
from advisor.model.validate import LARGEST
from advisor.units import DISK_MB, MIB


@dataclass(frozen=True)
class DeviceModel:
    """What the planner knows about one device kind: zone physics, a flat medium, SMR writes."""

    device: InventoryDevice
    model_name: str
    source: str
    zoned: DiskPhysics | None = None  # rotating media: zone physics sized to the device
    flat: SolidState | CloudVolume | None = None
    smr: SmrWrites | None = None

    @property
    def medium(self) -> str:
        """The inventory's medium."""
        return self.device.medium


Positive = Annotated[float, Meta(gt=0.0, le=LARGEST)]
Amount = Annotated[float, Meta(ge=0.0, le=LARGEST)]


class SolidPreset(Record):
    """A ``[solid.NAME]`` media preset: latency by IO and a throughput ceiling."""

    kind: ClassVar[str] = "a solid-state (nvme, ssd) media preset"
    description: str
    read_ms: Positive
    write_ms: Positive
    max_iops: Positive
    mb_s_decimal: Positive
    source: str


class CloudPreset(Record):
    """A ``[cloud.NAME]`` volume class: an IOPS cap and a throughput baseline per TiB."""

    kind: ClassVar[str] = "a cloud volume (cloud-hdd) preset"
    description: str
    iops_cap: Positive
    baseline_mb_s_decimal_per_tib: Positive
    burst_mb_s_decimal_per_tib: Positive
    max_mib_s: Positive
    latency_ms: Positive
    source: str


class SmrPreset(Record):
    """A ``[smr.NAME]`` write side of an SMR drive; its reads are the CMR drive preset it names."""

    kind: ClassVar[str] = "an SMR (smr-dm, smr-hm) media preset"
    description: str
    cmr_preset: str
    media_cache_bytes: Annotated[int, Meta(ge=0)]
    cleaning_iops: Amount
    source: str
    host_managed: bool | None = None
    """None: as the medium says (``smr-hm`` is host-managed)."""


MediaPreset = SolidPreset | CloudPreset | SmrPreset


class MediaPresetFile(Record):
    """``advisor/disk/media/presets.toml``: the three sections by preset name."""

    solid: dict[str, SolidPreset]
    cloud: dict[str, CloudPreset]
    smr: dict[str, SmrPreset]


@cache
def media_presets() -> dict[str, MediaPreset]:
    """Every media preset by name, decoded into its section's record."""
    from advisor.model.tomlrecords import decode, parse_toml

    where = "advisor/disk/media/presets.toml"
    data = resources.files("advisor.disk.media").joinpath("presets.toml").read_bytes()
    sections = decode(parse_toml(data, where), MediaPresetFile, where)
    return {**sections.solid, **sections.cloud, **sections.smr}


def _preset_kind(name: str) -> str:
    """What kind of model a preset name is, for a message: a media preset's section, a drive preset, or none."""
    from advisor.disk.presets import preset_names

    found = media_presets().get(name)
    if found is not None:
        return found.kind
    if name in preset_names():
        return "a drive (hdd) preset"
    return "not a preset advisor knows"


def _no_model(device: InventoryDevice) -> BadInput:
    kinds: dict[str, type[MediaPreset]] = {"nvme": SolidPreset, "ssd": SolidPreset, "cloud-hdd": CloudPreset,
                                           "smr-dm": SmrPreset, "smr-hm": SmrPreset}
    wanted = kinds.get(device.medium)
    names = sorted(n for n, v in media_presets().items() if isinstance(v, wanted)) if wanted else []
    suggestion = f"preset = one of {', '.join(names)}" if names else "preset = a drive preset (advisor disk presets)"
    problem = "has no model"
    if device.preset is not None:
        problem = f"has preset {device.preset!r}, which is {_preset_kind(device.preset)}: no model for {device.medium}"
    return BadInput(f"device {device.name!r} ({device.medium}) {problem}",
                    hint=f"measure it with `advisor bench` and set profile = \"disk.json\", or set {suggestion}")


def _model_file(device: InventoryDevice, name: str, base_dir: Path, limit: int, what: str) -> Path:
    """The path of a profile or spec file, refused unless a regular file of at most *limit* bytes."""
    path = Path(name)
    path = path if path.is_absolute() else base_dir / path
    try:
        info = path.stat()
    except FileNotFoundError:
        raise BadInput(f"device {device.name!r}: {what} {path}: no such file") from None
    except OSError as exc:
        raise BadInput(f"device {device.name!r}: {what} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise BadInput(f"device {device.name!r}: {what} {path} is not a regular file")
    if info.st_size > limit:
        raise BadInput(f"device {device.name!r}: {what} {path} is {info.st_size:,} bytes; at most {limit:,} are read",
                       hint="is this the right file?")
    return path




def _profile(device: InventoryDevice, base_dir: Path) -> DiskProfile:
    assert device.profile is not None
    return load_disk_profile(_model_file(device, device.profile, base_dir, MAX_PROFILE_BYTES, "profile"))


def _rotating(device: InventoryDevice, base_dir: Path, smr: SmrWrites | None, cmr_preset: str | None) -> DeviceModel:
    from advisor.disk.fit import fit_profile
    from advisor.disk.presets import get_model

    if device.profile is not None:
        profile = _profile(device, base_dir)
        if profile.classification == "solid-state":
            raise BadInput(f"device {device.name!r} is listed as {device.medium} but its profile {device.profile} "
                           f"measured solid state ({profile.classification_reason})",
                           hint="fix the medium or the profile")
        try:
            model = fit_profile(profile, None).model
        except AdvisorError:
            raise
        except (ValueError, ArithmeticError) as exc:
            raise BadInput(f"device {device.name!r}: cannot fit a disk model to {device.profile} ({exc})") from None
        source = f"advisor bench of {profile.target}"
    else:
        name = device.spec or device.preset or cmr_preset
        if name is None:
            raise _no_model(device)
        if device.spec is not None:
            name = str(_model_file(device, name, base_dir, MAX_SPEC_BYTES, "drive spec"))
        try:
            model = get_model(name)
        except AdvisorError:
            raise
        except (ValueError, KeyError, OSError) as exc:
            raise BadInput(f"device {device.name!r}: no drive preset or spec {name!r} ({exc})") from None
        source = f"drive preset {model.name}" if device.spec is None else f"drive spec {device.spec}"
    sized = model.with_changes(capacity_bytes=device.capacity_bytes, cylinders=None)
    if smr is not None:
        source = f"reads: {source}; writes: {smr.source}"
    return DeviceModel(device, model.name, source, zoned=ModelPhysics(sized), smr=smr)


def build_device_model(device: InventoryDevice, base_dir: Path) -> DeviceModel:
    """The model of one inventory device (see the module docstring for the rules)."""
    preset = media_presets().get(device.preset) if device.preset else None
    if device.medium in ROTATING_MEDIA:
        smr = None
        cmr = None
        if device.medium in ("smr-dm", "smr-hm"):
            values = preset if isinstance(preset, SmrPreset) else media_presets()[device.medium]
            assert isinstance(values, SmrPreset)  # the file's smr section names one preset per SMR medium
            host_managed = values.host_managed if values.host_managed is not None else device.medium == "smr-hm"
            smr = SmrWrites(host_managed=host_managed, media_cache_bytes=values.media_cache_bytes,
                            cleaning_iops=values.cleaning_iops, source=values.source)
            cmr = values.cmr_preset
            if isinstance(preset, SmrPreset):
                device = _without_preset(device)
        elif preset is not None:
            raise BadInput(f"device {device.name!r} is an hdd but preset {device.preset!r} is "
                           f"{_preset_kind(str(device.preset))}", hint="use a drive preset (advisor disk presets)")
        return _rotating(device, base_dir, smr, cmr)
    if device.medium in SOLID_STATE_MEDIA or device.medium == "array":
        if device.profile is not None:
            profile = _profile(device, base_dir)
            if profile.classification == "rotational" and device.medium != "array":
                raise BadInput(f"device {device.name!r} is listed as {device.medium} but its profile {device.profile} "
                               f"measured a rotating disk ({profile.classification_reason})",
                               hint="fix the medium or the profile")
            flat = from_profile(profile, device.name)
            return DeviceModel(device, flat.name, flat.source, flat=flat)
        if not isinstance(preset, SolidPreset):
            raise _no_model(device)
        flat = solid_state(str(device.preset), preset)
        return DeviceModel(device, flat.name, flat.source, flat=flat)
    # cloud-hdd
    if not isinstance(preset, CloudPreset):
        raise _no_model(device)
    volume = CloudVolume(
        name=str(device.preset), capacity_bytes=device.capacity_bytes, iops_cap=preset.iops_cap,
        baseline_mb_s_decimal_per_tib=preset.baseline_mb_s_decimal_per_tib,
        burst_mb_s_decimal_per_tib=preset.burst_mb_s_decimal_per_tib,
        max_mb_s_decimal=preset.max_mib_s * MIB / DISK_MB, latency_ms=preset.latency_ms, source=preset.source,
    )
    return DeviceModel(device, volume.name, volume.source, flat=volume)


def solid_state(name: str, preset: SolidPreset) -> SolidState:
    """The solid-state model of a media preset."""
    return SolidState(name=name, read_ms=preset.read_ms, write_ms=preset.write_ms, max_iops=preset.max_iops,
                      mb_s_decimal=preset.mb_s_decimal, source=preset.source)


def _without_preset(device: InventoryDevice) -> InventoryDevice:
    from dataclasses import replace

    return replace(device, preset=None)


def by_disk_name(models: Sequence[DeviceModel]) -> dict[str, DeviceModel]:
    """Each inventory device under the names today's layout may show it by: its name, its path's."""
    out: dict[str, DeviceModel] = {}
    for m in models:
        out[m.device.name] = m
        if m.device.path:
            out[posixpath.basename(m.device.path)] = m
    return out
