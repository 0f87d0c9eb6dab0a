"""The block-layer request trace a workload may carry (``advisor collect --trace``).

One :class:`BlockTrace` per traced disk: every request the block layer issued to it during
the collect's interval (sector, size, operation, issue and completion time, issuing
process), packed as columns in ``data`` (:mod:`advisor.trace.codec` says how, and
docs/json-format.md), plus the extents of the database files on that disk so a request
can be mapped to its file and area long after the collect. The tracer's own loss counters
and the kernel's diskstats for the same interval travel with it: a trace that lost
requests says how many. A trace holds positions, sizes, times and process names; never a
byte of file contents, never SQL.
"""

from __future__ import annotations

from advisor.model.record import Record, field


class TraceProcess(Record):
    """A process that issued requests: the kernel's pid and command name at issue time, and, where
    the collector saw the pid among the server's processes while it sampled the interval
    (``WaitProfile.sessions``), the database it served and what it is (every PostgreSQL process
    has the command name ``postgres``; a kernel thread, the file system's journal or a flusher,
    has neither)."""

    pid: int  # thread id of the issuing task (the kernel's pid)
    comm: str  # its command name, as the kernel keeps it (15 characters)
    database: str | None = None  # the database the server process served (None: none, or not seen)
    role: str | None = None  # the server's name for the process ("client backend", "checkpointer"); None: not seen


class TraceLoss(Record):
    """What the trace may lack, and the counts that say so.

    ``overrun`` and ``dropped_events`` are the tracer's per-cpu counters summed (events the
    ring buffer could not keep). ``diskstats_requests`` is the number of reads, writes and
    discards /proc/diskstats counted completed on the disk over the same interval;
    ``traced_completions`` the completions the trace holds (matched to an issue or not).
    ``missing_requests`` is the shortfall of the trace against diskstats beyond the
    requests in flight at its two edges (``edge_requests``): the requests the trace lost.
    """

    overrun: int = 0  # events the ring buffer overwrote (summed over cpus)
    dropped_events: int = 0  # events the full ring buffer refused (summed over cpus)
    diskstats_requests: int | None = None  # None: no diskstats for the disk (not a block device row)
    traced_completions: int = 0  # read and write completions in the trace
    edge_requests: int = 0  # completions without issue + issues without completion
    missing_requests: int | None = None
    excess_requests: int | None = None  # more traced than diskstats counted: another device in the trace?


class BlockTrace(Record):
    """The requests of one disk over the collect's interval (see the module docstring)."""

    disk: str  # "sda", "loop3": the whole disk; sectors are of the whole disk
    device_number: str  # "8:0"
    disk_size_bytes: int  # the disk's size when traced (a trace of another disk is refused)
    clock: str  # the tracer's clock; "mono" lines up with the collect's own monotonic clock
    started_s: float  # when tracing began, on that clock
    ended_s: float  # when tracing ended, on the same clock
    interval_s: float  # the collect's interval the trace should cover
    requests: int  # requests in data: issued and completed inside the trace
    encoding: str  # "advisor-trace-2" ("advisor-trace-1" before the FUA flag): zlib-compressed columns, base64
    data: str  # the requests, packed (see above)
    processes: tuple[TraceProcess, ...] = ()  # the issuing processes; data's process column indexes them
    files: tuple[str, ...] = ()  # the database files on this disk, as the workload names them
    extents: str = ""  # "advisor-extents-1": (file index, disk byte, length) triples, base64
    loss: TraceLoss = field(default_factory=TraceLoss)  # what the trace may lack, reconciled with diskstats
    clock_steps: tuple[int, ...] = ()  # request indices where the clock stepped backwards
    mapped_requests: int = 0  # requests inside a database file's extents
    warnings: tuple[str, ...] = ()  # what was left out while tracing
