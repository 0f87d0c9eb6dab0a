"""Before a plan: are the sizes known? Refuse, or assume one size per area when told to.

A plan is a capacity decision: an area of unknown size planned as if it held nothing put
every tablespace of an imported report on the SSD. So ``plan`` refuses (exit 6) with the line
of :func:`missing_sizes_line`, ``report`` shows its findings with that line in place of the
plan, and ``--assume-size SIZE`` gives each area of unknown size SIZE more bytes (the plan
then ranks areas by IO alone) and every output marks those sizes "assumed".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from advisor.engine.areas import area_key, area_labels
from advisor.model import FileRate, Workload
from advisor.sizes.merge import REPORT_SOURCES, size_unknown
from advisor.units import human_bytes

SHOWN_AREAS = 5


def _unknown_by_area(workload: Workload) -> dict[str, list[int]]:
    """Area name -> indexes of its files of unknown size (areas as the engine names them)."""
    labels = area_labels(workload.rates)
    out: dict[str, list[int]] = {}
    for i, rate in enumerate(workload.rates):
        if size_unknown(rate, workload):
            out.setdefault(labels[area_key(rate)], []).append(i)
    return out


def sizes_query_hint(workload: Workload) -> str:
    """The command that prints the query giving this workload's sizes."""
    server = workload.server
    version = f" --version {server.major}" if server.major else ""
    return f"`advisor sql show sizes --dbms {server.dbms}{version}`"


def missing_sizes_line(workload: Workload) -> str | None:
    """The one line saying which areas have no size and how to give them; None when all are known."""
    unknown = _unknown_by_area(workload)
    if not unknown:
        return None
    total = len(set(area_labels(workload.rates).values()))
    names = sorted(unknown)
    shown = ", ".join(names[:SHOWN_AREAS]) + (f" and {len(names) - SHOWN_AREAS} more" if len(names) > SHOWN_AREAS
                                                 else "")
    why = ("AWR and Statspack reports carry no file sizes" if workload.source in REPORT_SOURCES
           else "the workload does not state them")
    return (f"No plan: file sizes unknown for {len(names)} of {total} areas ({shown}); {why}. Give --sizes FILE "
            f"with the output of {sizes_query_hint(workload)} run on that database, or --assume-size SIZE "
            "to plan by IO alone")


def assume_sizes(workload: Workload, size_bytes: int) -> tuple[Workload, frozenset[str]]:
    """*workload* with *size_bytes* shared over the unknown files of each area, and the names of those areas."""
    unknown = _unknown_by_area(workload)
    if not unknown:
        return workload, frozenset()
    sizes: dict[int, int] = {}
    for members in unknown.values():
        share, rest = divmod(size_bytes, len(members))
        for k, i in enumerate(members):
            sizes[i] = share + (rest if k == 0 else 0)
    rates: tuple[FileRate, ...] = tuple(
        replace(r, size_bytes=sizes[i]) if i in sizes else r for i, r in enumerate(workload.rates))
    note = (f"sizes assumed: {len(unknown)} areas of unknown size planned with {human_bytes(size_bytes)} each "
            "(--assume-size); the plan ranks them by IO alone, its capacities are not the database's")
    return replace(workload, rates=rates, warnings=(*workload.warnings, note)), frozenset(unknown)


def count_unknown(workload: Workload) -> Counter[str]:
    """Files of unknown size per kind (for ``collect --from-report`` to say what is still missing)."""
    return Counter(r.kind for r in workload.rates if size_unknown(r, workload))
