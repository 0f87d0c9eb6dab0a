"""`advisor sample`: list the sample inputs the docs use, or write one where the user wants it.

The docs' examples (a tiered plan's workload, an AWR report and its sizes file) must run on a
host where advisor was installed from a wheel, with no source tree: the files ship inside the
package (:mod:`advisor.samples`). Exit codes: 0 listed or written; 6 unknown name or an
existing file (never overwritten).
"""

from __future__ import annotations

from pathlib import Path

import typer

from advisor.errors import BadInput


def sample(
    name: str = typer.Argument(None, help="Sample to write (none: list them)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write it here (default: its own name, here)."),
) -> None:
    """List the sample inputs the docs use, or write a copy of one."""
    from advisor.model.jsonio import write_atomic
    from advisor.samples import SAMPLES, sample_bytes

    if name is None:
        width = max(len(n) for n in SAMPLES)
        for known, about in SAMPLES.items():
            typer.echo(f"{known:<{width}}  {about}")
        return
    if name not in SAMPLES:
        raise BadInput(f"no sample {name!r}; `advisor sample` lists them ({', '.join(SAMPLES)})")
    target = output if output is not None else Path(name)
    if target.exists():
        raise BadInput(f"{target} exists; not overwritten (give -o another file)")
    write_atomic(target, sample_bytes(name))
    typer.echo(f"advisor: wrote {target}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``sample`` to the root app."""
    app.command(name="sample")(sample)
