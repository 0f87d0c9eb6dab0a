"""Terminal rendering of a disk profile: one table of figures, the zone curve, the warnings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.model.disk import DiskProfile, Latency
from advisor.render.zone_plot import sparkline
from advisor.units import DISK_MB, MIB

if TYPE_CHECKING:
    from rich.console import Console


def _lat(latency: Latency | None) -> tuple[str, str, str]:
    if latency is None:
        return "", "", ""
    return f"{latency.mean_ms:.2f}", f"{latency.p50_ms:.2f}", f"{latency.p99_ms:.2f}"


def rows(profile: DiskProfile) -> list[tuple[str, str, str, str, str]]:
    """(test, value, mean ms, p50 ms, p99 ms) for every figure the profile has."""
    out: list[tuple[str, str, str, str, str]] = []
    if profile.zones:
        rates = [p.bytes_per_s / DISK_MB for p in profile.zones]
        out.append(("zones outer → inner", f"{rates[0]:.1f} → {rates[-1]:.1f} MB/s", "", "", ""))
    for name, iops in profile.band_iops.items():
        out.append((f"band 1 % {name}", f"{iops:.0f} IOPS", *_lat(profile.band_latency.get(name))))
    if profile.full_stroke_iops is not None:
        out.append(("full stroke QD1", f"{profile.full_stroke_iops:.0f} IOPS", *_lat(profile.full_stroke_latency)))
    if profile.cross_surface_iops is not None:
        out.append(("cross-surface (2 workers)", f"{profile.cross_surface_iops:.0f} IOPS",
                    *_lat(profile.cross_surface_latency)))
    for depth, iops in sorted(profile.qd_iops.items()):
        path = profile.io_paths.get(f"qd.{depth}")
        out.append((f"queue depth {depth}" + (f" ({path})" if path else ""), f"{iops:.0f} IOPS",
                    *_lat(profile.qd_latency.get(depth))))
    if profile.commit_per_s is not None:
        out.append(("commit (write+fdatasync)", f"{profile.commit_per_s:.0f}/s", *_lat(profile.commit_latency)))
    cliff = profile.write_cliff
    if cliff is not None:
        written = f"{cliff.written_bytes / MIB:.0f} MiB"
        if cliff.after_p50_ms is not None and cliff.cliff_after_bytes is not None:
            result = f"cliff after {cliff.cliff_after_bytes / MIB:.0f} MiB of {written}"
            shown = f"{cliff.before_p50_ms:.2f} → {cliff.after_p50_ms:.1f}"
        else:
            result, shown = f"no cliff in {written}", f"{cliff.before_p50_ms:.2f}"
        out.append((f"SMR random writes {cliff.block_size_bytes >> 10} KiB", result, "", shown, ""))
    return out


def render(profile: DiskProfile, console: Console) -> None:
    """Print the profile as a table, a zone sparkline, the classification and warnings."""
    from rich.table import Table

    from advisor.render.cells import add_columns

    state = "" if profile.complete else " (INCOMPLETE)"
    table = Table(title=f"{profile.target} — {profile.engine} engine{state}", title_justify="left")
    add_columns(table, ["test", "result", "mean ms", "p50 ms", "p99 ms"], right=("mean ms", "p50 ms", "p99 ms"),
                shrink=("test",))  # figures stay on one line at 80 columns
    for row in rows(profile):
        table.add_row(*row)
    console.print(table)
    if profile.zones:
        console.print(f"zone curve (outer → inner): {sparkline(profile.zones)}")
    rpm = f", {profile.rpm} rpm" if profile.rpm else ""
    console.print(f"classification: {profile.classification}{rpm} — {profile.classification_reason}")
    for warning in profile.warnings:
        console.print(f"warning: {warning}", markup=False)
