"""Synthesize the ``DiskProfile`` a zone benchmark would measure on a modelled drive.

Runs the same tests as ``advisor bench`` (sequential zone reads, QD1 random reads in 1 %
bands and over the full stroke, two workers at opposite edges, queue depths, commit
loop) through :func:`advisor.disk.simulate.simulate`. Used to check that the fitter
recovers a known model and to show what a preset would measure.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.disk import predict
from advisor.disk.model import DiskModel
from advisor.disk.simulate import StreamSpec, simulate
from advisor.model.disk import DiskProfile, ZonePoint
from advisor.units import DISK_MB, MIB


def synthesize_profile(
    model: DiskModel,
    *,
    block_bytes: int = 8192,
    zone_points: int = 11,
    ios: int = 4000,
    depths: Sequence[int] = (1, 4, 16),
    seed: int = 0,
) -> DiskProfile:
    """What the bench would report for *model* (simulated, deterministic per seed)."""
    zones = []
    for i in range(zone_points):
        x = min(i / (zone_points - 1), 0.995)
        band = (x, min(x + 0.005, 1.0))
        run = simulate(model, [StreamSpec("read", band, MIB, 1)], ios=200, seed=seed)
        zones.append(ZonePoint(fraction=i / (zone_points - 1), bytes_per_s=round(run.mb_s_decimal, 2) * DISK_MB))
    bands = {"outer": predict.OUTER, "middle": predict.MIDDLE, "inner": predict.INNER}
    band_iops = {
        name: simulate(model, [StreamSpec("randread", band, block_bytes)], ios=ios, seed=seed).iops
        for name, band in bands.items()
    }
    full = simulate(model, [StreamSpec("randread", (0.0, 1.0), block_bytes)], ios=ios, seed=seed).iops
    cross = simulate(
        model,
        [StreamSpec("randread", predict.OUTER, block_bytes), StreamSpec("randread", predict.INNER, block_bytes)],
        ios=ios,
        seed=seed,
    ).iops
    qd = {
        depth: simulate(model, [StreamSpec("randread", (0.0, 1.0), block_bytes, depth)], ios=ios, seed=seed).iops
        for depth in depths
    }
    commit_band = (0.0, block_bytes / model.capacity_bytes * 1.5)
    commit = simulate(model, [StreamSpec("write", commit_band, block_bytes, flush_every=1)], ios=500, seed=seed).iops
    return DiskProfile(
        target=f"simulated:{model.name}",
        device=None,
        size_bytes=model.capacity_bytes,
        measured_at="1970-01-01T00:00:00Z",
        engine="builtin",
        block_size_bytes=block_bytes,
        zones=tuple(zones),
        band_iops=band_iops,
        full_stroke_iops=full,
        cross_surface_iops=cross,
        qd_iops=qd,
        commit_per_s=commit,
        rpm=round(model.rpm),
        classification="rotational",
        classification_reason="simulated drive",
    )
