"""Fit a :class:`DiskModel` to what the zone benchmark measured (a ``DiskProfile``).

Two independent least-squares problems, solved with numpy only:

1. **Zones** → ``R_OD`` and ρ: least squares of ``log R``, where ``R_OD`` has a closed form
   for each ρ and ρ is searched on its bounded range (see :func:`fit_zones`).
2. **Random IOPS** (1 % bands at the outer/middle/inner edge, full stroke, cross-surface)
   → seek curve (single-track, average, full-stroke) and per-IO overhead. The model's
   predictions are :mod:`advisor.disk.predict` expectations; Nelder–Mead minimises the
   relative errors of the mean service times (1000/IOPS), parameterised in logs so that
   ``t_track < t_avg < t_full`` and positivity always hold. A weak pull towards the base
   model's values settles the directions the data cannot see (overhead and single-track
   time trade off almost exactly in band IOPS).

When the rpm is unknown, each common spindle speed is tried and the best fit kept (an
honest commit rate, ≤ RPM/60, rules out the speeds it exceeds). Queue-depth IOPS are not
fitted (they need the simulator) but are reported with the fitted model's simulation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from advisor.disk import predict
from advisor.disk.model import DiskModel
from advisor.disk.presets import get_model
from advisor.errors import BadInput
from advisor.model.disk import DiskProfile
from advisor.units import DISK_MB, DRIVE_RPM_RANGE, STANDARD_RPM

BANDS: dict[str, predict.Band] = {"outer": predict.OUTER, "middle": predict.MIDDLE, "inner": predict.INNER}
PRIOR_WEIGHT = 0.03
QD_REPORT_IOS = 3000


@dataclass(frozen=True, slots=True)
class Residual:
    """One measured figure next to the fitted model's value."""

    name: str
    unit: str
    measured: float
    predicted: float
    fitted: bool  # False: reported only (not part of the objective)

    @property
    def error(self) -> float:
        """Relative error (predicted / measured - 1)."""
        return self.predicted / self.measured - 1.0 if self.measured else math.inf


@dataclass(frozen=True, slots=True)
class FitResult:
    """The fitted model, its residuals and the RMS relative error of the fitted figures."""

    model: DiskModel
    residuals: tuple[Residual, ...]
    rms_error: float


