"""The demo without root, loop devices or FUSE: a real workload, a simulated disk.

A real PostgreSQL 18 runs on three plain directories standing for the outer, middle and
inner partitions (tablespace ``hot`` in ``inner``, WAL in ``outer``), pgbench drives it,
and ``advisor collect`` samples it before and after. The workload's rates (buffer misses
of the hot tablespace: the reads a disk would serve without a page cache; WAL writes and
flushes) then drive :func:`advisor.disk.simulate.simulate` on the preset drive twice:
with the table in the inner partition (as laid out) and next to the WAL at the outer
edge (where the advice puts it). Nothing here measures a disk: the output says SIMULATED.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.demo import pgbench
from advisor.demo.chain import Chain
from advisor.demo.embedded import embedded_postgres, owned_dir
from advisor.demo.layout import DEMO_PARTITIONS, plain_directories
from advisor.demo.scenario import SERVER_SETTINGS, DemoConfig, Echo, hot_table_place
from advisor.demo.summary import DemoSummary, Measurement
from advisor.errors import AdvisorError

SIM_IOS = 6000
WAL_BLOCK = 8192


def bands(size_fractions: dict[str, float]) -> dict[str, tuple[float, float]]:
    """Partition label → (start, end) fraction of the disk, packed from the outer edge.

    >>> bands({"outer": 0.25, "middle": 0.35, "inner": 0.40})["inner"]
    (0.6, 1.0)
    """
    out: dict[str, tuple[float, float]] = {}
    start = 0.0
    for label, fraction in size_fractions.items():
        out[label] = (round(start, 6), round(min(1.0, start + fraction), 6))
        start += fraction
    return out


@dataclass(frozen=True)
class Rates:
    """What the workload asks of the disk, per second."""

    table_reads: float
    table_bytes: int
    wal_writes: float
    wal_syncs: float
    wal_bytes: int


def workload_rates(workload: Any, tablespace: str) -> Rates:
    """Reads of *tablespace*'s relations and WAL writes/flushes from an advisor Workload."""
    reads = sum(r.read_iops for r in workload.rates if r.tablespace == tablespace and r.kind != "wal")
    size = sum(r.size_bytes for r in workload.rates if r.tablespace == tablespace and r.kind != "wal")
    wal = [r for r in workload.rates if r.kind == "wal"]
    writes = sum((r.write_iops or 0.0) for r in wal)
    syncs = sum((r.syncs_per_s or 0.0) for r in wal)
    wal_bytes = sum(r.size_bytes for r in wal)
    if reads <= 0:
        raise AdvisorError(f"the workload shows no reads in tablespace {tablespace!r}: nothing to simulate")
    return Rates(reads, size, writes, syncs, wal_bytes)


def simulate_layouts(model: Any, rates: Rates, disk_bytes: int) -> dict[str, Any]:
    """Mean service time per IO with the table on the inner partition and next to the WAL."""
    from advisor.disk.simulate import StreamSpec, simulate

    parts = bands(dict(DEMO_PARTITIONS))
    wal_span = max(rates.wal_bytes / disk_bytes, 0.002)
    table_span = max(rates.table_bytes / disk_bytes, 0.002)
    wal_band = (parts["outer"][0], parts["outer"][0] + wal_span)
    layouts = {
        "before": (parts["inner"][0], parts["inner"][0] + table_span),
        "after": (wal_band[1], wal_band[1] + table_span),
    }
    flush_every = max(1, round(rates.wal_writes / rates.wal_syncs)) if rates.wal_syncs else None
    # A commit reads, then writes and flushes its WAL: with flushes counted, the simulation
    # takes turns as the transactions do (reads per flush, then the WAL writes and the
    # flush), one IO at a time; without, the streams interleave at random.
    turns = rates.wal_writes > 0 and flush_every is not None
    reads_per_flush = max(1, round(rates.table_reads / rates.wal_syncs)) if turns else None
    result: dict[str, Any] = {"wal_band": wal_band, "flush_every": flush_every, "reads_per_flush": reads_per_flush}
    for name, table_band in layouts.items():
        if turns:
            streams = [StreamSpec("randread", table_band, 8192, burst=reads_per_flush),
                       StreamSpec("write", wal_band, WAL_BLOCK, burst=flush_every, flush_every=flush_every)]
        else:
            streams = [StreamSpec("randread", table_band, 8192, weight=rates.table_reads)]
            if rates.wal_writes > 0:
                streams.append(StreamSpec("write", wal_band, WAL_BLOCK, weight=rates.wal_writes,
                                          flush_every=flush_every))
        sim = simulate(model, streams, ios=SIM_IOS, seed=1)
        per = sim.per_stream
        # The actuator is idle only for the host's turnaround between IOs: its time per IO
        # (seconds / IOs, flushes included) is the mean service time of this mix.
        result[name] = {"table_band": table_band, "ms_per_io": 1000.0 * sim.seconds / sim.ios,
                        "read_latency_ms": per[0].mean_ms,
                        "wal_latency_ms": per[1].mean_ms if len(per) > 1 else None}
    result["before_ms"] = result["before"]["ms_per_io"]
    result["after_ms"] = result["after"]["ms_per_io"]
    result["predicted_gain"] = 1.0 - result["after_ms"] / result["before_ms"] if result["before_ms"] > 0 else None
    return result


