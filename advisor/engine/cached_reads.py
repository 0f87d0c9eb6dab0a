"""Reads no disk served, estimated from the latencies an AWR or Statspack report states.

A report counts every physical read of a file, also those the OS page cache (a buffered file
system) or an array's cache served: one 11.2 file read 1,226 times a second at 0.03 ms. No
rotating disk reads that fast, so planning devices for those reads sizes them for load they
never see. Without the kernel's counters of the same interval (:mod:`advisor.engine.calibrate`
uses them for live workloads) the reads' times are the evidence. Each read either came from a
cache (time c >= 0) or from a disk (time d); the file's mean m = s*c + (1-s)*d, so whatever c
is, ``s >= 1 - m / floor`` where *floor* is the least mean time a disk read can take:

* a single-block read: ``CACHE_HIT_MS`` (1 ms). Half a revolution of the fastest rotating
  drive (15,000 rpm) is 2 ms on average before any seek, so disk reads average well above it;
* a multi-block read of B bytes: its transfer at ``STREAM_MB_S_DECIMAL`` (a drive streaming from its
  outer zone, seek and rotation free);
* both, weighted by the file's single-block share (``1-bk Rds/s``), and with ``Av 1-bk
  Rd(ms)`` (11.2.0.4+) the two kinds are bounded apart;
* with Statspack's File Read Histogram (single-block reads by 0-2, 2-4 ... 32+ ms bucket)
  every read above 2 ms took at least its bucket's lower bound, which leaves less of the
  file's total read time for disk reads in the 0-2 ms bucket: the bound is tighter.

So the share is a lower bound: never more of the reads than the times prove are called
cached, and the plan never counts less disk load than the report supports. A file with an
ordinary 8 ms read time gets 0. A file with no read time (empty or dropped Av Rd(ms), or a
report whose timings are all zero) gets None: unknown, its reads kept as stated. The bound
assumes today's files sit on rotating disks: reads of flash take 0.1-1 ms, and a wide stripe
streams a large read faster than one drive, so there the share is over-estimated (``--cache
lost`` plans by all reads). docs/awr-import.md, "Cached reads", says the same with examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from advisor.model import FileRate, Finding, ReadEvidence, Workload

CACHE_HIT_MS = 1.0
"""A single-block read faster than this on average was not a rotating disk's (half a 15k rpm turn is 2 ms)."""

STREAM_MB_S_DECIMAL = 300.0
"""Fastest stream of one rotating drive, MB/s: above the drive catalogue's best outer zone (210 MB/s)
and the 285 MB/s datasheet figure of 2020s 20+ TB drives; a multi-block read faster than its transfer
at this rate did not come from one disk."""

REPORT_SOURCES = frozenset({"awr-html", "awr-text", "statspack"})
HISTOGRAM_LOW_MS = (0.0, 2.0, 4.0, 8.0, 16.0, 32.0)  # Statspack File Read Histogram bucket lower bounds

CACHED_FINDING_SHARE = 0.5
"""READS_CACHED for a file when at least half its reads came from a cache..."""

CACHED_FINDING_IOPS = 10.0
"""...and it read at least 10 times a second (below, the load is too small to matter)."""


@dataclass(frozen=True, slots=True)
class CachedEstimate:
    """One file's reads and the share of them (a lower bound) that no disk served; None: unknown."""

    file_id: str
    path: str
    tablespace: str
    read_iops: float
    read_mb_s: float
    share: float | None  # of read requests
    byte_share: float | None  # of read bytes
    latency_ms: float | None
    basis: str  # the figures the share rests on, or why it is unknown

    @property
    def disk_read_iops(self) -> float:
        """Reads a disk served (all of them when the share is unknown)."""
        return self.read_iops * (1.0 - (self.share or 0.0))


def _transfer_ms(nbytes: float) -> float:
    return nbytes / (STREAM_MB_S_DECIMAL * 1e6) * 1000.0


def _histogram_bound(counts: Sequence[float], mean_ms: float) -> float | None:
    """Share of single-block reads a cache served, from the buckets and the mean read time.

    The reads above 2 ms took at least their buckets' lower bounds; what is left of the total
    time pays for the disk reads in the 0-2 ms bucket at ``CACHE_HIT_MS`` each at least. None
    when the two disagree (the mean is below what the buckets' reads took at the least).
    """
    total = sum(counts)
    budget = mean_ms * total - sum(n * low for n, low in zip(counts[1:], HISTOGRAM_LOW_MS[1:], strict=False))
    if not total or budget < 0:
        return None
    disk_fast = min(counts[0], budget / CACHE_HIT_MS)
    return (counts[0] - disk_fast) / total


