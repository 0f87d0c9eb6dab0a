"""What ``advisor disk show`` prints: a model's curves and its headline predictions.

Pure data (dicts of numbers) so the CLI can print it as a table or as JSON.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from advisor.disk import predict
from advisor.disk.model import DiskModel
from advisor.disk.simulate import StreamSpec, simulate

QD_IOS = 4000


def model_fields(model: DiskModel) -> dict[str, Any]:
    """The model's public fields (JSON-ready), with derived geometry."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(model):
        if f.init:
            value = getattr(model, f.name)
            out[f.name] = [list(v) for v in value] if isinstance(value, tuple) else value
    out["total_cylinders"] = model.total_cylinders
    out["revolution_ms"] = model.revolution_ms
    return out


def seek_points(model: DiskModel, n: int = 11) -> list[dict[str, float]]:
    """Seek time at 1 cylinder and at n evenly spaced stroke fractions."""
    cyl = model.total_cylinders
    points = [{"distance_fraction": 1.0 / cyl, "cylinders": 1, "ms": model.seek_cylinders_ms(1)}]
    for i in range(1, n):
        x = i / (n - 1)
        d = max(1, round(x * cyl))
        points.append({"distance_fraction": x, "cylinders": d, "ms": model.seek_cylinders_ms(d)})
    return points


def predictions(model: DiskModel, block_bytes: int = 8192, seed: int = 0) -> list[dict[str, Any]]:
    """Headline figures: analytic QD1 expectations, simulated queue depths, commit rate."""
    rows: list[dict[str, Any]] = []

    def add(name: str, ms: float, how: str) -> None:
        rows.append({"test": name, "iops": 1000.0 / ms, "ms": ms, "how": how})

    for label, band in (("outer", predict.OUTER), ("middle", predict.MIDDLE), ("inner", predict.INNER)):
        add(f"1 % band {label}, QD1", predict.mean_service_ms(model, band, block_bytes), "predict")
    full_ms = predict.mean_service_ms(model, (0.0, 1.0), block_bytes)
    add("full stroke, QD1", full_ms, "predict")
    cross = predict.positioned_io_ms(model, predict.INNER, block_bytes, predict.OUTER, False)
    add("cross-surface, 2 streams (total)", cross, "predict")
    for depth in (1, 16):
        run = simulate(model, [StreamSpec("randread", (0.0, 1.0), block_bytes, depth)], ios=QD_IOS, seed=seed)
        rows.append({"test": f"full stroke, QD{depth}", "iops": run.iops, "ms": run.mean_ms, "how": "simulate"})
    commit = predict.commit_rate_per_s(model)
    label = f"commits/s (write cache {model.write_cache})"
    rows.append({"test": label, "iops": commit, "ms": 1000.0 / commit, "how": "predict"})
    return rows


def describe(model: DiskModel, block_bytes: int = 8192, seed: int = 0) -> dict[str, Any]:
    """Everything ``disk show`` reports about *model*."""
    return {
        "model": model_fields(model),
        "zone_curve": [{"fraction": f, "mb_s_decimal": rate} for f, rate in predict.zone_curve(model, 11)],
        "seek_curve": seek_points(model),
        "block_bytes": block_bytes,
        "predictions": predictions(model, block_bytes, seed),
    }
