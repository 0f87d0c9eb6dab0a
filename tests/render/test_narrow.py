"""Terminal output at 80 and 200 columns: figures and headers whole on one line, paths
shortened in the middle with their file name kept; warnings one line per kind."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from rich.console import Console

from advisor.collectors.awr import read_report
from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.audit_map import build_audit_maps
from advisor.model import Device, DiskStatRate, Location, Report
from advisor.render.locations import Notes, devices_table, locations_table, rates_table
from advisor.render.markdown import render_markdown
from advisor.render.terminal import render_terminal
from advisor.units import GIB, human_bytes
from tests.helpers.clock import AT
from tests.helpers.workloads import models, sample_workload

WIDTHS = [80, 200]
BASE = "/var/lib/postgresql/18/main/pg_tblspc/16390/PG_18_202406281/16384"
LOCATIONS = [
    Location(f"{BASE}/{name}", "nvme0n1", "nvme0n1p2", start, start + 0.01, extents, size, start + 0.005)
    for name, start, extents, size in (("16385", 0.1234, 1, 8192), ("2619_fsm", 0.5, 12, 3 * GIB),
                                       ("1249_vm_with_a_rather_long_name", 0.9871, 1093, 123 * 1024**2))
] + [Location("/dev/shm/PostgreSQL.12345", None, None, None, None, 0, 0, placement_known=False,
              reason="tmpfs lives in memory, not on a disk")]
DEVICES = [Device("nvme0n1", "/dev/nvme0n1", 2 * 1024**4, model="Samsung SSD 990 PRO with Heatsink 2TB",
                  rotational=False, transport="nvme", write_cache="write back")]
RATES = [DiskStatRate("nvme0n1", 12345.6, 2345.6, 456.78, 123.45, 0.12, 1.23, 0.987),
         DiskStatRate("nvme0n1p2", 1234.5, 234.5, 45.67, 12.34, 0.1, 1.0, 0.5, is_partition=True)]


def _text(width: int, *renderables: object) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    for renderable in renderables:
        console.print(renderable)
    lines = console.export_text().splitlines()
    assert max(len(line.rstrip()) for line in lines) <= width
    return lines


def _row(lines: list[str], *cells: str) -> str:
    """The first line holding every one of *cells* (fails when a cell was wrapped or cut)."""
    found = [line for line in lines if all(cell in line for cell in cells)]
    assert found, f"{cells} not together on one line of:\n" + "\n".join(lines)
    return found[0]


@pytest.mark.parametrize("width", WIDTHS)
def test_where_tables_keep_figures_and_file_names(width: int) -> None:
    notes = Notes()
    lines = _text(width, locations_table(LOCATIONS, notes), devices_table(DEVICES, notes), rates_table(RATES, 5.0))
    header = _row(lines, "path", "disk", "part", "zone", "mean", "ext", "size", "known")
    assert "…" not in header
    for loc in LOCATIONS:
        name = loc.path.rsplit("/", 1)[1]
        figures = [human_bytes(loc.size_bytes), str(loc.extents)]
        if loc.zone_start is not None and loc.zone_end is not None and loc.zone_mean is not None:
            figures += [f"{loc.zone_start:.4f}-{loc.zone_end:.4f}", f"{loc.zone_mean:.4f}"]
        row = _row(lines, *figures, "no" if not loc.placement_known else "yes")
        if width == 200:
            assert loc.path in row
        elif len(name) < 16:
            assert "/" + name in row and "…" in row, "shortened in the middle, file name kept"
    _row(lines, "nvme0n1", "2.0 TiB", "nvme", "no", "512/512", "back", "known")
    _row(lines, "12345.6", "2345.6", "456.78", "123.45", "0.12", "1.23", "98.7")
    _row(lines, "device", "r/s", "w/s", "rMiB/s", "wMiB/s", "r_await ms", "w_await ms", "util %")


@pytest.mark.parametrize("width", WIDTHS)
def test_report_and_disk_maps_keep_figures_on_one_line(width: int, report: Report) -> None:
    console = Console(width=width, record=True, color_system=None)
    maps = build_audit_maps(sample_workload())
    render_terminal(report, console, maps)
    lines = console.export_text().splitlines()
    assert max(len(line.rstrip()) for line in lines) <= width
    _row(lines, "partition / area", "zone", "IO/s", "share")
    labels = [row.label for disk_map in maps.maps for row in disk_map.areas]
    assert all(any(f" {label} " in line for line in lines) for label in labels), \
        "whole area labels (tablespace names a DBA types), at 80 columns too"
    for disk_map in maps.maps:
        for row in (*disk_map.partitions, *disk_map.areas):
            assert row.start is not None and row.end is not None
            _row(lines, f"{row.start:.3f}-{row.end:.3f}", f"{row.io:.1f}")
    assert report.plan is not None
    for t in report.plan.service_times:
        _row(lines, t.area, f"{t.iops:.1f}", f"{t.before_ms:.2f}", f"{t.after_ms:.2f}")
    for finding in report.findings:
        if finding.predicted_gain is not None:
            _row(lines, f"predicted gain {100 * finding.predicted_gain:.0f} %")
    assert [line for line in lines if re.search(r"plan outer .* inner", line)], "the plan bar is one line"


def test_alike_warnings_are_one_line_per_kind(tmp_path: Path) -> None:
    """An AWR report whose every data file has an implausible read time (as real ones do)."""
    workload = read_report(Path(__file__).parents[1] / "oracle" / "fixtures" / "awr_12.1.0.2.html")
    template = ("File IO Stats line 78: Av Rd(ms) 5,400.00 of /u02/oradata/ORCL/users02.dbf is seconds per read, "
                "not milliseconds; figure dropped")
    alike = tuple(template.replace("line 78", f"line {78 + i}").replace("users02.dbf", f"users{i:02d}.dbf")
                  for i in range(40))
    report = advise(AdviceRequest(dataclasses.replace(workload, warnings=alike), models(), generated_at=AT))
    bullets = [line for line in _text(400, _Report(report)) if line.startswith("•")]
    assert [line for line in bullets if "Av Rd(ms)" in line] == [f"• {alike[0]} (and 39 more like it)"]
    assert len(bullets) == len(report.warnings) - 39 + 1 and f"{len(report.warnings)} warnings in all" in bullets[-1]
    every = [line for line in _text(400, _Report(report, verbose=True)) if line.startswith("•")]
    assert [line[2:] for line in every if "Av Rd(ms)" in line] == list(alike) and len(every) == len(report.warnings)
    assert all(warning in render_markdown(report) for warning in alike), "markdown keeps the full list"


class _Report:
    """The terminal report as one renderable, to print it on a test console."""

    def __init__(self, report: Report, verbose: bool = False) -> None:
        self.report, self.verbose = report, verbose

    def __rich_console__(self, console: Console, options: object) -> list[object]:
        render_terminal(self.report, console, verbose=self.verbose)
        return []


@pytest.mark.parametrize("width", WIDTHS)
def test_bench_profile_keeps_figures_on_one_line(width: int) -> None:
    from advisor.model.disk import DiskProfile, Latency, ZonePoint
    from advisor.render.disk_profile import render

    slow = Latency(12.3456, 11.9, 45.67)
    profile = DiskProfile(
        "/dev/disk/by-id/ata-ST4000DM004-2CV104_ZFN0XXXX-part3", "sdb", 4 * 1024**4, "2026-01-01T00:00:00+00:00",
        "fio", 4096, zones=(ZonePoint(0.0, 190.25e6), ZonePoint(1.0, 85.5e6)), band_iops={"outer": 171.0},
        band_latency={"outer": slow}, cross_surface_iops=46.0, cross_surface_latency=slow, qd_iops={16: 131.0},
        qd_latency={16: slow}, commit_per_s=118.0, commit_latency=slow)
    console = Console(width=width, record=True, color_system=None)
    render(profile, console)
    lines = console.export_text().splitlines()
    _row(lines, "test", "result", "mean ms", "p50 ms", "p99 ms")
    _row(lines, "190.2 → 85.5 MB/s")
    for figure in ("171 IOPS", "46 IOPS", "131 IOPS", "118/s"):
        _row(lines, figure, "12.35", "11.90", "45.67")
