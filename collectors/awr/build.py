"""Turn what a report says (:class:`ReportData`) into a Workload, checking it on the way.

File IO Stats is the source of truth for data and temp files. Tablespace IO Stats and
IOStat by Filetype are the report's redundant figures: :mod:`advisor.collectors.awr.reconcile`
checks the import against them and keeps the coverage in the workload. A stated Av Rd(ms) is
kept unless no device could produce it: above a second per read (the 12.1.0.2 magnitude,
36,250 ms beside a 2 ms db file sequential read); a negative, infinite or NaN figure is
dropped by :func:`advisor.model.scrub.scrub_workload`, each with a warning. So is a count above
what any server does in the interval.
Redo, archive, control and flashback IO come from IOStat by Filetype summary (per type, so
the rows have no path); when a report has no per-file data at all (12.2 to 19c often print
"No data exists") the data and temp types are used as type-level rows instead.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import replace

from advisor import __version__
from advisor.collectors.awr.reconcile import reconcile
from advisor.collectors.awr.sections import FiletypeRow, ReportData, release_tuple
from advisor.collectors.awr.segments import MOST_IOS_PER_S, with_segments
from advisor.collectors.awr.statspack import histogram_bounds_ms
from advisor.errors import BadInput
from advisor.model import FileKind, FileRate, InstanceShare, ReadEvidence, ServerInfo, WaitProfile, Workload
from advisor.model.scrub import scrub_workload
from advisor.rates.io_share import time_share
from advisor.units import MIB

KNOWN_MAJORS = (10, 11, 12, 18, 19, 21, 23)
TYPE_KINDS: dict[str, FileKind] = {
    "Log File": "redo", "Archive Log": "archive", "Control File": "control", "Flashback Log": "fra",
    "Data File": "data", "Temp File": "temp",
}


def _time(text: str, label: str, path: str) -> str:
    """Report times ("20-Nov-26 10:00:00", "01-Nov-26 08:00") as ISO 8601 (server local time).

    An empty time stays empty (the report does not say); one that is not a date is refused
    naming the field, e.g. a damaged "00-Nov-00 00:00:00".
    """
    if not text.strip():
        return ""
    for pattern in ("%d-%b-%y %H:%M:%S", "%d-%b-%y %H:%M"):
        try:
            return dt.datetime.strptime(text.strip(), pattern).isoformat()
        except ValueError:
            continue
    raise BadInput(f"{path}: {label} {text.strip()!r} is not a date (expected DD-Mon-YY HH:MI:SS)")


def _kind(tablespace: str) -> FileKind:
    name = tablespace.upper()
    if name.startswith("UNDO"):
        return "undo"
    if "TEMP" in name:
        return "temp"
    return "data"


def _server(data: ReportData, warnings: list[str]) -> ServerInfo:
    parts = release_tuple(data.release)
    try:
        started = _time(data.startup_time, "Startup Time", data.path)
    except BadInput as exc:  # only restart detection needs it; the interval's figures stand
        warnings.append(f"{exc.message}; startup time left unknown")
        started = ""
    version_num = parts[0] * 10000 + (parts[1] if len(parts) > 1 else 0) * 100
    settings = {"report": data.kind, "snaps": f"{data.begin_snap}-{data.end_snap}", "rac": "YES" if data.rac else "NO",
                "cdb": "YES" if data.cdb else "NO"}
    if data.block_size:
        settings["db_block_size"] = str(data.block_size)
    if data.exadata:  # the report prints storage cell sections
        settings["exadata"] = "YES"
    return ServerInfo(dbms="oracle", version=data.release, version_num=version_num, host=data.host,
                      name=data.db_name, identity=data.dbid, started_at=started,
                      instance=data.instance or None, settings=settings)


SLOWEST_READ_MS = 1000.0
"""An average read above a second is no device's figure: it is the 12.1.0.2 magnitude (the read
time printed in the wrong unit: 36,250 "ms" beside a 2 ms db file sequential read)."""


def _possible(data: ReportData, ms: float | None, where: str, warnings: list[str]) -> bool:
    """Whether a stated Av Rd(ms) could be true; only what no device produces is dropped.

    16.67 ms is an ordinary random read of a cold file on a hard disk, whatever the instance's
    cache-dominated event average says: that figure is kept, and the model compares it with
    the disk it predicts. Negative and NaN figures are dropped by the scrubber.
    """
    if ms is None or not ms > SLOWEST_READ_MS:
        return True
    average = data.event_avg_ms("db file sequential read")
    against = f"; db file sequential read averages {average:.2f} ms" if average is not None else ""
    warnings.append(f"{where}: Av Rd(ms) {ms:,.2f} is more than a second per read, which no device takes (the "
                    f"12.1.0.2 seconds-per-read magnitude{against}); read latency left unknown")
    return False


def _file_rates(data: ReportData, interval: float, block: int, warnings: list[str],
                rebuilt: set[str]) -> list[FileRate]:
    """Per-file rates; the files whose counts were rebuilt from per-second figures go into *rebuilt*."""
    rates = []
    for row in data.files:
        kind = _kind(row.tablespace)
        where = f"File IO Stats line {row.line} ({row.filename})"
        if row.reads is None or row.writes is None:
            rebuilt.add(row.filename)
        reads = _count(row.reads, row.reads_s, interval, "Reads", where, warnings)
        if reads is None:
            warnings.append(f"{where}: Reads and Av Reads/s are both unknown; the file is left out")
            data.left_out.append(row.filename)
            continue
        writes = _count(row.writes, row.writes_s, interval, "Writes", where, warnings)
        if max(reads, writes or 0.0) > MOST_IOS_PER_S * interval:
            warnings.append(f"{where}: {max(reads, writes or 0.0):,.0f} requests are more than any server does in "
                            f"{interval:,.0f} s; the file is left out")
            data.left_out.append(row.filename)
            continue
        read_iops = reads / interval
        latency = row.av_rd_ms
        if not _possible(data, latency, where, warnings):
            latency = None
        counts = data.histogram.get(row.filename)
        bounds = histogram_bounds_ms(counts) if counts else None
        if latency is not None and bounds and row.av_blks_rd and row.av_blks_rd <= 1.05:
            low, high = bounds
            if latency < low * 0.5 or (high is not None and latency > high * 1.5):
                warnings.append(f"{row.filename}: Av Rd(ms) {latency:.2f} disagrees with its read histogram")
        if row.single_reads_s is not None and read_iops > 0:
            random_share: float | None = min(1.0, row.single_reads_s / read_iops)
        elif row.av_blks_rd is not None and row.av_blks_rd <= 1.0:
            random_share = 1.0  # every read was one block
        else:
            random_share = None  # a mean above one block cannot be split into single and multiblock reads
        mean_kb = row.av_blks_rd * block / 1024 if row.av_blks_rd else None
        rates.append(FileRate(
            file_id=f"{kind}:{row.filename}", path=row.filename, kind=kind, tablespace=row.tablespace,
            container=row.pdb or data.db_name, size_bytes=None, read_iops=read_iops,
            write_iops=None if writes is None else writes / interval,
            read_mb_s=read_iops * (mean_kb or 0.0) * 1024 / MIB, write_mb_s=None, mean_read_kb=mean_kb,
            mean_write_kb=None, random_share=random_share, read_latency_ms=latency, write_latency_ms=None,
        ))
    return rates


def _count(total: float | None, per_s: float | None, interval: float, label: str, where: str,
           warnings: list[str]) -> float | None:
    """An interval count; when the report overflowed it, rebuilt from its per-second column."""
    if total is not None:
        return total
    if per_s is None:
        return None
    warnings.append(f"{where}: {label} overflowed its column; taken from its per-second figure ({per_s:,.2f}/s)")
    return per_s * interval


def _tablespace_rates(data: ReportData, interval: float, block: int, warnings: list[str]) -> list[FileRate]:
    """One rate row per tablespace (and PDB) from Tablespace IO Stats: the fallback without per-file rows.

    Each row stands for every file of its tablespace (``level`` "tablespace"): a plan moves the
    tablespace whole, and ``--sizes`` gives it its tablespace's total.
    """
    rates = []
    for row in data.tablespaces:
        where = f"Tablespace IO Stats line {row.line} ({row.tablespace})"
        cells = row.values
        reads = _count(cells.get("reads"), cells.get("reads_s"), interval, "Reads", where, warnings)
        if reads is None:
            warnings.append(f"{where}: Reads and Av Reads/s are both unknown; the tablespace is left out")
            continue
        writes = _count(cells.get("writes"), cells.get("writes_s"), interval, "Writes", where, warnings)
        if max(reads, writes or 0.0) > MOST_IOS_PER_S * interval:
            warnings.append(f"{where}: {max(reads, writes or 0.0):,.0f} requests are more than any server does in "
                            f"{interval:,.0f} s; the tablespace is left out")
            continue
        read_iops = reads / interval
        latency = cells.get("av_rd_ms")
        if not _possible(data, latency, where, warnings):
            latency = None
        blocks = cells.get("av_blks_rd")
        single = cells.get("single_reads_s")
        random_share = (min(1.0, single / read_iops) if single is not None and read_iops > 0
                        else 1.0 if blocks is not None and blocks <= 1.0 else None)
        mean_kb = blocks * block / 1024 if blocks else None
        kind = _kind(row.tablespace)
        container = row.pdb or data.db_name
        scope = f"{row.pdb}/" if row.pdb and data.cdb else ""
        rates.append(FileRate(
            file_id=f"tablespace:{scope}{row.tablespace}", path="", kind=kind, tablespace=row.tablespace,
            container=container, size_bytes=None, read_iops=read_iops,
            write_iops=None if writes is None else writes / interval,
            read_mb_s=read_iops * (mean_kb or 0.0) * 1024 / MIB, write_mb_s=None, mean_read_kb=mean_kb,
            mean_write_kb=None, random_share=random_share, read_latency_ms=latency, write_latency_ms=None,
            name="whole tablespace", level="tablespace"))
    return rates


def _merged_types(rows: list[FiletypeRow]) -> list[FiletypeRow]:
    """A global report's per-instance file-type rows as one row per type for the database.

    Rates per second add up across instances (each over its own elapsed time); the service
    times are averaged weighted by each instance's requests.
    """
    merged: dict[str, list[FiletypeRow]] = {}
    for row in rows:
        merged.setdefault(row.filetype, []).append(row)

    def total(values: list[float | None]) -> float | None:
        return None if all(v is None for v in values) else sum(v or 0.0 for v in values)

    def weighted(group: list[FiletypeRow], times: list[float | None]) -> float | None:
        pairs = [(t, r.read_reqs_s or 0.0) for t, r in zip(times, group, strict=True) if t is not None]
        weight = sum(w for _, w in pairs)
        return sum(t * w for t, w in pairs) / weight if weight else (pairs[0][0] if pairs else None)

    return [FiletypeRow(name, total([r.read_bytes for r in g]), total([r.read_reqs_s for r in g]),
                        total([r.read_bytes_s for r in g]), total([r.write_bytes for r in g]),
                        total([r.write_reqs_s for r in g]), total([r.write_bytes_s for r in g]),
                        weighted(g, [r.small_read_ms for r in g]), weighted(g, [r.large_read_ms for r in g]))
            for name, g in merged.items()]


def _instance_shares(data: ReportData, warnings: list[str]) -> tuple[InstanceShare, ...]:
    """Each instance's requests (every file type), DB time and IO wait; a warning when the intervals differ."""
    shares = []
    for instance in data.instances:
        rows = [r for r in data.filetypes if r.instance == instance.number]
        writes = [r.write_reqs_s for r in rows]
        shares.append(InstanceShare(
            instance_number=instance.number, instance=instance.name, host=instance.host,
            interval_s=instance.elapsed_s, read_iops=sum(r.read_reqs_s or 0.0 for r in rows),
            write_iops=None if rows and all(w is None for w in writes) else sum(w or 0.0 for w in writes),
            db_time_s=instance.db_time_s, io_wait_s=instance.io_wait_s))
    elapsed = [i.elapsed_s for i in data.instances if i.elapsed_s is not None]
    if elapsed and max(elapsed) - min(elapsed) > max(90.0, 0.01 * max(elapsed)):
        each = ", ".join(f"{i.name or i.number} {i.elapsed_s / 60:,.1f} min" for i in data.instances
                         if i.elapsed_s is not None)
        warnings.append(f"the instances disagree on the interval ({each}); the longest, {max(elapsed) / 60:,.1f} min, "
                        "is the workload's (each instance's rates are over its own interval)")
    return tuple(shares)


