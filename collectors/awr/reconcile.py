"""Check an imported report against the report's own redundant figures.

A report states the same IO several times: per file (File IO Stats), per tablespace
(Tablespace IO Stats) and per file type (IOStat by Filetype summary). An import that read
every row sums to those figures within rounding; one that lost rows (a layout the readers
misjudged, a row dropped as impossible) falls short, and the gap is named here, so a parser
mistake shows even on a report nobody has seen before.

* Files against tablespaces (exact: both are interval counts of the same view): per
  tablespace, the files' reads and writes against the tablespace's. On 11.2.0.4 HTML the
  tablespace cells are shifted against their headers (Writes under "1-bk Rds/s"); that layout
  is recognised by its figures and read accordingly.
* Files against IOStat by Filetype (looser: per-second figures rounded to one or two
  decimals, and V$IOSTAT_FILE counts requests where the file view counts read calls): data
  and undo files against "Data File", temp files against "Temp File"; a gap above 10 % warns
  but does not fail ``--strict``.
* Files against Load Profile's Read/Write IO requests (loosest: those count control file
  reads too); a gap above 25 % warns, never ``--strict``.

Each check is kept in the workload (:class:`advisor.model.CoverageCheck`) and shown in the
header of ``advisor workload`` and ``advisor report``.
"""

from __future__ import annotations

import math

from advisor.collectors.awr.sections import ReportData, TablespaceRow
from advisor.collectors.awr.segments import MOST_IOS_PER_S
from advisor.model import CoverageCheck, FileRate, Workload

LOOSE_SHARE = 0.10
"""The looser checks warn only past this share of the stated figure (their meanings differ slightly)."""


def _possible(count: float, interval: float) -> bool:
    """A count some server could reach in the interval (finite, not negative, not beyond any storage)."""
    return math.isfinite(count) and 0.0 <= count <= MOST_IOS_PER_S * interval


def _close(stated: float | None, accounted: float, tolerance: float) -> bool:
    return stated is not None and abs(stated - accounted) <= tolerance


def _shifted(rows: list[TablespaceRow], sums: dict[tuple[str, str], list[float]], container: str) -> bool:
    """Whether the tablespace cells follow the 11.2.0.4 layout (Writes printed under "1-bk Rds/s")."""
    votes = [r for r in rows if (key := (r.tablespace, r.pdb or container)) in sums
             and _close(r.values.get("single_reads_s"), sums[key][1], 1.0 + 1e-4 * sums[key][1])
             and not _close(r.values.get("writes"), sums[key][1], 1.0 + 1e-4 * sums[key][1])]
    return len(votes) * 2 > len(rows) or (bool(votes) and all(
        r.values.get("writes") in (0.0, None) for r in votes))


