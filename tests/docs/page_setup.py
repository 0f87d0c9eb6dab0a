"""Input files the command pages describe in a comment (``# capacity = nan``) but do not ship.

Each is made here exactly as the page's comment says, so the transcript beside it runs as
printed. A valid device is a 7200 rpm HDD with a preset; each file breaks one rule.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

_HDD = '[[device]]\nname = "hdd"\nmedium = "hdd"\ncapacity = {capacity}\npreset = "class-7200-desktop"\n'
_NVME = '[[device]]\nname = "nvme0"\nmedium = "nvme"\ncapacity = "960 GB"\n{model}\n'


def _write(name: str, text: str) -> Callable[[Path], None]:
    def make(workdir: Path) -> None:
        (workdir / name).write_text(text)
    return make


def _fifo(workdir: Path) -> None:
    _write("fifo.toml", _NVME.format(model='profile = "pipe"'))(workdir)
    os.mkfifo(workdir / "pipe")


def _big(workdir: Path) -> None:
    _write("big.toml", _NVME.format(model='profile = "big.json"'))(workdir)
    with (workdir / "big.json").open("wb") as sparse:
        sparse.truncate(2 * 1024**3)


def _many() -> str:
    return "".join(
        f'[[device]]\nname = "hdd{n}"\nmedium = "hdd"\ncapacity = "1 TB"\npreset = "class-7200-desktop"\n'
        for n in range(300)
    )


SETUP: dict[str, Callable[[Path], None]] = {
    "zero.toml": _write("zero.toml", _NVME.format(model='profile = "/dev/zero"')),
    "fifo.toml": _fifo,
    "big.toml": _big,
    "many.toml": _write("many.toml", _many()),
    "collide.toml": _write(
        "collide.toml",
        _HDD.format(capacity='"1 TB"') + "count = 2\n"
        + '[[device]]\nname = "hdd-1"\nmedium = "hdd"\ncapacity = "1 TB"\npreset = "class-7200-desktop"\n',
    ),
    "nan.toml": _write("nan.toml", _HDD.format(capacity="nan")),
    "huge.toml": _write("huge.toml", _HDD.format(capacity="1e300")),
    "frac.toml": _write("frac.toml", _HDD.format(capacity="1.5")),
    "deep.toml": _write("deep.toml", "x = " + "[" * 5000 + "]" * 5000 + "\n"),
    "bad1.toml": _write("bad1.toml", _NVME.format(model="")),
    "bad2.toml": _write("bad2.toml", _HDD.format(capacity='"1 TB"') + "count = 8\n"),
    "bad3.toml": _write("bad3.toml", _NVME.format(model='preset = "nvme-gen4"').replace('"nvme"', '"flash"')),
    "smr.toml": _write("smr.toml", '[[device]]\nname = "smr"\nmedium = "smr-hm"\ncapacity = "20 TB"\n'),
    "bad.toml": _write("bad.toml", '[drive.x]\nbase = "class-7200-desktop"\nspeed = 1\n'),
    "nvmehdd.toml": _write("nvmehdd.toml", _NVME.format(model='preset = "class-7200-desktop"')),
}
"""File name → how to make it, for the transcripts that name it."""
