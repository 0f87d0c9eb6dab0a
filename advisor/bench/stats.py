"""Latency summaries and run-to-run stability, shared by the engines and the tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from advisor.model.disk import Latency

#: Runs that differ by this much (max - min over the median) get a stability warning
#: (pyperf's rule of thumb).
UNSTABLE_SPREAD = 0.10


def summarize_ns(
    latencies_ns: Sequence[int] | np.ndarray, percentiles: Sequence[float]
) -> tuple[Latency, dict[float, float]]:
    """Mean, p50, p99, max (ms) of per-IO latencies, plus the requested percentiles (ms)."""
    values = np.asarray(latencies_ns, dtype=np.float64)
    if values.size == 0:
        return Latency(0.0, 0.0, 0.0, 0.0), {}
    ms = values / 1e6
    points = np.percentile(ms, list(percentiles)).tolist() if percentiles else []
    table = {float(p): float(v) for p, v in zip(percentiles, points, strict=True)}
    p50, p99 = np.percentile(ms, [50.0, 99.0])
    return Latency(float(ms.mean()), float(p50), float(p99), float(ms.max())), table


def median(values: Sequence[float]) -> float:
    """Median of a non-empty sequence."""
    return float(np.median(np.asarray(values, dtype=np.float64)))


def spread(values: Sequence[float]) -> float:
    """Relative spread ``(max - min) / median``; 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    mid = median(values)
    return (max(values) - min(values)) / mid if mid > 0 else 0.0


def stability_warnings(runs: dict[str, list[float]], min_runs: int = 3) -> list[str]:
    """One warning per measurement whose runs disagree by ``UNSTABLE_SPREAD`` or more."""
    warnings = []
    for key, values in runs.items():
        if len(values) >= min_runs and spread(values) >= UNSTABLE_SPREAD:
            shown = ", ".join(f"{v:.0f}" if v >= 100 else f"{v:.3g}" for v in values)
            warnings.append(
                f"{key}: runs differ by {spread(values):.0%} ({shown}); unstable, rerun on an idle "
                "system or with a larger --budget-per-test"
            )
    return warnings
