"""What a report states about read latency beyond each file's mean: the evidence for cached reads.

An AWR or Statspack report gives every file's ``Av Rd(ms)`` (kept in ``FileRate.read_latency_ms``).
Some layouts say more: ``Av 1-bk Rd(ms)`` (11.2.0.4+, single-block reads only), Statspack's
per-file "File Read Histogram Stats" (single-block reads by 0-2, 2-4 ... 32+ ms bucket) and the
instance's "Wait Event Histogram" (% of waits per bucket, ``<1ms`` first). The importer keeps
them here as stated; :mod:`advisor.engine.cached_reads` turns them into the share of each file's
reads that no disk served.
"""

from __future__ import annotations

from advisor.model.record import Record, field


class EventHistogram(Record):
    """One event's row of "Wait Event Histogram": the share of its waits in each bucket.

    ``bucket_ms`` are the buckets' upper bounds in ms as headed (``<1ms`` is 1.0, ``<=1s``
    1024.0); None is the open last bucket (``>1s``). ``percent`` is as printed (an empty cell
    is 0: the report's note says "null is truly 0").
    """

    event: str
    total_waits: float | None
    bucket_ms: tuple[float | None, ...]
    percent: tuple[float, ...]

    def share_under(self, ms: float) -> float | None:
        """Share of the waits in buckets whose upper bound is at most *ms* (None: no such bucket)."""
        shares = [p for b, p in zip(self.bucket_ms, self.percent, strict=True) if b is not None and b <= ms]
        return sum(shares) / 100.0 if shares else None


class ReadEvidence(Record):
    """The read-latency figures of a report import beside each file's Av Rd(ms), keyed by file_id.

    ``timed`` is False when the report's timings are all zero (``timed_statistics`` off):
    every Av Rd(ms) of 0 then means "not timed", not "served in no time". ``rounding_ms`` is
    half the last digit the report prints Av Rd(ms) with (text: one decimal, so a printed 0.0
    is anything under 0.05 ms; HTML: two), so a bound never rests on a rounded-down figure.
    """

    single_block_ms: dict[str, float] = field(default_factory=dict)  # Av 1-bk Rd(ms)
    file_histograms: dict[str, tuple[float, ...]] = field(default_factory=dict)  # 0-2 ... 32+ ms counts
    events: tuple[EventHistogram, ...] = ()
    timed: bool = True
    rounding_ms: float = 0.0  # half the last digit Av Rd(ms) is printed with: 0.05 in text reports (0.0)
