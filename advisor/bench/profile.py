"""Assemble a :class:`~advisor.model.disk.DiskProfile` from per-run measurements.

Each figure is the median over its runs, with the latency of the median run (a latency
averaged over runs would describe no run at all); the per-run values go into ``runs`` and
the stability warnings into ``warnings``, so the profile says how far it can be trusted.
"""

from __future__ import annotations

from datetime import UTC, datetime

from advisor import __version__
from advisor.bench.classify import Evidence, classify, commit_check, estimate_rpm_bands
from advisor.bench.engines import JobResult
from advisor.bench.machine import machine_info
from advisor.bench.stats import median, stability_warnings
from advisor.bench.suite import BANDS, BenchOptions, Measurements, band_regions
from advisor.bench.target import Target
from advisor.model.disk import Classification, DiskProfile, Latency, WriteCliff, ZonePoint
from advisor.units import MIB

CACHE_SAFE_BAND_BYTES = 16 * 64 * MIB


def _median_run(results: list[JobResult]) -> JobResult:
    ordered = sorted(results, key=lambda r: r.iops)
    return ordered[(len(ordered) - 1) // 2]


def _iops(m: Measurements, key: str) -> tuple[float, Latency] | None:
    results = m.results.get(key)
    if not results:
        return None
    chosen = _median_run(results)
    return median([r.iops for r in results]), chosen.latency


def _zones(m: Measurements) -> tuple[ZonePoint, ...]:
    points = []
    for key in sorted(k for k in m.results if k.startswith("zone.")):
        rate = median([r.bytes_per_s for r in m.results[key]])
        points.append(ZonePoint(round(m.zone_fractions.get(key, 0.0), 6), rate))
    return tuple(sorted(points, key=lambda p: p.fraction))


def _runs(m: Measurements) -> dict[str, list[float]]:
    runs: dict[str, list[float]] = {}
    zone_keys = sorted(k for k in m.results if k.startswith("zone."))
    if zone_keys:
        sweeps = min(len(m.results[k]) for k in zone_keys)
        runs["zones"] = [
            sum(m.results[k][i].bytes_per_s for k in zone_keys) / len(zone_keys) for i in range(sweeps)
        ]
    for key, results in m.results.items():
        if not key.startswith("zone."):
            runs[key] = [r.iops for r in results]
    return runs


def _evidence(m: Measurements, zones: tuple[ZonePoint, ...]) -> Evidence:
    band = _iops(m, "band.outer")
    stroke = _iops(m, "stroke") or _iops(m, "qd.1")
    ratio = band[0] / stroke[0] if band and stroke and stroke[0] > 0 else None
    slope = None
    if len(zones) >= 4:
        quarter = max(1, len(zones) // 10)
        outer = sum(p.bytes_per_s for p in zones[:quarter]) / quarter
        inner = sum(p.bytes_per_s for p in zones[-quarter:]) / quarter
        slope = outer / inner if inner > 0 else None
    spread, width = None, 0.0
    if m.results.get("band.outer"):
        table = _median_run(m.results["band.outer"]).percentiles_ms
        if table.get(50.0):
            width = table[80.0] - table[20.0]
            spread = width / table[50.0]
    return Evidence(ratio, slope, spread, width)


def _smr(kind: Classification, reason: str, cliff: WriteCliff | None) -> tuple[Classification, str]:
    """Drive-managed SMR when the write test fell off a cliff (not for flash: no seek sign)."""
    if cliff is None:
        return kind, reason
    mib = cliff.written_bytes / MIB
    if cliff.after_p50_ms is None or cliff.cliff_after_bytes is None:
        return kind, (f"{reason}; SMR test: no write cliff in {cliff.writes} random writes ({mib:.0f} MiB, "
                      f"p50 {cliff.before_p50_ms:.2f} ms): not drive-managed SMR, or a media cache over {mib:.0f} MiB")
    if kind == "solid-state":
        return kind, (f"{reason}; SMR test: writes slowed from {cliff.before_p50_ms:.2f} to "
                      f"{cliff.after_p50_ms:.1f} ms but the reads show no mechanical sign (flash cache running out)")
    factor = cliff.after_p50_ms / cliff.before_p50_ms if cliff.before_p50_ms > 0 else float("inf")
    return "smr-dm", (
        f"random writes fell off a cliff after {cliff.cliff_after_bytes / MIB:.0f} MiB: p50 "
        f"{cliff.before_p50_ms:.2f} ms → {cliff.after_p50_ms:.1f} ms ({factor:.0f}×){_slow_share(cliff)}, "
        f"a drive-managed SMR media cache filling up; {reason}"
    )


def _slow_share(cliff: WriteCliff) -> str:
    """How many writes past the cliff were as slow: a drive left idle cleans and takes some fast."""
    if cliff.slow_share is None or cliff.cliff_after_bytes is None:
        return ""
    after = cliff.writes - cliff.cliff_after_bytes // cliff.block_size_bytes
    return f", {cliff.slow_share:.0%} of the {after} writes from there as slow"


def _full_speed(depths: dict[int, tuple[float, Latency]], m: Measurements) -> str:
    """The deepest queue's IOPS and how it was issued: what flash is judged on."""
    if not depths:
        return ""
    deepest = max(depths)
    path = m.results[f"qd.{deepest}"][0].io_path
    return f"; full speed: QD{deepest} {depths[deepest][0]:.0f} IOPS" + (f" ({path})" if path else "")


def assemble(
    target: Target,
    engine: str,
    options: BenchOptions,
    m: Measurements,
    *,
    complete: bool,
    rpm: int | None = None,
    disk: str | None = None,
) -> DiskProfile:
    """Build the profile; *rpm* from the user wins over the estimate from band latencies."""
    zones = _zones(m)
    bands = {name: v for name in BANDS if (v := _iops(m, f"band.{name}"))}
    stroke, cross, commit = _iops(m, "stroke"), _iops(m, "cross"), _iops(m, "commit")
    depths = {d: v for d in options.queue_depths if (v := _iops(m, f"qd.{d}"))}
    kind, reason = classify(_evidence(m, zones))
    kind, reason = _smr(kind, reason, m.write_cliff)
    reason += _full_speed(depths, m)
    notes = list(m.notes)
    band_bytes = band_regions(target.size_bytes, options.band_fraction, options.block_size)["outer"].length
    if bands and band_bytes < CACHE_SAFE_BAND_BYTES:
        notes.append(
            f"band of {band_bytes / MIB:.1f} MiB is under 16x a typical 64 MiB drive cache: band IOPS may be "
            "inflated by cache hits; bench a larger target (100 GB or more) for clean band figures"
        )
    if rpm is None and kind == "rotational" and m.results.get("band.outer"):
        tables = [r.percentiles_ms for name in BANDS for r in m.results.get(f"band.{name}", [])]
        rpm, how = estimate_rpm_bands(tables)
        notes.append(f"rpm estimated: {how}" if rpm else f"rpm not estimated: {how}")
    if commit and rpm:
        warning = commit_check(commit[0], rpm)
        notes += [warning] if warning else []
    elif commit:
        notes.append("commit rate not checked against RPM/60: no rotation measured (pass --rpm to check)")
    threaded = [f"QD{d}" for d in depths if d > 1 and m.results[f"qd.{d}"][0].io_path == "threads"]
    if threaded:
        notes.append(f"{', '.join(threaded)} ran on threads (native AIO unavailable: install libaio1 and "
                     "python-libaio): on a fast device threads cannot keep the queue full, so these IOPS are a "
                     "lower bound")
    runs = _runs(m)
    if not complete:
        notes.append("incomplete: stopped before every test finished; figures cover what was measured")
    return DiskProfile(
        target=target.path,
        device=f"/dev/{disk}" if disk else None,
        size_bytes=target.size_bytes,
        measured_at=datetime.now(UTC).isoformat(timespec="seconds"),
        engine=engine,
        block_size_bytes=options.block_size,
        zones=zones,
        band_iops={name: v[0] for name, v in bands.items()},
        band_latency={name: v[1] for name, v in bands.items()},
        full_stroke_iops=stroke[0] if stroke else None,
        full_stroke_latency=stroke[1] if stroke else None,
        cross_surface_iops=cross[0] if cross else None,
        cross_surface_latency=cross[1] if cross else None,
        qd_iops={d: v[0] for d, v in depths.items()},
        qd_latency={d: v[1] for d, v in depths.items()},
        commit_per_s=commit[0] if commit else None,
        commit_latency=commit[1] if commit else None,
        write_cliff=m.write_cliff,
        io_paths={key: results[0].io_path for key, results in sorted(m.results.items()) if results[0].io_path},
        rpm=rpm,
        classification=kind,
        classification_reason=reason,
        runs=runs,
        machine=machine_info(target.path),
        warnings=tuple(notes + stability_warnings(runs)),
        complete=complete,
        tool_version=__version__,
    )
