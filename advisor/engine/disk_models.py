"""Which physics judges which disk: measured profiles, a preset, or a drive spec.

``advisor report``, ``plan``, ``audit`` and the fleet all answer the same question before
they advise: a disk measured by ``advisor bench`` is judged by a model fitted to its profile
(or as solid state); every other disk by the preset or spec the user named, or by the
default preset. The answer comes with its basis, in words: which model was assumed and why
(``Models.basis``); the engine puts it into the report (``Report.model_basis``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.errors import AdvisorError, BadInput

if TYPE_CHECKING:
    from advisor.disk.model import DiskModel
    from advisor.disk.physics import DiskPhysics
    from advisor.engine.advise import Models
    from advisor.model import DiskProfile

DEFAULT_PRESET = "class-7200-desktop"
"""The drive class assumed when nothing was measured or named."""

def load_models(disk: Sequence[Path] | None, preset: str | None, spec: Path | None,
                time_scale: float = 1.0, path_ms: float = 0.0) -> Models:
    """Physics for the advice: measured profiles (fitted), a preset, or a drive spec file.

    A measured profile applies to the disk it was measured on (its ``device``); the preset or
    spec (default: a 7200 rpm desktop class) applies to every other disk. With one profile
    and nothing named, that profile judges every disk. *time_scale* S makes the preset or spec
    describe that drive emulated S times faster (``advisor disk emulate --scale S``): every
    modelled time divided by S. A measured profile already is the disk it measured: S does
    not apply to it. *path_ms* (``--path-ms``) is a request's time between the block layer and
    every drive, both ways, which the replay of a trace adds (:class:`~advisor.disk.physics.ModelPhysics`);
    a profile's fit already holds the path of the idle host that measured it, not the queue of a busy one.
    Raises :class:`BadInput` for both ``preset`` and ``spec``, a time scale that is not positive, a
    negative path, or a profile no model can be fitted to.
    """
    from advisor.disk.physics import ModelPhysics
    from advisor.disk.presets import get_model
    from advisor.engine.advise import Models

    if preset and spec:
        raise BadInput("give either --preset or --spec, not both")
    if spec is not None:
        base = get_model(str(spec))
        basis = f"the drive spec {spec} (--spec)"
    elif preset:
        base = get_model(preset)
        basis = f"the {preset} preset (--preset)"
    else:
        base = get_model(DEFAULT_PRESET)
        basis = f"the {DEFAULT_PRESET} preset, the default: no --disk, --preset or --spec given"
    if not time_scale > 0:
        raise BadInput(f"--time-scale must be positive, not {time_scale:g}")
    if time_scale != 1.0:
        basis += (f", every modelled time divided by {time_scale:g} (--time-scale {time_scale:g}: "
                  f"the disk is `advisor disk emulate --scale {time_scale:g}`)")
    if not path_ms >= 0:
        raise BadInput(f"--path-ms cannot be negative, not {path_ms:g}")
    path_s = path_ms / 1000.0
    default: DiskPhysics = ModelPhysics(base, time_scale=time_scale, path_s=path_s)
    per_disk: dict[str, DiskPhysics] = {}
    profiles: dict[str, DiskProfile] = {}
    fit_errors: dict[str, float] = {}
    default_fit_error: float | None = None
    paths = list(disk or [])
    for path in paths:
        profile, physics, fit_error = _profile_physics(path, base if (preset or spec) else None, path_s)
        name = posixpath.basename(profile.device or profile.target) or profile.target
        per_disk[name] = physics
        profiles[name] = profile
        if fit_error is not None:
            fit_errors[name] = fit_error
        if len(paths) == 1 and not preset and not spec:
            default, default_fit_error = physics, fit_error
    if profiles:
        measured = ", ".join(f"{name} measured by advisor bench ({_fit_kind(p)})" for name, p in profiles.items())
        alone = len(profiles) == 1 and not (preset or spec)
        basis = measured + (f"; other disks: {basis}" if not alone else
                            f" (--time-scale {time_scale:g} not applied: a profile measured the disk as it runs)"
                            if time_scale != 1.0 else "")
    if path_ms:
        basis += f"; each request {path_ms:g} ms between the block layer and the drive, both ways (--path-ms)"
    return Models(default=default, per_disk=per_disk, profiles=profiles, basis=basis, fit_errors=fit_errors,
                  default_fit_error=default_fit_error)


def _fit_kind(profile: DiskProfile) -> str:
    return "solid state, no zones" if profile.classification == "solid-state" else "model fitted to the profile"


def _profile_physics(path: Path, base: DiskModel | None,
                     path_s: float = 0.0) -> tuple[DiskProfile, DiskPhysics, float | None]:
    """The profile, the physics that judges its disk, and the fitted model's RMS relative error over
    the figures it was fitted to (None: solid state, nothing fitted)."""
    from advisor.disk.fit import fit_profile
    from advisor.disk.physics import ModelPhysics
    from advisor.model import load_disk_profile

    profile = load_disk_profile(path)
    if profile.classification == "solid-state":
        from advisor.disk.presets import get_model

        # no zones or seeks to fit: the model only carries the size; SOLID_STATE stops the zone plan
        flat = (base or get_model(DEFAULT_PRESET)).with_changes(name=f"solid-state {profile.target}")
        return profile, ModelPhysics(flat, solid_state=True, path_s=path_s), None
    try:
        fitted = fit_profile(profile, base)
    except BadInput as exc:  # the profile is what is wrong: name it
        raise BadInput(f"{path}: {exc}") from None
    except AdvisorError:
        raise
    except (ValueError, ArithmeticError) as exc:
        raise BadInput(f"{path}: cannot fit a disk model to this profile ({exc})") from None
    return profile, ModelPhysics(fitted.model, path_s=path_s), fitted.rms_error
