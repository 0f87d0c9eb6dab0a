"""Terminal tables and JSON shapes of `advisor disk`: drawing only, the figures come from the disk package."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from advisor.units import DISK_GB

if TYPE_CHECKING:
    from rich.console import Console

    from advisor.disk.fit import FitResult
    from advisor.disk.presets import PresetInfo
    from advisor.disk.simulate import SimResult


def _table(title: str, columns: Sequence[str]) -> Any:
    from rich.table import Table

    from advisor.render.cells import add_columns

    table = Table(title=title, title_justify="left", show_edge=False)
    add_columns(table, list(columns), right=tuple(columns[1:]), shrink=(columns[0],))  # figures never wrap
    return table


def presets_table(infos: Sequence[PresetInfo], console: Console) -> None:
    """One row per preset."""
    from rich.table import Table

    table = Table(show_edge=False)
    # names are typed back (--preset NAME): never cut them; the description wraps instead
    table.add_column("preset", no_wrap=True, min_width=max((len(i.name) for i in infos), default=6))
    table.add_column("class", no_wrap=True)
    table.add_column("description", ratio=1)
    for info in infos:
        table.add_row(info.name, info.drive_class, info.description)
    console.print(table)


def show_tables(data: dict[str, Any], console: Console) -> None:
    """Model summary, zone curve, seek curve and predictions."""
    model = data["model"]
    console.print(f"{data['name']} ({data['class']}): {data['description']}")
    console.print(
        f"{model['capacity_bytes'] / DISK_GB:.0f} GB, {model['rpm']:.0f} rpm (T_rev {model['revolution_ms']:.2f} ms), "
        f"{model['heads']} heads x {model['total_cylinders']} cylinders, overhead {model['overhead_ms']} ms, "
        f"head switch {model['head_switch_ms']} ms, write cache {model['write_cache']}"
    )
    zones = _table("zone curve (sustained)", ["LBA fraction", "MB/s"])
    for z in data["zone_curve"]:
        zones.add_row(f"{z['fraction']:.1f}", f"{z['mb_s_decimal']:.1f}")
    seeks = _table("seek curve (reads)", ["stroke fraction", "cylinders", "ms"])
    for s in data["seek_curve"]:
        seeks.add_row(f"{s['distance_fraction']:.4f}", str(s["cylinders"]), f"{s['ms']:.2f}")
    preds = _table(f"predictions ({data['block_bytes'] // 1024} KiB random reads)", ["test", "IOPS", "ms", "how"])
    for p in data["predictions"]:
        preds.add_row(p["test"], f"{p['iops']:.1f}", f"{p['ms']:.2f}", p["how"])
    for table in (zones, seeks, preds):
        console.print(table)


def simulation_dict(name: str, run: SimResult, seed: int) -> dict[str, Any]:
    """Stable JSON shape of a simulation."""
    data = dataclasses.asdict(run)
    data["per_stream"] = [{**s, "band": list(s["band"])} for s in data["per_stream"]]
    return {"drive": name, "seed": seed, **data}


def simulation_table(data: dict[str, Any], console: Console) -> None:
    """Totals and one row per stream."""
    table = _table(
        f"{data['drive']}: {data['ios']} IOs in {data['seconds']:.2f} simulated s",
        ["stream", "IOPS", "MB/s", "mean ms", "p50 ms", "p99 ms"],
    )
    for s in data["per_stream"]:
        label = f"{s['pattern']} {s['band'][0]:g}:{s['band'][1]:g} QD{s['qd']} {s['block_bytes'] // 1024}k"
        table.add_row(
            label,
            *(f"{s[k]:.1f}" if k != "iops" else f"{s[k]:.1f}"
              for k in ("iops", "mb_s_decimal", "mean_ms", "p50_ms", "p99_ms")),
        )
    table.add_row(
        "total",
        f"{data['iops']:.1f}",
        f"{data['mb_s_decimal']:.1f}",
        f"{data['mean_ms']:.2f}",
        f"{data['p50_ms']:.2f}",
        f"{data['p99_ms']:.2f}",
    )
    console.print(table)


def fit_dict(result: FitResult, toml_text: str) -> dict[str, Any]:
    """Stable JSON shape of a fit."""
    from advisor.disk.overview import model_fields

    residuals = [
        {
            "name": r.name,
            "unit": r.unit,
            "measured": r.measured,
            "predicted": r.predicted,
            "error": r.error,
            "fitted": r.fitted,
        }
        for r in result.residuals
    ]
    return {
        "model": model_fields(result.model),
        "rms_error": result.rms_error,
        "residuals": residuals,
        "toml": toml_text,
    }


def fit_table(data: dict[str, Any], show_toml: bool, console: Console) -> None:
    """Residual table, then the TOML unless it went to a file."""
    table = _table(
        f"fit: RMS error {data['rms_error']:.1%} over the fitted figures",
        ["figure", "measured", "model", "error", "fitted"],
    )
    for r in data["residuals"]:
        table.add_row(
            r["name"],
            f"{r['measured']:.1f}",
            f"{r['predicted']:.1f}",
            f"{r['error']:+.1%}",
            "yes" if r["fitted"] else "reported",
        )
    console.print(table)
    if show_toml:
        console.print(data["toml"], markup=False, highlight=False)
