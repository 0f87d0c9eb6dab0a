"""``--sizes FILE`` and ``--assume-size SIZE``: declared once for ``collect``, ``plan`` and ``report``.

A report import states no file sizes; these options give them (the output of ``advisor sql
show sizes``) or assume one per area, so that no plan is made on sizes nobody stated.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from advisor.model import Workload

SIZES_HELP = ("Sizes file: the output of `advisor sql show sizes` (SQL*Plus CSV or grid, psql CSV or aligned), "
              "for workloads without file sizes (AWR/Statspack imports).")
ASSUME_HELP = ("Plan areas of unknown size as this size each (e.g. 10G): by IO alone; "
               "every output marks those sizes 'assumed'.")


def sizes_option() -> Path | None:
    """The ``--sizes`` option (a function so each command gets its own instance)."""
    value: Path | None = typer.Option(None, "--sizes", metavar="FILE", help=SIZES_HELP)
    return value


def assume_option() -> str | None:
    """The ``--assume-size`` option."""
    value: str | None = typer.Option(None, "--assume-size", metavar="SIZE", help=ASSUME_HELP)
    return value


def merged(work: Workload, sizes: Path | None) -> Workload:
    """*work* with the sizes file merged in (unchanged without one)."""
    if sizes is None:
        return work
    from advisor.render.safe import shown
    from advisor.sizes.formats import read_sizes
    from advisor.sizes.merge import merge_sizes_noted, wanted

    work, urgent = merge_sizes_noted(work, read_sizes(sizes, keep=wanted(work)))
    for note in urgent:
        typer.echo(f"advisor: warning: {shown(note)}", err=True)
    return work


def sized_for_plan(
    work: Workload, sizes: Path | None, assume: str | None
) -> tuple[Workload, frozenset[str], str | None]:
    """The workload a plan may use, the areas whose size is assumed, and the no-plan line when sizes are missing."""
    from advisor.sizes.need import assume_sizes, missing_sizes_line
    from advisor.units import parse_size

    work = merged(work, sizes)
    if assume is not None:
        work, assumed = assume_sizes(work, parse_size(assume))
        return work, assumed, None
    return work, frozenset(), missing_sizes_line(work)


def warn_unknown(work: Workload) -> None:
    """Say on stderr which files still have no size, and what gives them."""
    from advisor.sizes.need import count_unknown, sizes_query_hint

    unknown = count_unknown(work)
    if unknown:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(unknown.items()))
        typer.echo(f"advisor: warning: file sizes unknown ({kinds}); give --sizes FILE, the output of "
                   f"{sizes_query_hint(work)}, here or to plan/report", err=True)
