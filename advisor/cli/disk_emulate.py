"""`advisor disk emulate`: attach an emulated HDD as a loop device until interrupted."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import typer

from advisor.cli.common import finite
from advisor.errors import BadInput
from advisor.units import CacheMode, parse_size

if TYPE_CHECKING:
    from advisor.disk.emulator.smr import SmrSpec


def emulate(
    preset: str = typer.Argument(..., help="Drive preset (see `advisor disk presets`) or a drive.toml file."),
    size: str = typer.Option("4G", "--size", help="Size of the emulated disk (4G, 512M, bytes)."),
    backing: Path = typer.Option(..., "--backing", help="Sparse file holding the data (created if missing)."),
    scale: float = typer.Option(1.0, "--scale", callback=finite, help="Time scale: 10 runs the disk ten times faster."),
    cache: CacheMode = typer.Option("off", "--cache", help="Write cache: off, volatile or lying."),
    reuse: bool = typer.Option(False, "--reuse", help="Allow an existing file or block device not made by us."),
    partscan: bool = typer.Option(True, "--partscan/--no-partscan", help="Expose /dev/loopNpK partitions."),
    seed: int = typer.Option(0, "--seed", help="Seed of the platter's starting angle."),
    smr: bool = typer.Option(False, "--smr", help="Drive-managed SMR: a media cache in front of shingled bands."),
    media_cache: str | None = typer.Option(None, "--media-cache", help="SMR media cache size (default 0.4 %)."),
    band: str | None = typer.Option(None, "--band", help="SMR band size (default 32M, smaller on small disks)."),
    clean_mb_s_decimal: float | None = typer.Option(None, "--clean-mb-s", callback=finite,
                                                   help="SMR band cleaning speed, MB/s (60)."),
) -> None:
    """Attach an emulated HDD and print its loop device; Ctrl-C or SIGTERM detaches it.

    Every read, write and flush of the device completes when the disk model says, so a
    file system, PostgreSQL or the zone benchmark on it behave as on that drive.
    """
    from advisor.disk.emulator.device import emulated_disk

    size_bytes = parse_size(size) // 512 * 512  # whole sectors, like truncate
    smr_spec = _smr_spec(size_bytes, media_cache, band, clean_mb_s_decimal) if smr else None
    if not smr and (media_cache or band or clean_mb_s_decimal):
        raise BadInput("--media-cache, --band and --clean-mb-s describe an SMR drive: add --smr")
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        with emulated_disk(preset, size_bytes, backing, scale=scale, cache=cache, partscan=partscan,
                           reuse=reuse, seed=seed, smr=smr_spec) as disk:
            typer.echo(disk.device)
            typer.echo(
                f"emulating {preset} ({size_bytes} bytes, cache {cache}, scale {scale:g}{_smr_text(smr_spec)}) "
                f"on {disk.device}; "
                f"path overhead {disk.path_overhead_s * 1e6:.0f} µs compensated; "
                f"counters: cat {disk.mountpoint / 'stats.json'}; Ctrl-C to detach",
                err=True,
            )
            while not stop.wait(0.5):
                pass
            for sig in previous:  # a second Ctrl-C must not cut the cleanup short
                signal.signal(sig, signal.SIG_IGN)
            served = disk.stats()["served"]
        typer.echo(f"detached {disk.device}: served {served['read']} reads, {served['write']} writes, "
                   f"{served['flush']} flushes", err=True)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _smr_spec(size_bytes: int, media_cache: str | None, band: str | None, clean_mb_s_decimal: float | None) -> SmrSpec:
    """The published proportions (see advisor.disk.emulator.smr), overridden by the options."""
    from advisor.disk.emulator.smr import SmrSpec, default_spec

    spec = default_spec(size_bytes)
    return SmrSpec(media_cache_bytes=parse_size(media_cache) if media_cache else spec.media_cache_bytes,
                   band_bytes=parse_size(band) if band else spec.band_bytes,
                   clean_mb_s_decimal=clean_mb_s_decimal if clean_mb_s_decimal is not None else spec.clean_mb_s_decimal)


def _smr_text(spec: SmrSpec | None) -> str:
    if spec is None:
        return ""
    return (f", SMR: media cache {spec.media_cache_bytes >> 20} MiB, band {spec.band_bytes >> 20} MiB, "
            f"cleaning {spec.clean_mb_s_decimal:g} MB/s")


def register(disk_app: typer.Typer) -> None:
    """Add ``emulate`` to the ``advisor disk`` sub-app."""
    disk_app.command(name="emulate")(emulate)