def _global_warnings(data: ReportData) -> list[str]:
    """What a global RAC report holds and lacks, and what gives the rest."""
    notes = [f"global RAC report (awrgrpt.sql) of {len(data.instances)} instances: the database's IO by file type, "
             "summed over the instances (each instance's share under 'instances'); it has no per-file or "
             "per-tablespace figures, so data and temp files are one row per type. For per-file figures run "
             "awrrpti.sql for each instance (File IO Stats, or Tablespace IO Stats when File IO Stats is empty)"]
    if data.exadata:
        notes.append("Exadata: the report has storage cell sections; the cells place the data on their own disks and "
                     "flash, so zone placement does not apply. The IO shares and latencies still show which file "
                     "types and instances load the storage")
    return notes


def _type_rate(data: ReportData, row: FiletypeRow, kind: FileKind) -> FileRate:
    reads, writes = row.read_reqs_s or 0.0, row.write_reqs_s
    read_ms = row.small_read_ms if row.small_read_ms else row.large_read_ms
    write_ms = data.event_avg_ms("log file parallel write") if kind == "redo" else None
    return FileRate(
        file_id=f"{kind}:{row.filetype}", path="", kind=kind, tablespace="", container=data.db_name, size_bytes=None,
        read_iops=reads, write_iops=writes, read_mb_s=(row.read_bytes_s or 0.0) / MIB,
        write_mb_s=None if row.write_bytes_s is None else row.write_bytes_s / MIB,
        mean_read_kb=(row.read_bytes_s or 0.0) / reads / 1024 if reads else None,
        mean_write_kb=(row.write_bytes_s or 0.0) / writes / 1024 if writes else None,
        random_share=None, read_latency_ms=read_ms, write_latency_ms=write_ms, name=row.filetype, level="file type",
    )


