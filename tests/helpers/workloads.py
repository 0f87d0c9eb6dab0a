"""Synthetic workloads with known right answers, built from the real model classes.

:func:`workload` builds one from :class:`AreaSpec` rows (size, rates, zone on disk ``sda``);
:func:`models` is the physics of a 7200 rpm desktop drive for it; :func:`sample_workload` is the
one many tests share (WAL, hot data, history, archive and temp: several findings and a plan).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from advisor.disk.model import DiskModel
from advisor.disk.physics import ModelPhysics
from advisor.engine.advise import Models
from advisor.model import Device, FileRate, HostLayout, Location, Partition, ServerInfo, WaitProfile, Workload

GB = 10**9
DISK_BYTES = 500 * GB


def model(capacity: int = DISK_BYTES, rpm: float = 7200) -> DiskModel:
    """A 7200 rpm desktop-class drive (datasheet-style numbers)."""
    return DiskModel(name="synthetic-7200", capacity_bytes=capacity, rpm=rpm, r_od_mb_s_decimal=180.0, rho=2.0,
                     seek_track_ms=0.8, seek_avg_ms=8.5, seek_full_ms=17.0)


def models(capacity: int = DISK_BYTES) -> Models:
    """Physics of :func:`model` for every disk."""
    return Models(default=ModelPhysics(model(capacity)))


@dataclass(frozen=True)
class AreaSpec:
    """One area of a synthetic workload and where it lies on disk ``sda``."""

    name: str
    kind: str = "data"
    size_gb: float = 10.0
    read_iops: float = 0.0
    write_iops: float = 0.0
    read_kb: float = 8.0
    write_kb: float = 8.0
    random_share: float | None = 0.95
    syncs: float | None = None
    zone: tuple[float, float] | None = None
    files: int = 1
    path: str | None = None
    placement_known: bool = True
    reason: str | None = None


def server(dbms: str = "postgres", version_num: int = 180001, settings: dict[str, str] | None = None) -> ServerInfo:
    """A server identity good enough for the engine."""
    return ServerInfo(dbms, f"{version_num // 10000}.1", version_num, "db1", "app", "7312",  # type: ignore[arg-type]
                      "2026-11-21T08:00:00+00:00", settings=settings or {"data_directory": "/var/lib/pg/data"})


def _rates_and_locations(spec: AreaSpec) -> tuple[list[FileRate], list[Location]]:
    rates, locs = [], []
    kind = spec.kind
    for i in range(spec.files):
        base = spec.path or f"/db/{spec.name}"
        path = f"{base}/f{i}"
        share = 1.0 / spec.files
        size = int(spec.size_gb * GB * share)
        rates.append(FileRate(
            file_id=f"{spec.name}/{i}", path=path, kind=kind, tablespace=spec.name,  # type: ignore[arg-type]
            container="app", size_bytes=size, read_iops=spec.read_iops * share, write_iops=spec.write_iops * share,
            read_mb_s=spec.read_iops * share * spec.read_kb / 1000,
            write_mb_s=spec.write_iops * share * spec.write_kb / 1000,
            mean_read_kb=spec.read_kb if spec.read_iops else None,
            mean_write_kb=spec.write_kb if spec.write_iops else None,
            random_share=spec.random_share, read_latency_ms=None, write_latency_ms=None,
            syncs_per_s=spec.syncs * share if spec.syncs is not None else None, name=f"public.{spec.name}_{i}",
        ))
        if spec.zone is not None or not spec.placement_known:
            lo, hi = spec.zone or (0.0, 0.0)
            width = (hi - lo) / spec.files
            a = lo + width * i
            locs.append(Location(path, "sda", "sda1", a if spec.placement_known else None,
                                 a + width if spec.placement_known else None, 1, size,
                                 a + width / 2 if spec.placement_known else None,
                                 placement_known=spec.placement_known, reason=spec.reason))
    return rates, locs


def workload(specs: Sequence[AreaSpec], io_share: float | None = 0.6, dbms: str = "postgres",
             version_num: int = 180001, partitions: Sequence[Partition] = (), devices: Sequence[Device] | None = None,
             with_layout: bool = True) -> Workload:
    """A workload of *specs*, located on one 500 GB rotating disk ``sda`` when zones are given."""
    rates: list[FileRate] = []
    locs: list[Location] = []
    for spec in specs:
        r, loc = _rates_and_locations(spec)
        rates += r
        locs += loc
    layout = None
    if with_layout:
        devs = tuple(devices) if devices is not None else (Device("sda", "/dev/sda", DISK_BYTES, rotational=True),)
        layout = HostLayout("db1", devices=devs, partitions=tuple(partitions), locations=tuple(locs))
    return Workload(server(dbms, version_num), "2026-11-21T09:00:00+00:00", "2026-11-21T09:05:00+00:00", 300.0,
                    tuple(rates), wait=WaitProfile(io_wait_share=io_share, samples=100), layout=layout)


def sample_workload() -> Workload:
    """WAL at the outer edge, hot data inner, archive outer: several findings and a plan."""
    parts = [Partition("sda1", "sda", 1, 1 << 20, 100 * GB, ("/u01",), "ext4", True),
             Partition("sda2", "sda", 2, 100 * GB + (1 << 20), 200 * GB, ("/u02",), "ext4", True),
             Partition("sda3", "sda", 3, 300 * GB + (1 << 20), 199 * GB, ("/u03",), "ext4", True)]
    return workload([
        AreaSpec("WAL", kind="wal", size_gb=4, write_iops=90, write_kb=16, random_share=None, syncs=45,
                 zone=(0.0, 0.008), path="/u01/pg_wal"),
        AreaSpec("orders", size_gb=40, read_iops=180, zone=(0.62, 0.70), files=4, path="/u03/ts_orders"),
        AreaSpec("history", size_gb=60, read_iops=8, read_kb=128, random_share=0.1, zone=(0.25, 0.37), files=3,
                 path="/u02/ts_hist"),
        AreaSpec("archive", kind="archive", size_gb=80, write_iops=1.5, write_kb=1024, random_share=None,
                 zone=(0.01, 0.17), path="/u01/archive"),
        AreaSpec("temp", kind="temp", size_gb=5, read_iops=6, write_iops=6, read_kb=64, write_kb=64,
                 random_share=None, zone=(0.40, 0.41), path="/u02/temp"),
    ], partitions=parts)
