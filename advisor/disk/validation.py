"""The validation set of the disk model: published figures next to what the model gives.

Each :class:`Case` names a published (or field-measured) figure, where it comes from, the
tolerance it must meet and how the model computes it (analytic, by simulation, or from
the seek/zone curves). ``tests/disk/test_validation.py`` asserts every case and
``scripts/gen_disk_model_doc.py`` renders the same cases into docs/disk-model.md, so the
documentation cannot drift from what is tested.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np

from advisor.disk import predict
from advisor.disk.model import DiskModel
from advisor.disk.presets import get_model
from advisor.disk.simulate import StreamSpec, simulate
from advisor.units import MIB

SEED_LAPTOP_DESKTOP = (
    "wd-my-passport-wdbbep0010brd",
    "hitachi-hdt725032vla380",
    "wd1600bevt",
    "hgst-travelstar-7k1000",
    "st9250410as",
    "st31000333as",
    "st1000lm014-mechanical",
)
RANDOM_IOS = 20000
QUEUED_IOS = 10000


@dataclass(frozen=True, slots=True)
class Case:
    """One figure of the validation set."""

    group: str
    name: str
    published: float
    unit: str
    source: str
    compute: Callable[[], float]
    tolerance: float = 0.10  # relative
    upper_bound: bool = False  # the published figure is a ceiling: model ≤ published·(1+tol)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A case evaluated."""

    case: Case
    model: float

    @property
    def error(self) -> float:
        """Relative deviation of the model from the published figure."""
        return self.model / self.case.published - 1.0

    @property
    def ok(self) -> bool:
        """Within tolerance (or below the ceiling)."""
        if self.case.upper_bound:
            return self.model <= self.case.published * (1.0 + 1e-9)
        return abs(self.error) <= self.case.tolerance


