"""Sample inputs shipped with advisor, so the examples of the docs run outside the source tree.

``advisor sample`` lists them and writes a copy where the user wants it. The figures are those
of example databases, not of any real one: they show what the commands do, not advice.
"""

from __future__ import annotations

from importlib import resources

SAMPLES: dict[str, str] = {
    "oltp-2tb-workload.json": "the 2 TB OLTP workload of docs/tiers.md (for `advisor plan --workload ... --target`)",
    "awr_12.1.0.2.html": "an AWR report of Oracle 12.1 database ORCL (`advisor collect --from-report`, docs/plan.md)",
    "sizes12.txt": "the file sizes of ORCL as SQL*Plus prints `advisor sql show sizes` (for --sizes, docs/plan.md)",
}
"""File name → what it is and which page uses it."""


def sample_bytes(name: str) -> bytes:
    """The content of sample *name* (one of :data:`SAMPLES`)."""
    if name not in SAMPLES:
        raise KeyError(name)
    return resources.files(__name__).joinpath(name).read_bytes()