def fit_zones(zones: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """(R_OD, ρ) of the closed-form zone curve ``R(X) = R_OD·√(1 - qX)`` that best fits
    (fraction, MB/s) points, in logs: ``log R = log R_OD + ½·log(1 - qX)``.

    In logs R_OD is the closed-form mean for any q, so the fit is a search over q alone in
    [0, 1 - ρ_max⁻²] (a grid, then golden section): it cannot diverge. Gauss-Newton on
    relative residuals did, on flat noisy curves (a cached scratch file: rates ±90 % around
    one level): relative errors tend to 1 each as R_OD tends to 0, and it went there, a
    "disk" of billions of cylinders. For close fits log and relative residuals agree.

    >>> r_od, rho = fit_zones([(x / 10, 180 * math.sqrt(1 - 0.75 * x / 10)) for x in range(11)])
    >>> round(r_od, 3), round(rho, 3)
    (180.0, 2.0)
    >>> r_od, rho = fit_zones([(0.0, 100.0), (0.25, 1900.0), (0.5, 120.0), (0.75, 2000.0), (1.0, 110.0)])
    >>> 100 < r_od < 2000 and 1.0 <= rho <= 4.0
    True
    """
    pts = [(float(x), float(r)) for x, r in zones if r > 0 and 0.0 <= x <= 1.0]
    if len(pts) < 2 or max(x for x, _ in pts) - min(x for x, _ in pts) < 0.05:
        raise BadInput("the zone curve needs at least two points at least 5 % of the disk apart")
    x = np.array([p[0] for p in pts])
    log_r = np.log(np.array([p[1] for p in pts]))

    def offsets(q: float) -> np.ndarray:
        seen: np.ndarray = log_r - 0.5 * np.log1p(-q * x)  # log R_OD as each point sees it
        return seen

    def cost(q: float) -> float:
        y = offsets(q)
        return float(((y - y.mean()) ** 2).sum())

    grid = np.linspace(0.0, Q_MAX, 257)
    at = int(np.argmin([cost(q) for q in grid]))
    lo, hi = float(grid[max(at - 1, 0)]), float(grid[min(at + 1, len(grid) - 1)])
    golden = (math.sqrt(5.0) - 1.0) / 2.0
    while hi - lo > 1e-13:
        a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
        if cost(a) <= cost(b):
            hi = b
        else:
            lo = a
    q = min((lo, hi, float(grid[at])), key=cost)
    return math.exp(float(offsets(q).mean())), 1.0 / math.sqrt(1.0 - q)


Q_MAX = 0.9375
"""The largest 1 - ρ⁻² the fit may reach: ρ = 4, the model's own bound on outer/inner rates."""


def nelder_mead(
    func: Callable[[np.ndarray], float], start: np.ndarray, step: float = 0.3, iters: int = 400
) -> np.ndarray:
    """Minimise *func* from *start* (plain Nelder–Mead; scipy is not a dependency)."""
    n = len(start)
    simplex = [start.astype(np.float64)] + [start + step * np.eye(n)[i] for i in range(n)]
    values = [func(p) for p in simplex]
    for _ in range(iters):
        order = np.argsort(values)
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        if abs(values[-1] - values[0]) < 1e-10:
            break
        centroid = np.mean(simplex[:-1], axis=0)
        worst = simplex[-1]
        reflected = centroid + (centroid - worst)
        fr = func(reflected)
        if fr < values[0]:
            expanded = centroid + 2.0 * (centroid - worst)
            fe = func(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = centroid + 0.5 * (worst - centroid)
            fc = func(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:
                best = simplex[0]
                simplex = [best] + [best + 0.5 * (p - best) for p in simplex[1:]]
                values = [values[0]] + [func(p) for p in simplex[1:]]
    return np.asarray(simplex[int(np.argmin(values))], dtype=np.float64)


def _observations(profile: DiskProfile) -> list[tuple[str, float]]:
    """(name, measured ms per IO) of the random-read figures the mechanics fit uses."""
    obs = [(f"band {k}", 1000.0 / v) for k, v in profile.band_iops.items() if k in BANDS and v > 0]
    if profile.full_stroke_iops:
        obs.append(("full stroke", 1000.0 / profile.full_stroke_iops))
    if profile.cross_surface_iops:
        obs.append(("cross-surface", 1000.0 / profile.cross_surface_iops))
    return obs


def _predicted_ms(model: DiskModel, name: str, block: int) -> float:
    if name.startswith("band "):
        return predict.mean_service_ms(model, BANDS[name[5:]], block)
    if name == "full stroke":
        return predict.mean_service_ms(model, (0.0, 1.0), block)
    return predict.positioned_io_ms(model, predict.INNER, block, predict.OUTER, False)


def _decode(p: np.ndarray) -> dict[str, float]:
    t_track = math.exp(p[0])
    t_avg = t_track + math.exp(p[1])
    return {
        "seek_track_ms": t_track,
        "seek_avg_ms": t_avg,
        "seek_full_ms": t_avg + math.exp(p[2]),
        "overhead_ms": math.exp(p[3]),
    }


def _fit_mechanics(start: DiskModel, obs: list[tuple[str, float]], block: int) -> tuple[DiskModel, float]:
    base = {
        "seek_track_ms": max(start.seek_track_ms, 0.05),
        "seek_avg_ms": start.seek_avg_ms,
        "seek_full_ms": start.seek_full_ms,
        "overhead_ms": max(start.overhead_ms, 0.02),
    }
    if start.seek_table:
        start = start.with_changes(seek_table=())
    p0 = np.log(
        [
            base["seek_track_ms"],
            max(base["seek_avg_ms"] - base["seek_track_ms"], 0.1),
            max(base["seek_full_ms"] - base["seek_avg_ms"], 0.1),
            base["overhead_ms"],
        ]
    )

    def objective(p: np.ndarray) -> float:
        if np.any(np.abs(p) > 6):
            return 1e9
        params = _decode(p)
        try:
            model = start.with_changes(**params)
        except BadInput:
            return 1e9
        err = sum(((_predicted_ms(model, name, block) - ms) / ms) ** 2 for name, ms in obs)
        prior = sum(math.log(params[k] / base[k]) ** 2 for k in base)
        return err + PRIOR_WEIGHT**2 * prior

    if not obs:
        return start, 0.0
    best = nelder_mead(objective, p0)
    best = nelder_mead(objective, best, step=0.05)
    model = start.with_changes(**_decode(best))
    return model, objective(best)


def _default_base(profile: DiskProfile, rpm: int) -> DiskModel:
    if rpm >= 12000:
        name = "class-15k"
    elif rpm >= 8000:
        name = "class-10k"
    elif rpm >= 6500:
        name = "class-7200-desktop"
    else:
        name = "class-5400-nas" if profile.size_bytes > 1_500_000_000_000 else "class-5400-laptop"
    return get_model(name).with_changes(rpm=float(rpm))


def _safe_name(profile: DiskProfile) -> str:
    stem = re.sub(r"[^A-Za-z0-9]+", "-", profile.device or profile.target).strip("-").lower()
    return f"fitted-{stem or 'disk'}"


def fit_profile(profile: DiskProfile, base: DiskModel | None = None, *, report_qd: bool = True) -> FitResult:
    """Fit a model to *profile*, starting from *base* (a class preset when None)."""
    if profile.size_bytes <= 0:
        raise BadInput("the disk profile has no size; cannot place bands")
    block = profile.block_size_bytes or 8192
    obs = _observations(profile)
    if not profile.zones and not obs:
        raise BadInput("the disk profile has neither a zone curve nor random IOPS to fit")
    slowest, fastest = DRIVE_RPM_RANGE
    if profile.rpm and not slowest <= profile.rpm <= fastest:
        raise BadInput(f"the profile's rpm {profile.rpm} is outside any drive's {slowest}..{fastest}: bench the "
                       "disk again, or give the drive's own with bench --rpm")
    if profile.rpm:
        rpms = [profile.rpm]
    elif base is not None:
        rpms = [round(base.rpm)]
    else:
        rpms = [r for r in STANDARD_RPM if not profile.commit_per_s or profile.commit_per_s <= 1.2 * r / 60]
        rpms = rpms or list(STANDARD_RPM)
    best: tuple[float, DiskModel] | None = None
    for rpm in rpms:
        start = (base or _default_base(profile, rpm)).with_changes(
            name=_safe_name(profile), capacity_bytes=profile.size_bytes, rpm=float(rpm), cylinders=None
        )
        if profile.zones:
            r_od, rho = fit_zones([(z.fraction, z.bytes_per_s / DISK_MB) for z in profile.zones])
            start = start.with_changes(r_od_mb_s_decimal=r_od, rho=rho, zones=())
        model, score = _fit_mechanics(start, obs, block)
        if best is None or score < best[0]:
            best = (score, model)
    assert best is not None
    model = best[1]
    if profile.commit_per_s and profile.commit_per_s > 1.2 * model.rpm / 60.0:
        model = model.with_changes(write_cache="battery")  # flushes are acknowledged from cache
    residuals = _residuals(model, profile, obs, block, report_qd)
    fitted = [r.error for r in residuals if r.fitted]
    rms = math.sqrt(sum(e * e for e in fitted) / len(fitted)) if fitted else 0.0
    return FitResult(model=model, residuals=tuple(residuals), rms_error=rms)


def _residuals(
    model: DiskModel, profile: DiskProfile, obs: list[tuple[str, float]], block: int, report_qd: bool
) -> list[Residual]:
    out = [Residual(f"zone {z.fraction:.2f}", "MB/s", z.bytes_per_s / DISK_MB, model.rate_mb_s_decimal(z.fraction),
                    True)
           for z in profile.zones]
    for name, ms in obs:
        out.append(Residual(f"{name} IOPS", "IOPS", 1000.0 / ms, 1000.0 / _predicted_ms(model, name, block), True))
    if report_qd and profile.qd_iops:
        from advisor.disk.simulate import StreamSpec, simulate

        for depth, iops in sorted(profile.qd_iops.items()):
            sim = simulate(model, [StreamSpec("randread", (0.0, 1.0), block, depth)], ios=QD_REPORT_IOS, seed=1)
            out.append(Residual(f"QD{depth} IOPS", "IOPS", iops, sim.iops, False))
    if profile.commit_per_s:
        out.append(Residual("commits/s", "1/s", profile.commit_per_s, predict.commit_rate_per_s(model), False))
    return out