def _bound(mean_ms: float, floor_ms: float) -> float:
    return max(0.0, 1.0 - mean_ms / floor_ms) if floor_ms > 0 else 0.0


def estimate_file(rate: FileRate, evidence: ReadEvidence | None, block_bytes: int) -> CachedEstimate:
    """The share of *rate*'s reads no disk served, from its read time and the report's histograms."""
    ev = evidence or ReadEvidence()
    base = CachedEstimate(rate.file_id, rate.path or rate.name or rate.file_id, rate.tablespace, rate.read_iops,
                          rate.read_mb_s, None, None, rate.read_latency_ms, "")
    stated = rate.read_latency_ms
    if stated is None:
        return _with(base, None, None,
                     "no read time in the report (the cell is empty, or the figure was dropped as impossible)")
    if not ev.timed:
        return _with(base, None, None, "the report's timings are all zero (timed_statistics off)")
    mean = stated + ev.rounding_ms  # the most the printed figure may stand for
    blocks = (rate.mean_read_kb or 0.0) * 1024 / block_bytes if rate.mean_read_kb else 1.0
    single = rate.random_share
    if single is None and blocks <= 1.05:
        single = 1.0
    if single is None:  # the split is unknown: every read may have streamed (the lowest floor)
        return _with(base, _bound(mean, _transfer_ms(blocks * block_bytes)), None,
                     "Av Rd(ms) against a disk's streaming rate (single-block share unknown)")
    multi_blocks = max(1.0, (blocks - single) / (1.0 - single)) if single < 1.0 else 1.0
    multi_floor = _transfer_ms(multi_blocks * block_bytes)
    floor = single * CACHE_HIT_MS + (1.0 - single) * multi_floor
    counts = ev.file_histograms.get(rate.file_id)
    if single >= 0.95:  # (nearly) all single-block reads: the File Read Histogram's population
        share = _bound(mean, floor)
        by_buckets = _histogram_bound(counts, mean) if counts else None
        if by_buckets is not None:
            return _with(base, max(share, by_buckets * single), None, "Av Rd(ms) and the File Read Histogram")
        if counts:
            return _with(base, share, None, "Av Rd(ms); the File Read Histogram disagrees with it")
        return _with(base, share, None, "Av Rd(ms) of single-block reads")
    stated_single = ev.single_block_ms.get(rate.file_id)
    if stated_single is None or single <= 0:
        return _with(base, _bound(mean, floor), None, "Av Rd(ms), single- and multi-block reads together")
    # each bound on its safe side: single-block reads at their slowest, multi-block ones at their slowest too
    single_hi = stated_single + ev.rounding_ms
    single_lo = max(0.0, stated_single - ev.rounding_ms)
    multi_ms = max(0.0, (mean - single * single_lo) / (1.0 - single))
    s1, s_multi = _bound(single_hi, CACHE_HIT_MS), _bound(multi_ms, multi_floor)
    share = single * s1 + (1.0 - single) * s_multi
    byte_share = (single * s1 + (1.0 - single) * s_multi * multi_blocks) / max(blocks, 1.0)
    return _with(base, share, byte_share, "Av 1-bk Rd(ms) and Av Rd(ms)")


def _with(base: CachedEstimate, share: float | None, byte_share: float | None, basis: str) -> CachedEstimate:
    bytes_ = share if byte_share is None else byte_share
    return CachedEstimate(base.file_id, base.path, base.tablespace, base.read_iops, base.read_mb_s,
                          None if share is None else min(1.0, share), None if bytes_ is None else min(1.0, bytes_),
                          base.latency_ms, basis)


def estimate(workload: Workload) -> tuple[CachedEstimate, ...]:
    """Every reading file's estimate, for a workload imported from a report; () for any other."""
    if workload.source not in REPORT_SOURCES:
        return ()
    block = int(workload.server.settings.get("db_block_size", "8192") or 8192)
    return tuple(estimate_file(r, workload.read_evidence, block) for r in workload.rates if r.read_iops > 0)


def factors(estimates: Sequence[CachedEstimate]) -> dict[str, tuple[float, float]]:
    """file_id -> (IOPS, MB/s) factors of the reads a disk served, for the files with a share above 0."""
    return {e.file_id: (1.0 - e.share, 1.0 - (e.byte_share or 0.0)) for e in estimates if e.share}


def _floor_pct(share: float) -> str:
    return f"{int(share * 100)} %"  # never rounded up: the share is a lower bound