def cross_surface_findings(sim: dict[str, Any], min_gain: float = 0.05) -> list[dict[str, Any]]:
    """A CROSS_SURFACE finding when table and WAL sit far apart and closing the gap pays.

    >>> cross_surface_findings({"wal_band": (0.0, 0.01), "before": {"table_band": (0.6, 0.7)},
    ...                         "predicted_gain": 0.3})[0]["code"]
    'CROSS_SURFACE'
    >>> cross_surface_findings({"wal_band": (0.0, 0.01), "before": {"table_band": (0.6, 0.7)},
    ...                         "predicted_gain": 0.01})
    []
    """
    wal, table = sim["wal_band"], sim["before"]["table_band"]
    distance = abs((table[0] + table[1]) / 2 - (wal[0] + wal[1]) / 2)
    gain = sim.get("predicted_gain")
    if gain is None or gain < min_gain or distance < 0.25:
        return []
    return [{"code": "CROSS_SURFACE", "severity": "high", "subject": "hot + WAL",
             "title": f"random reads {distance:.0%} of the disk away from the WAL flushes (simulated)",
             "predicted_gain": gain}]


def run_simulated(config: DemoConfig, root: Path, stack: ExitStack, echo: Echo) -> DemoSummary:
    """Collect a real workload on plain directories, then predict both layouts on the model."""
    from advisor.disk.presets import get_model
    from advisor.model import load_snapshot
    from advisor.rates.workload import diff

    summary = DemoSummary(mode="simulated", label="SIMULATED: disk model only, no disk was measured",
                          preset=config.preset, time_scale=1.0, pgbench_scale=config.pgbench_scale)
    model = get_model(config.preset)
    chain = Chain(root, echo)
    areas = plain_directories(root)
    echo(f"== SIMULATED on {config.preset}: directories stand for partitions outer | middle | inner")
    server = stack.enter_context(embedded_postgres(
        areas["middle"].mountpoint / "pgdata", waldir=areas["outer"].mountpoint / "pg_wal",
        settings=SERVER_SETTINGS, log_path=root / "postgres.log"))
    hot_dir = owned_dir(areas["inner"].mountpoint / "hot")
    server.psql(f"CREATE TABLESPACE hot LOCATION '{hot_dir}'")
    echo(f"$ pgbench -i -s {config.pgbench_scale} --tablespace=hot --index-tablespace=hot")
    pgbench.initialize(server, scale=config.pgbench_scale, tablespace="hot")
    server.restart()  # empty shared_buffers: the run's misses are what a disk would read
    script = root / "read_commit.sql"
    script.write_text(pgbench.transaction_script(config.reads_per_transaction))
    summary.hot_table["before"] = hot_table_place(server, areas)
    snap_a, snap_b = root / "snapshot-a.json", root / "snapshot-b.json"
    chain.collect(server, snap_a)
    echo(f"$ pgbench -n -r -c {config.clients} -T {config.seconds} -f {script.name}")
    result = pgbench.run(server, script, scale=config.pgbench_scale, seconds=config.seconds, clients=config.clients)
    chain.collect(server, snap_b)
    workload = diff(load_snapshot(snap_a), load_snapshot(snap_b), allow_reset=True)
    rates = workload_rates(workload, "hot")
    echo(f"  workload: {rates.table_reads:.0f} reads/s on hot ({rates.table_bytes >> 20} MiB), "
         f"{rates.wal_writes:.0f} WAL writes/s, {rates.wal_syncs:.0f} flushes/s")
    sim = simulate_layouts(model, rates, config.disk_bytes)
    summary.before = Measurement.of(result)
    summary.simulated = sim
    summary.predicted_gain = sim["predicted_gain"]
    summary.hot_table["after"] = {"tablespace": "hot", "area": "outer", "simulated": True}
    summary.findings = cross_surface_findings(sim)
    summary.commands = chain.commands
    if sim["predicted_gain"] is None:
        raise AdvisorError("the simulation produced no service time")
    return summary
