"""The report as JSON: the :class:`~advisor.model.Report` document itself, stable field names."""

from __future__ import annotations

from advisor.model import Report
from advisor.model.jsonio import dumps


def render_json(report: Report) -> str:
    """Indented JSON of the whole report (``findings``, ``plan``, ``areas``, ``disks`` ...)."""
    return dumps(report)
