"""`advisor collectors` as a table and as JSON: one row per entry point, failures included."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from advisor.collect.registry import PluginInfo


def collectors_table(plugins: Sequence[PluginInfo], console: Console) -> None:
    """Name, dbms, what each plugin offers, where it comes from, and whether it loads."""
    from rich.table import Table

    table = Table(title="Collector plugins (entry point group advisor.collectors)", title_justify="left")
    for column in ("name", "dbms", "offers", "distribution", "version", "status", "entry point / error"):
        table.add_column(column)
    for p in plugins:
        table.add_row(p.name, p.dbms, " ".join(p.capabilities), p.distribution, p.version, p.status,
                      p.error or p.target)
    console.print(table)


def collectors_json(plugins: Sequence[PluginInfo]) -> str:
    """The same rows as a JSON list (``capabilities`` a list of names)."""
    return json.dumps([
        {"name": p.name, "target": p.target, "dbms": p.dbms, "distribution": p.distribution,
         "version": p.version, "status": p.status, "error": p.error, "capabilities": list(p.capabilities)}
        for p in plugins], indent=2)