def _ms(e: CachedEstimate, rounding_ms: float) -> str:
    """The read time as the report states it; a printed 0 is "under" its last digit."""
    if e.latency_ms is not None and e.latency_ms < rounding_ms:
        return f"under {rounding_ms:.2g} ms"
    return f"{e.latency_ms or 0.0:.2f} ms"


def _cached_line(e: CachedEstimate, kept: bool | None, rounding_ms: float) -> str:
    share = e.share or 0.0
    plan = (f"at most {e.disk_read_iops:,.1f} r/s reached a disk" if kept is None
            else f"planned by the {e.disk_read_iops:,.1f} r/s a disk served (--cache kept)" if kept
            else f"planned by all {e.read_iops:,.1f} r/s (--cache lost)")
    return (f"{e.tablespace or e.path} ({e.path}): {e.read_iops:,.1f} r/s, at least {_floor_pct(share)} from a cache "
            f"at {_ms(e, rounding_ms)} per read ({e.basis}); {plan}")


def notes(estimates: Sequence[CachedEstimate], evidence: ReadEvidence | None, interval_s: float,
          kept: bool | None) -> list[str]:
    """Report notes: the files read from a cache, those whose share is unknown, the instance's histograms.

    *kept* is the plan's ``--cache`` choice; None when there is no plan (``advisor workload``).
    """
    rounding = evidence.rounding_ms if evidence else 0.0
    out = [_cached_line(e, kept, rounding) for e in sorted(estimates, key=lambda e: -e.read_iops)
           if e.share is not None and e.share >= 0.01]
    unknown = [e for e in estimates if e.share is None]
    if unknown:
        why = sorted({e.basis for e in unknown})
        files = f"{len(unknown)} file{'s' if len(unknown) != 1 else ''}"
        verb = "have" if len(unknown) != 1 else "has"
        out.append(f"{files} ({sum(e.read_iops for e in unknown):,.1f} r/s) {verb} no usable read time "
                   f"({'; '.join(why)}): the share of their reads a cache served is unknown, and their reads are "
                   "planned as stated")
    if estimates and not out:
        out.append("Read times of every file are those of disk reads (none faster than a rotating disk reads): "
                   "no read is counted as served by a cache.")
    if out and kept is None:
        out.insert(0, "Cached reads (a share is a lower bound, from each file's read time; docs/awr-import.md):")
    for event in (evidence.events if evidence else ()):
        under = event.share_under(CACHE_HIT_MS)
        if under is None:
            continue
        total = f"{event.total_waits:,.0f} " if event.total_waits is not None else ""
        per_s = f" ({event.total_waits * under / interval_s:,.1f}/s)" if event.total_waits and interval_s > 0 else ""
        out.append(f"Wait Event Histogram: {under:.1%} of {total}{event.event} waits took under 1 ms{per_s}: a "
                   "cache served them (instance-wide, not per file)")
    return out


def findings(estimates: Sequence[CachedEstimate], kept: bool, rounding_ms: float = 0.0) -> list[Finding]:
    """READS_CACHED for each file of a report import whose reads mostly came from a cache."""
    found = []
    for e in estimates:
        if e.share is None or e.share < CACHED_FINDING_SHARE or e.read_iops < CACHED_FINDING_IOPS:
            continue
        if kept:
            action = (f"The plan counts the {e.disk_read_iops:,.1f} r/s a disk served (--cache kept): right when the "
                      "new server keeps this cache (a buffered file system with as much free memory, or the same "
                      "array cache). Direct IO, ASM or less memory lose it: plan with --cache lost.")
        else:
            action = (f"The plan counts all {e.read_iops:,.1f} r/s as disk reads (--cache lost). If the new server "
                      "keeps the cache (same file system and memory, or array cache), --cache kept plans by the "
                      f"{e.disk_read_iops:,.1f} r/s a disk served.")
        found.append(Finding(
            code="READS_CACHED", severity="low", subject=e.path,
            title=f"At least {_floor_pct(e.share)} of {e.tablespace or e.path}'s {e.read_iops:,.1f} reads/s came "
                  f"from a cache ({_ms(e, rounding_ms)} per read)",
            evidence={"file": e.path, "tablespace": e.tablespace, "db_read_iops": round(e.read_iops, 2),
                      "disk_read_iops": round(e.disk_read_iops, 2), "db_read_mb_s": round(e.read_mb_s, 3),
                      "cached_share": round(e.share, 4), "read_latency_ms": e.latency_ms, "basis": e.basis,
                      "cache": "kept" if kept else "lost"},
            predicted_gain=None, action=action,
        ))
    return found