def _interval(data: ReportData, begin: str, end: str) -> float:
    """The snapshot interval: Elapsed, checked against the Begin/End Snap times when both exist.

    Elapsed read with the wrong decimal separator (``9,23`` minutes as 923) is the error
    this catches: it would make every rate a hundred times too small.
    """
    between = (dt.datetime.fromisoformat(end) - dt.datetime.fromisoformat(begin)).total_seconds() \
        if begin and end else None
    interval = data.elapsed_s if data.elapsed_s is not None else between
    if interval is None or not math.isfinite(interval) or interval <= 0:
        raise BadInput(f"{data.path}: no snapshot interval in the header (Elapsed or Begin/End Snap times)")
    if between is not None and data.elapsed_s is not None and abs(between - interval) > max(90.0, 0.01 * between):
        raise BadInput(f"{data.path}: Elapsed {interval / 60:,.2f} min disagrees with the Begin/End Snap times "
                       f"({between / 60:,.2f} min apart); damaged report or unexpected number format")
    return interval


def build_workload(data: ReportData) -> Workload:
    """The workload a report describes, with every check's warnings."""
    warnings = list(data.warnings)
    if not data.release:
        raise BadInput(f"{data.path}: the report header has no Release (truncated or not an AWR/Statspack report)")
    if release_tuple(data.release)[0] not in KNOWN_MAJORS:
        warnings.append(f"release {data.release} is not one advisor knows; figures read on a best-effort basis")
    begin = _time(data.begin_time, "Begin Snap time", data.path)
    end = _time(data.end_time, "End Snap time", data.path)
    interval = _interval(data, begin, end)
    block = data.block_size or 8192
    if not data.block_size and data.kind != "awr-global":  # a global report's rows carry their bytes
        warnings.append("no Std Block Size in the report: 8 KiB assumed for IO sizes")
    instances: tuple[InstanceShare, ...] = ()
    if data.kind == "awr-global":
        warnings.extend(_global_warnings(data))
        instances = _instance_shares(data, warnings)
        data.filetypes = _merged_types(data.filetypes)
    elif data.rac:
        warnings.append(f"RAC report of instance {data.inst_num or data.instance} only: the other instances' IO is "
                        "not in it (import one report per instance, or the global report awrgrpt.sql for the "
                        "database's IO by file type)")
    rebuilt: set[str] = set()
    rates = _file_rates(data, interval, block, warnings, rebuilt)
    for section in data.empty_sections:
        warnings.append(f"{section}: the report says 'No data exists for this section'")
    if not rates and data.tablespaces:
        rates = _tablespace_rates(data, interval, block, warnings)
        missing = "has no File IO Stats section" if data.file_io_absent else "says 'No data' under File IO Stats"
        warnings.append(f"the report {missing}: each tablespace is one area (tablespace-level figures from Tablespace "
                        "IO Stats); a plan moves a tablespace's files together")
    types = [] if rates else ["Data File", "Temp File"]
    if not rates and data.filetypes and data.kind != "awr-global":
        warnings.append("no per-file figures in this report: data and temp files appear as one row per file type")
    for row in data.filetypes:
        kind = TYPE_KINDS.get(row.filetype)
        if kind is not None and (kind not in ("data", "temp") or row.filetype in types):
            rates.append(_type_rate(data, row, kind))
    if not any(r.kind == "redo" for r in rates) and "log file parallel write" in data.events:
        waits, seconds = data.events["log file parallel write"]
        rates.append(FileRate(file_id="redo:log file parallel write", path="", kind="redo", tablespace="",
                              container=data.db_name, size_bytes=None, read_iops=0.0, write_iops=waits / interval,
                              read_mb_s=0.0, write_mb_s=None, mean_read_kb=None, mean_write_kb=None, random_share=None,
                              read_latency_ms=None, write_latency_ms=seconds * 1000 / waits if waits else None,
                              name="redo writes (log file parallel write)", level="file type"))
    if not rates:
        raise BadInput(f"{data.path}: no File IO Stats, IOStat by Filetype or redo figures found (truncated report?)")
    io_s = None
    if data.wait_classes:
        io_s = sum(s for c, s in data.wait_classes.items() if c in ("User I/O", "System I/O"))
    if io_s is None and data.events:
        from advisor.collectors.oracle.history import USER_IO_EVENTS

        io_s = sum(s for name, (_, s) in data.events.items() if name in USER_IO_EVENTS)
    wait = WaitProfile(io_wait_share=time_share(data.db_time_s, io_s),  # the report's own interval: as stated
                       db_time_s=data.db_time_s, io_wait_s=io_s, source=f"{data.kind}: DB time and IO wait classes")
    workload = Workload(server=_server(data, warnings), started_at=begin, ended_at=end, interval_s=interval,
                        rates=tuple(rates), wait=wait, warnings=tuple(warnings), source=data.kind,
                        tool_version=__version__, read_evidence=_read_evidence(data, rates), instances=instances)
    workload = scrub_workload(with_segments(workload, data))
    checks, gaps = reconcile(data, workload, rebuilt)
    return replace(workload, coverage=checks, warnings=workload.warnings + tuple(gaps))


def _read_evidence(data: ReportData, rates: list[FileRate]) -> ReadEvidence:
    """Per file the single-block read time and read histogram, and the read events' histograms.

    Timings are "off" when the report counts ``db file sequential read`` waits but no time for
    them (``timed_statistics`` false): every Av Rd(ms) of 0 is then untimed, not instant.
    """
    rows = {row.filename: row for row in data.files}
    single: dict[str, float] = {}
    histograms: dict[str, tuple[float, ...]] = {}
    for rate in rates:
        row = rows.get(rate.path) if rate.path else None
        if row is None:
            continue
        if row.av_single_rd_ms is not None and row.single_reads_s:
            single[rate.file_id] = row.av_single_rd_ms
        counts = data.histogram.get(rate.path)
        if counts and sum(counts) > 0:
            histograms[rate.file_id] = tuple(counts)
    waits, seconds = data.events.get("db file sequential read", (0.0, 0.0))
    return ReadEvidence(single_block_ms=single, file_histograms=histograms, events=tuple(data.event_histograms),
                        timed=not (waits > 0 and seconds == 0), rounding_ms=0.005 if data.kind == "awr-html" else 0.05)
