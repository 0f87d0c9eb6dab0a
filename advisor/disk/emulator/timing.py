"""Which timing model the emulator runs, in a form that crosses into the FUSE child process.

The FUSE server is a separate process, so the model travels as a :class:`TimingSpec`: the
dotted path of a factory plus JSON keyword arguments. Presets travel by name, a
``DiskModel`` as JSON. :class:`ConstantTiming` is a model-free timing (every request takes
the same time, FIFO) used to measure the emulator's own overhead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from advisor.errors import BadInput


@dataclass(frozen=True)
class TimingSpec:
    """A timing model to build in the server: ``factory(**kwargs)``; ``model`` is informative."""

    factory: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    model: Any = None


class ConstantTiming:
    """Every request takes ``latency_ms`` (flushes ``flush_ms``), served first come first served."""

    def __init__(self, latency_ms: float = 0.0, flush_ms: float = 0.0) -> None:
        self.latency_s = latency_ms / 1000.0
        self.flush_s = flush_ms / 1000.0

    def service(self, op: str, offset_bytes: int, length_bytes: int, start_s: float) -> float:
        """Finish after the constant latency."""
        return start_s + (self.flush_s if op == "flush" else self.latency_s)

    def choose(self, pending: Sequence[Any], now_s: float) -> int:
        """FIFO."""
        return 0


def constant_timing(latency_ms: float = 0.0, flush_ms: float = 0.0) -> ConstantTiming:
    """Factory used through :class:`TimingSpec` (kwargs are JSON)."""
    return ConstantTiming(latency_ms, flush_ms)


def constant(latency_ms: float = 0.0, flush_ms: float = 0.0) -> TimingSpec:
    """A :class:`TimingSpec` for :class:`ConstantTiming`."""
    return TimingSpec("advisor.disk.emulator.timing:constant_timing",
                      {"latency_ms": latency_ms, "flush_ms": flush_ms})


def model_to_jsonable(model: Any) -> dict[str, Any]:
    """A DiskModel as plain JSON: its constructor fields only (derived state is rebuilt)."""
    from advisor.model.jsonio import to_jsonable

    return {f.name: to_jsonable(getattr(model, f.name)) for f in dataclasses.fields(model) if f.init}


def model_from_jsonable(data: dict[str, Any]) -> Any:
    """Inverse of :func:`model_to_jsonable` (validated by the model's constructor)."""
    import typing

    from advisor.disk.model import DiskModel
    from advisor.model.jsonio import from_jsonable

    hints = typing.get_type_hints(DiskModel)
    kwargs = {name: from_jsonable(hints[name], value, f"$.{name}") for name, value in data.items()}
    return DiskModel(**kwargs)


def sized_model(model: Any, size_bytes: int | None) -> Any:
    """The model stretched over an emulated disk of *size_bytes* (outer edge to inner edge).

    A 4 GiB file standing for a 4 TB drive keeps the drive's whole surface: LBA fraction
    X of the emulated disk is LBA fraction X of the drive, with the drive's rotation, zone
    rates and seek curve over the stroke. Cylinders are derived again from the smaller
    capacity so a track still holds what it holds on the drive (sequential rates and head
    switches stay right); a measured seek table is rescaled to the new cylinder count.
    Small emulated disks have few cylinders, so seeks inside a narrow band are coarse.
    """
    from advisor.disk.model import DiskModel

    if size_bytes is None or not isinstance(model, DiskModel) or model.capacity_bytes == size_bytes:
        return model
    resized = model.with_changes(capacity_bytes=size_bytes, cylinders=None, seek_table=())
    if not model.seek_table:
        return resized
    ratio = resized.total_cylinders / model.total_cylinders
    table = tuple(sorted({(max(1.0, round(d * ratio)), t) for d, t in model.seek_table}))
    kept: list[tuple[float, float]] = []
    for distance, ms in table:  # one time per distance: the longest seek that collapsed onto it
        if kept and kept[-1][0] == distance:
            kept[-1] = (distance, max(kept[-1][1], ms))
        else:
            kept.append((distance, ms))
    if len(kept) < 2:
        return resized
    return resized.with_changes(seek_table=tuple(kept), cylinders=resized.total_cylinders)


def build_mechanism(model: Any, *, cache: str = "off", seed: int = 0, size_bytes: int | None = None,
                    smr: dict[str, Any] | None = None) -> Any:
    """The disk model's Mechanism for *model* stretched over *size_bytes*, behind an SMR
    media cache when *smr* (:class:`~advisor.disk.emulator.smr.SmrSpec` fields) is given."""
    from advisor.disk.mechanism import Mechanism
    from advisor.units import CacheMode

    mode: CacheMode = "volatile" if cache == "volatile" else "lying" if cache == "lying" else "off"
    mechanism = Mechanism(sized_model(model, size_bytes), seed=seed, write_cache=mode)
    if smr is None:
        return mechanism
    from advisor.disk.emulator.smr import SmrSpec, SmrTiming

    return SmrTiming(mechanism, SmrSpec(**smr))


def timing_spec(
    preset_or_model: Any, *, cache: str = "off", seed: int = 0, size_bytes: int | None = None,
    smr: dict[str, Any] | None = None,
) -> TimingSpec:
    """Turn a preset name, a DiskModel or a TimingSpec into a TimingSpec (*smr*: SmrSpec fields)."""
    if isinstance(preset_or_model, TimingSpec):
        return preset_or_model
    common: dict[str, Any] = {"cache": cache, "seed": seed, "size_bytes": size_bytes}
    if smr is not None:
        common["smr"] = smr
    if isinstance(preset_or_model, str):
        from advisor.disk.presets import get_model

        try:
            model = get_model(preset_or_model)
        except (KeyError, LookupError) as exc:
            raise BadInput(f"unknown disk preset {preset_or_model!r}", hint="see advisor disk presets") from exc
        return TimingSpec("advisor.disk.emulator.server:mechanism_from_preset",
                          {"preset": preset_or_model, **common}, model)
    if dataclasses.is_dataclass(preset_or_model):
        return TimingSpec("advisor.disk.emulator.server:mechanism_from_model",
                          {"model": model_to_jsonable(preset_or_model), **common}, preset_or_model)
    raise BadInput(f"not a disk preset or model: {type(preset_or_model).__name__}")