def weighted_mean_seek(model: DiskModel) -> float:
    """Datasheet "average seek": E[t(d)] under the triangular pdf 2(D-d)/D².

    That is how HGST/Hitachi/IBM datasheets define it (all start/end cylinder pairs).
    """
    cyl = model.total_cylinders
    d = np.arange(1, cyl + 1, max(1, cyl // 20000), dtype=np.float64)
    w = 2.0 * (cyl - d) / cyl**2
    return float((model.seek_curve.ms_array(d / cyl) * w).sum() / w.sum())


def sim_random_ms(name: str, band: tuple[float, float], block: int, overhead: float | None = None) -> float:
    """Mean QD1 service time (ms per IO) of random reads in *band*, simulated."""
    model = get_model(name) if overhead is None else get_model(name).with_changes(overhead_ms=overhead)
    run = simulate(model, [StreamSpec("randread", band, block)], ios=RANDOM_IOS, seed=7)
    return 1000.0 / run.iops


def sim_alternating_ms(
    name: str, a: tuple[float, float], b: tuple[float, float], block: int, overhead: float | None = None
) -> float:
    """ms per IO when two QD1 processes read at two bands at once (they alternate)."""
    model = get_model(name) if overhead is None else get_model(name).with_changes(overhead_ms=overhead)
    streams = [StreamSpec("randread", a, block), StreamSpec("randread", b, block)]
    return 1000.0 / simulate(model, streams, ios=RANDOM_IOS, seed=7).iops


def sim_iops(name: str, band: tuple[float, float], block: int, qd: int, margin: float = 1.0) -> float:
    """Simulated IOPS of random reads at queue depth *qd* (SPTF with margin)."""
    run = simulate(
        get_model(name), [StreamSpec("randread", band, block, qd)], ios=QUEUED_IOS, seed=7, sptf_margin_ms=margin
    )
    return run.iops


def sim_sequential_mb_s_decimal(name: str, fraction: float) -> float:
    """Simulated sequential 1 MiB read rate near LBA fraction *fraction*."""
    band = (fraction, fraction + 0.002) if fraction < 0.5 else (fraction - 0.002, fraction)
    return simulate(get_model(name), [StreamSpec("read", band, MIB)], ios=300, seed=7).mb_s_decimal


def sim_commits(name: str) -> float:
    """Simulated same-offset 8 KiB rewrite + flush loop (pg_test_fsync fdatasync)."""
    model = get_model(name)
    stream = StreamSpec("write", (0.0, 12288 / model.capacity_bytes), 8192, flush_every=1)
    return simulate(model, [stream], ios=1000, seed=7).iops


def _seek_cases() -> list[Case]:
    out: list[Case] = []
    tables = {"cheetah-9lp": (5.47, 10.63), "atlas-10k": (5.60, 10.83), "barracuda-st32171w": (9.32, 16.68)}
    for name, (avg, full) in tables.items():
        model = get_model(name)
        for d, ms in model.seek_table:
            out.append(
                Case(
                    "DiskSim seek curves",
                    f"{name} seek {int(d)} cyl",
                    ms,
                    "ms",
                    "DiskSim extracted seek curve",
                    partial(model.seek_cylinders_ms, int(d)),
                    0.02,
                )
            )
        out.append(
            Case(
                "DiskSim seek curves",
                f"{name} weighted mean seek",
                avg,
                "ms",
                "DiskSim seek curve, datasheet-weighted mean",
                partial(weighted_mean_seek, model),
            )
        )
        out.append(
            Case(
                "DiskSim seek curves",
                f"{name} full stroke",
                full,
                "ms",
                "DiskSim seek curve",
                partial(model.seek_cylinders_ms, model.total_cylinders - 1),
            )
        )
    return out


def _zone_cases() -> list[Case]:
    out: list[Case] = []
    media = {
        "cheetah-9lp": (21.77, 14.31),
        "atlas-10k": (28.57, 19.59),
        "barracuda-st32171w": (11.43, 7.31),
        "cheetah-4lp": (16.69, 11.22),
        "maxtor-atlas-10k-300gb": (99.8, 53.3),
    }
    for name, (od, id_) in media.items():
        model = get_model(name)
        for where, x, value in (("OD", 0.0, od), ("ID", 1.0, id_)):
            out.append(
                Case(
                    "DiskSim zone tables (media rate)",
                    f"{name} {where}",
                    value,
                    "MB/s",
                    "DiskSim zone table",
                    partial(model.media_mb_s_decimal, x),
                    0.062,
                )
            )
    curves = {
        "hitachi-7k500": (64.8, 31.0, "Hitachi Deskstar 7K500 specification, sustained"),
        "seagate-savvio-10k3": (124.0, 67.0, "Seagate Savvio 10K.3 manual, sustained"),
        "wd-velociraptor-1tb": (210.0, 116.0, "HD Tune curve published by PCWorld"),
        "sas-10k-300gb": (130.0, 80.0, "field measurement"),
    }
    for name, (od, id_, source) in curves.items():
        for where, x, value in (("outer", 0.0, od), ("inner", 1.0, id_)):
            out.append(
                Case(
                    "Published zone curves (simulated sequential 1 MiB reads)",
                    f"{name} {where}",
                    value,
                    "MB/s",
                    source,
                    partial(sim_sequential_mb_s_decimal, name, x),
                )
            )
    return out


def _disksim_iops_cases() -> list[Case]:
    out: list[Case] = []
    table = {
        "cheetah-9lp": (208, 195, 113, 71),
        "atlas-10k": (201, 192, 113, 71),
        "barracuda-st32171w": (135, 123, 71, 46),
    }
    for name, (od, id_, full, alt) in table.items():
        rows: tuple[tuple[str, float, Callable[[], float]], ...] = (
            ("OD 1 % band", od, partial(_iops_of, sim_random_ms, name, predict.OUTER, 8192, overhead=0.0)),
            ("ID 1 % band", id_, partial(_iops_of, sim_random_ms, name, predict.INNER, 8192, overhead=0.0)),
            ("full stroke", full, partial(_iops_of, sim_random_ms, name, (0.0, 1.0), 8192, overhead=0.0)),
            (
                "alternating OD/ID",
                alt,
                partial(_iops_of, sim_alternating_ms, name, predict.OUTER, predict.INNER, 8192, overhead=0.0),
            ),
        )
        for label, value, fn in rows:
            out.append(
                Case(
                    "QD1 random 8 KiB IOPS on the DiskSim drives (no overhead)",
                    f"{name} {label}",
                    value,
                    "IOPS",
                    "DiskSim model with its real zone tables",
                    fn,
                )
            )
    return out


def _iops_of(fn: Callable[..., float], *args: Any, **kwargs: Any) -> float:
    return 1000.0 / fn(*args, **kwargs)


def _field_cases() -> list[Case]:
    maxtor = "maxtor-200gb-7200-firewire"
    two_gb = (0.0, 2e9 / get_model(maxtor).capacity_bytes)
    inner = (1.0 - two_gb[1], 1.0)
    st4000 = "st4000vn006"
    ten_gb = (0.0, 10e9 / get_model(st4000).capacity_bytes)
    out = [
        Case(
            "Field measurements",
            "Maxtor 200 GB outer 2 GB, 8 KiB QD1",
            5.7,
            "ms",
            "field measurement",
            lambda: sim_random_ms(maxtor, two_gb, 8192),
        ),
        Case(
            "Field measurements",
            "Maxtor 200 GB alternating outer/inner (2 processes)",
            16.4,
            "ms",
            "field measurement",
            lambda: sim_alternating_ms(maxtor, two_gb, inner, 8192),
        ),
        Case(
            "Field measurements",
            "ST4000VN006 random 4 KiB QD16 in 10 GB",
            277.0,
            "IOPS",
            "field measurement",
            lambda: sim_iops(st4000, ten_gb, 4096, 16),
        ),
        Case(
            "Field measurements",
            "WD2002FYPS fdatasync (pg_test_fsync)",
            81.94,
            "1/s",
            "pg_test_fsync on a WD2002FYPS (published run)",
            lambda: sim_commits("wd2002fyps"),
        ),
    ]
    for name in ("class-5400-nas", "class-7200-desktop", "class-10k", "class-15k", "wd2002fyps"):
        rpm = get_model(name).rpm
        out.append(
            Case(
                "Honest commit ceiling (RPM/60)",
                f"{name} commits/s",
                rpm / 60.0,
                "1/s",
                "one commit per revolution",
                partial(sim_commits, name),
                upper_bound=True,
            )
        )
    # the field-measured laptop/desktop population: the seven drives, each at
    # 0.2 ms (SATA) and 1.5 ms (USB bridge) per-IO overhead, 5400 rpm laptops also at 4200 rpm
    grid: list[DiskModel] = []
    for name in SEED_LAPTOP_DESKTOP:
        model = get_model(name)
        speeds = (model.rpm, 4200.0) if model.rpm == 5400 else (model.rpm,)
        grid += [model.with_changes(rpm=rpm, overhead_ms=ovh) for rpm in speeds for ovh in (0.2, 1.5)]

    def envelope(band: tuple[float, float] | None, target: float) -> float:
        """The grid configuration closest to *target* (the range must be reachable)."""
        values = []
        for model in grid:
            b = band if band is not None else (0.0, 1e9 / model.capacity_bytes)
            values.append(1000.0 / predict.mean_service_ms(model, b, 8192))
        return min(values, key=lambda v: abs(v - target))

    for label, band, value in (
        ("full surface, low end", (0.0, 1.0), 58.0),
        ("full surface, high end", (0.0, 1.0), 69.0),
        ("1 GB outer partition, low end", None, 88.0),
        ("1 GB outer partition, high end", None, 141.0),
    ):
        out.append(
            Case(
                "Field measurements: seven laptop/desktop drives (rpm 4200-7200, overhead 0.2-1.5 ms)",
                label,
                value,
                "IOPS",
                "field measurements of seven drives",
                partial(envelope, band, value),
            )
        )
    return out


def cases() -> list[Case]:
    """The whole validation set, in document order."""
    return _seek_cases() + _zone_cases() + _disksim_iops_cases() + _field_cases()


def evaluate(selected: list[Case] | None = None) -> list[Outcome]:
    """Compute the model's value for every case (deterministic: fixed seeds)."""
    return [Outcome(case, case.compute()) for case in (selected if selected is not None else cases())]


@lru_cache(maxsize=1)
def outcomes() -> tuple[Outcome, ...]:
    """The whole set evaluated once per process (tests and the doc generator share it)."""
    return tuple(evaluate())