def _per_tablespace(data: ReportData, files: list[FileRate], interval: float,
                    rebuilt: set[str]) -> tuple[list[CoverageCheck], list[str]]:
    """Files against Tablespace IO Stats, per tablespace (and container in a CDB report)."""
    sums: dict[tuple[str, str], list[float]] = {}
    slack: dict[tuple[str, str], float] = {}
    for rate in files:
        key = (rate.tablespace, rate.container)
        total = sums.setdefault(key, [0.0, 0.0])
        total[0] += rate.read_iops * interval
        total[1] += (rate.write_iops or 0.0) * interval
        if rate.path in rebuilt:  # a count rebuilt from a per-second figure printed to the unit
            slack[key] = slack.get(key, 0.0) + 0.5 * interval
    shifted = _shifted(data.tablespaces, sums, data.db_name)
    warnings: list[str] = []
    totals = {"reads": [0.0, 0.0], "writes": [0.0, 0.0]}
    gaps: dict[str, list[str]] = {"reads": [], "writes": []}
    excess = {"reads": 0.0, "writes": 0.0}
    for ts in data.tablespaces:
        key = (ts.tablespace, ts.pdb or data.db_name)
        accounted = sums.get(key, [0.0, 0.0])
        stated = {"reads": ts.values.get("reads"),
                  "writes": ts.values.get("single_reads_s" if shifted else "writes")}
        for index, measure in enumerate(("reads", "writes")):
            figure = stated[measure]
            if figure is None:
                continue  # overflowed or absent: nothing exact to compare
            if not _possible(figure, interval):
                warnings.append(f"Tablespace IO Stats line {ts.line}: {ts.tablespace} {measure} {figure:,.0f} is "
                                "not a count any server reaches; that figure is not checked")
                continue
            tolerance = 1.0 + 1e-4 * figure + slack.get(key, 0.0)
            totals[measure][0] += min(accounted[index], figure)
            totals[measure][1] += figure
            share = 100.0 * accounted[index] / figure if figure else 0.0
            if accounted[index] < figure - tolerance:
                # the same view printed twice: a gap is rows lost on the way (a layout misread, damage)
                gap = (f"File IO Stats: the files of {_name(ts, data)} sum to {accounted[index]:,.0f} {measure}, "
                       f"Tablespace IO Stats says {figure:,.0f} ({share:.1f} %); rows were not read")
                gaps[measure].append(gap)
                warnings.append(gap)
            elif accounted[index] > figure + tolerance:
                excess[measure] += accounted[index] - figure
                gap = (f"File IO Stats: the files of {_name(ts, data)} sum to {accounted[index]:,.0f} {measure}, more "
                       f"than Tablespace IO Stats line {ts.line} says ({figure:,.0f}, {share:.1f} %): a row counted "
                       "twice or a misread cell; the file figures are used")
                gaps[measure].append(gap)
                warnings.append(gap)
    if shifted:
        warnings.append("Tablespace IO Stats: the cells are shifted against the headers (the 11.2.0.4 layout: "
                        "Writes printed under 1-bk Rds/s); read by their position")
    checks = [CoverageCheck("File IO Stats / Tablespace IO Stats", "files", f"tablespace {measure}",
                            totals[measure][0], totals[measure][1], tuple(gaps[measure]), excess=excess[measure])
              for measure in ("reads", "writes") if totals[measure][1] > 0]
    return checks, warnings


def _why_short(data: ReportData, rows: str, listed: bool) -> str:
    """Why imported rows fall short: the import left rows out (a parser matter), or the report lists none.

    Only the first suggests lost data; a report that prints fewer rows than its totals count
    (no tempfile row beside temp writes in IOStat) is the report's own gap.
    """
    if data.left_out:
        shown = ", ".join(data.left_out[:3]) + (", ..." if len(data.left_out) > 3 else "")
        return f"rows were not read ({len(data.left_out)} left out: {shown})"
    if not listed:
        return f"the report lists no {rows} (every row it prints was read)"
    return f"the report's own {rows} sum to less (every row it prints was read)"


def _name(ts: TablespaceRow, data: ReportData) -> str:
    return f"{ts.tablespace} ({ts.pdb})" if ts.pdb and data.cdb else ts.tablespace


def _per_filetype(data: ReportData, files: list[FileRate], interval: float) -> tuple[list[CoverageCheck], list[str]]:
    """Data and temp files (or tablespaces) against IOStat by Filetype summary (a looser check)."""
    tablespaces = any(r.level == "tablespace" for r in files)
    source, unit = ("Tablespace IO Stats", "tablespaces") if tablespaces else ("File IO Stats", "files")
    checks: list[CoverageCheck] = []
    warnings: list[str] = []
    for filetype, temp in (("Data File", False), ("Temp File", True)):
        row = next((r for r in data.filetypes if r.filetype == filetype), None)
        if row is None:
            continue
        group = [r for r in files if (r.kind == "temp") == temp]
        for measure, per_s, accounted in (
                ("reads", row.read_reqs_s, sum(r.read_iops for r in group) * interval),
                ("writes", row.write_reqs_s, sum(r.write_iops or 0.0 for r in group) * interval)):
            if per_s is None or per_s <= 0 or not _possible(per_s * interval, interval):
                continue
            stated = per_s * interval
            tolerance = max(0.5 * interval, LOOSE_SHARE * stated)
            gaps: tuple[str, ...] = ()
            what = f"{'temp' if temp else 'data'} {unit}"
            if accounted < stated - tolerance:
                gaps = (f"{source}: the {what} sum to {accounted:,.0f} {measure}, "
                        f"IOStat by Filetype summary says {stated:,.0f} for {filetype} "
                        f"({100.0 * accounted / stated:.1f} %); {_why_short(data, what[:-1] + ' rows', bool(group))}",)
                warnings.extend(gaps)
            checks.append(CoverageCheck(f"{source} / IOStat by Filetype", what, f"{filetype} {measure}",
                                        min(accounted, stated), stated, gaps, strict=False))
    return checks, warnings


