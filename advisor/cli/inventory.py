"""`advisor inventory`: this host's devices as an inventory file for tiered plans.

Writes (or prints) a TOML inventory from sysfs: one entry per whole disk with its medium,
capacity and what sysfs said; ``--profile NAME=FILE`` attaches an ``advisor bench`` profile.
Edit the file, or write one by hand for a machine that does not exist yet, then give it to
``advisor plan --target`` (docs/tiers.md). ``--check FILE`` validates an inventory and the
model of every device without planning. Exit codes: 0 written or valid; 6 bad file or option.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from advisor.errors import BadInput
from advisor.render.safe import shown
from advisor.units import DISK_GB

if TYPE_CHECKING:
    from advisor.model.inventory import Inventory


def inventory(
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the inventory here (atomically)."),
    profile: list[str] = typer.Option(None, "--profile", help="NAME=FILE: a bench profile for device NAME."),
    loop: bool = typer.Option(False, "--loop", help="Include loop devices."),
    check: Path | None = typer.Option(None, "--check", help="Validate this inventory and its device models."),
) -> None:
    """This host's block devices as an editable inventory (medium, capacity, model per device)."""
    from advisor.model.inventory import inventory_toml, load_inventory

    if check is not None:
        import textwrap

        from advisor.cli.common import stdout_console
        from advisor.disk.media.build import build_device_model

        checked = load_inventory(check)
        width = stdout_console().width
        for device in checked.devices:
            model = build_device_model(device, check.parent)
            size = f"{device.count} x {device.capacity_bytes / DISK_GB:,.1f} GB"
            line = (f"{shown(device.name)}: {device.medium}, {size}, "
                    f"model {shown(model.model_name)} ({shown(model.source)})")
            # wrapped at the terminal's (or COLUMNS') width between words: a name one types stays whole
            typer.echo(textwrap.fill(line, width=width, subsequent_indent="  ", break_long_words=False,
                                     break_on_hyphens=False))
        return
    from advisor.model.jsonio import write_atomic
    from advisor.storage.inventory import discover

    profiles: dict[str, str] = {}
    for entry in profile or []:
        name, sep, path = entry.partition("=")
        if not sep or not name or not path:
            raise BadInput(f"--profile {entry!r}: use NAME=FILE, e.g. sdb=sdb.json")
        profiles[name] = path
    found = discover(include_loop=loop, profiles=profiles)
    missing = sorted(set(profiles) - {d.name for d in found.devices})
    if missing:
        raise BadInput(f"--profile names {missing[0]!r}, which is not a device of this host")
    text = inventory_toml(found)
    if output is None:
        typer.echo(text, nl=False)
        return
    write_atomic(output, text)
    typer.echo(f"advisor: wrote {len(found.devices)} devices to {output}", err=True)
    for name in _without_model(found):
        typer.echo(f"advisor: note: device {shown(name)} has no model yet: set profile = \"FILE.json\" (from "
                   f"`advisor bench`, or `inventory --profile {shown(name)}=FILE.json`) or preset = NAME "
                   f"(`advisor disk presets`) in {output} before `inventory --check` or `plan --target`", err=True)


def _without_model(found: Inventory) -> list[str]:
    """Devices sysfs named but no profile or preset describes: ``--check`` refuses them until edited."""
    return [d.name for d in found.devices if d.profile is None and d.preset is None and d.spec is None]


def register(app: typer.Typer) -> None:
    """Add ``inventory`` to the root app."""
    app.command(name="inventory")(inventory)
