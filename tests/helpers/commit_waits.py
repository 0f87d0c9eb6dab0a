"""Two databases on one saturated disk, timed by the drive model: a catalogue's readers and a ledger's commits.

The catalogue's sessions read the cold area in closed loops, never idle; the ledger writes to the hot
area and waits for the flush that makes each write durable. Its flushes are barriers the readers wait
behind (:mod:`advisor.engine.replay_barriers`), and every session waits only for its own requests, its
own commits' flushes included (:mod:`advisor.engine.replay_loops`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from advisor.disk.replay import Stream, replay
from advisor.engine.advise import AdviceRequest, advise
from advisor.engine.planner import PlanOptions
from advisor.model import Report, TraceProcess
from advisor.trace.codec import FLUSH, READ, WRITE, Requests
from tests.helpers.model_trace import NOW, ZONES, quiet_disk, traced
from tests.helpers.workloads import DISK_BYTES, model, models

READERS = 4  # the catalogue's sessions: closed-loop random reads of the cold area, never idle
COMMITS = 150  # the ledger's: a write to the hot area and the flush that makes it durable, one after the other


def processes(readers: str = "catalogue", committer: str = "ledger") -> tuple[TraceProcess, ...]:
    """The sessions as the collector names them: the readers' database and the committing session's."""
    return tuple(TraceProcess(10 + k, "postgres", readers, "client backend") for k in range(READERS)) + (
        TraceProcess(20, "postgres", committer, "client backend"),)


def commit_requests() -> Requests:
    """The two databases' requests, timed by the drive model itself (a disk it describes), flushes barriers."""
    rng = np.random.default_rng(11)
    cold, hot = ((int(z[0] * DISK_BYTES) // 8192, int(z[1] * DISK_BYTES) // 8192) for z in (ZONES["cold"],
                                                                                              ZONES["hot"]))
    # each reader's next read 1 ms after its last completed (its own loop), the readers staggered; the ledger's
    # write, then its flush 1 ms after the write completed, the next write 5 ms after the flush completed
    reads = [(k * 0.02 + p * 0.005, int(rng.integers(*cold)) * 8192, READ, p, 0.019)
             for p in range(READERS) for k in range(2 * COMMITS)]
    commits = [(k * 0.04 + at, int(rng.integers(*hot)) * 8192 if op == WRITE else 0, op, READERS, took)
               for k in range(COMMITS) for at, op, took in ((0.0, WRITE, 0.005), (0.006, FLUSH, 0.029))]
    rows = sorted(reads + commits)
    issue = np.array([r[0] for r in rows])
    offset = np.array([r[1] for r in rows], dtype=np.int64)
    op = np.array([r[2] for r in rows], dtype=np.int64)
    proc = np.array([r[3] for r in rows], dtype=np.int64)
    length = np.where(op == FLUSH, 0, 8192).astype(np.int64)
    guess = Stream(offset, length, op, proc, issue, issue + np.array([r[4] for r in rows]))
    timed = replay(model(DISK_BYTES), guess, DISK_BYTES)
    order = np.argsort(timed.issue_s, kind="stable")
    return Requests(timed.issue_s[order] + 100.0, timed.service_s[order], offset[order] // 512, length[order] // 512,
                    op[order], proc[order])


def commit_waits_report(readers: str = "catalogue", committer: str = "ledger") -> Report:
    """The report on the traced requests, the sessions named as *readers*' and *committer*'s (one database
    when they are the same name)."""
    work = quiet_disk()
    trace = dataclasses.replace(traced(commit_requests(), work), processes=processes(readers, committer))
    return advise(AdviceRequest(dataclasses.replace(work, traces=(trace,)), models(), PlanOptions(min_gain=0.0),
                                generated_at=NOW))