LOAD_PROFILE_SHARE = 0.25
"""Load Profile counts reads the files do not (control file reads): it warns only past this gap."""


def _per_load_profile(data: ReportData, files: list[FileRate],
                      interval: float) -> tuple[list[CoverageCheck], list[str]]:
    """All files against Load Profile's Read/Write IO requests (the loosest check).

    "Read IO requests" is the instance's physical read IO requests: data and temp files, and
    also control file reads; "Write IO requests" are data and temp file writes (DBWR, direct
    writes), not redo. So the files may fall a little short of it by design.
    """
    checks: list[CoverageCheck] = []
    warnings: list[str] = []
    source, unit = ("Tablespace IO Stats", "tablespaces") if any(r.level == "tablespace" for r in files) \
        else ("File IO Stats", "files")
    for measure, accounted in (("reads", sum(r.read_iops for r in files) * interval),
                               ("writes", sum(r.write_iops or 0.0 for r in files) * interval)):
        per_s = data.load_profile.get(measure)
        if per_s is None or per_s <= 0 or not _possible(per_s * interval, interval):
            continue
        stated = per_s * interval
        gaps: tuple[str, ...] = ()
        if accounted < stated - max(0.05 * interval, LOAD_PROFILE_SHARE * stated):
            gaps = (f"{source}: the {unit} sum to {accounted:,.0f} {measure}, Load Profile says {stated:,.0f} "
                    f"{measure[:-1]} IO requests ({100.0 * accounted / stated:.1f} %); "
                    f"{_why_short(data, unit[:-1] + ' rows', bool(files))}",)
            warnings.extend(gaps)
        checks.append(CoverageCheck(f"{source} / Load Profile", unit, f"{measure[:-1]} IO requests",
                                    min(accounted, stated), stated, gaps, strict=False))
    return checks, warnings


def reconcile(data: ReportData, workload: Workload, rebuilt: set[str]) -> tuple[tuple[CoverageCheck, ...], list[str]]:
    """Every check this report allows, and the warnings for its gaps.

    Only rows that reached the workload count: a row dropped as impossible shows as a gap. A
    per-instance report without a File IO Stats section at all (cut out; not the "No data" of
    12.2 to 19c) is itself a gap that fails ``--strict``, whatever the fallback rows show.
    """
    checks: list[CoverageCheck] = []
    warnings: list[str] = []
    kept = {r.path for r in workload.rates}  # a row the scrubber dropped as impossible was not read either
    data.left_out += [f.filename for f in data.files if f.filename not in kept and f.filename not in data.left_out]
    if data.file_io_absent and data.kind != "awr-global":
        gap = ("File IO Stats: the report has no such section (cut out, or printed without it); per-file figures "
               "are missing")
        checks.append(CoverageCheck("File IO Stats", "files", "no File IO Stats section in the report", 0.0, 0.0,
                                    (gap,)))
        warnings.append(gap)
    files = [r for r in workload.rates if r.path]
    rows = files or [r for r in workload.rates if r.level == "tablespace"]
    if not rows:
        return tuple(checks), warnings
    if files:
        exact, said = _per_tablespace(data, files, workload.interval_s, rebuilt)
        checks += exact
        warnings += said
    loose, more = _per_filetype(data, rows, workload.interval_s)
    loosest, most = _per_load_profile(data, rows, workload.interval_s)
    return tuple(checks + loose + loosest), warnings + more + most


def strict_shortfalls(workload: Workload) -> list[str]:
    """The gaps that make ``--strict`` refuse a workload (exit 6)."""
    return [gap for check in workload.coverage if check.strict for gap in check.shortfalls]
