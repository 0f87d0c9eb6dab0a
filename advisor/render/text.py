"""Formatting shared by the report renderers: sizes, gains, evidence, heat colours."""

from __future__ import annotations

import re
from typing import Any

from advisor.model import AreaRow, Finding, Report, coverage_lines
from advisor.render.replay import report_headlines

_VARYING = re.compile(r"""(?x)
    (?:/[^\s:;,()]+)+        # a path
  | '[^']*' | "[^"]*"         # a quoted name
  | \d[\d,.]*               # a number
""")


def warning_kind(text: str) -> str:
    """The warning with what varies between instances of it (paths, names, numbers) blanked.

    >>> warning_kind("File IO Stats line 78 (/u02/users02.dbf): Av Rd(ms) 36,250.00 is implausible")
    'File IO Stats line # (#): Av Rd(ms) # is implausible'
    """
    return _VARYING.sub("#", text)


def summarise_warnings(warnings: tuple[str, ...] | list[str]) -> list[str]:
    """One line per kind of warning, in order of first appearance: the first one as the example,
    and how many more of the kind there are.

    >>> summarise_warnings(["file /a: bad 1", "restart: at 3", "file /b: bad 22", "file /c: bad 5"])
    ['file /a: bad 1 (and 2 more like it)', 'restart: at 3']
    """
    kinds: dict[str, list[str]] = {}
    for text in warnings:
        kinds.setdefault(warning_kind(text), []).append(text)
    return [same[0] if len(same) == 1 else f"{same[0]} (and {len(same) - 1} more like it)" for same in kinds.values()]


def pct(value: float | None, digits: int = 0) -> str:
    """A fraction as a percentage, '-' when unknown."""
    return "-" if value is None else f"{value * 100:.{digits}f} %"


def gain_text(finding: Finding) -> str:
    """Predicted gain of a finding, '-' when the finding predicts none."""
    return pct(finding.predicted_gain) if finding.predicted_gain is not None else "-"


def _number(value: float) -> str:
    """Four significant digits, but never scientific notation for rates a DBA reads.

    >>> _number(18630.4), _number(8.7531), _number(0.000123)
    ('18630', '8.753', '0.000123')
    """
    if abs(value) >= 1000:
        return f"{value:.0f}"
    return f"{value:.4g}"


def evidence_text(evidence: dict[str, Any]) -> str:
    """Evidence as ``key=value`` pairs, floats shortened."""
    parts = []
    for key, value in evidence.items():
        shown = _number(value) if isinstance(value, float) else str(value)
        parts.append(f"{key}={shown}")
    return ", ".join(parts)


def heat_colour(share: float) -> str:
    """Hex colour from cool blue (no IO) to hot red (all the IO of the disk)."""
    s = max(0.0, min(1.0, share)) ** 0.5
    r = int(70 + 185 * s)
    g = int(130 - 70 * s)
    b = int(200 - 160 * s)
    return f"#{r:02x}{g:02x}{b:02x}"


def summary_lines(report: Report) -> list[str]:
    """Headline facts: server, interval, IO share, findings, plan gain."""
    server = report.server
    lines = [
        f"{server.dbms} {server.version} on {server.host} (database {server.name})",
        f"interval: {report.interval_s:.0f} s" if report.interval_s else "interval: -",
        f"IO share of DB time: {pct(report.io_wait_share)}",
        f"findings: {len(report.findings)}",
    ]
    if report.plan is not None:
        plan = report.plan
        lines.append(
            f"plan: mean service time {plan.predicted_before_ms:.2f} ms -> {plan.predicted_after_ms:.2f} ms "
            f"({pct(plan.predicted_gain)} faster, {plan.method})"
        )
        if plan.not_worth_it:
            lines.append(f"no change worth making: {plan.not_worth_it}")
    else:
        lines.append("plan: none")
    lines += report_headlines(report)
    lines += coverage_lines(report.coverage)
    return lines + model_lines(report)


MODEL_NOTE = "disk model: "
"""How every format says the model the advice assumed, and why (``Report.model_basis``)."""


def model_lines(report: Report) -> list[str]:
    """The model the advice assumed and why (measured profile, preset or spec given, or the default);
    from the report's model basis, else the model names alone."""
    if report.model_basis is not None:
        return [MODEL_NOTE + report.model_basis]
    names = sorted({info.model for info in report.disks.values()})
    return [f"{MODEL_NOTE}{', '.join(names)} (why not recorded)"] if names else []


def report_notes(report: Report) -> list[str]:
    """The report's warnings (the summary shows the model basis)."""
    return list(report.warnings)


def curve_source(model: str) -> str:
    """What a zone curve of the report is: the disk measured by the bench, a model fitted to such
    a measurement, or a model nobody measured (a preset or a spec).

    >>> curve_source("solid-state /dev/vda"), curve_source("fitted-sdb"), curve_source("class-10k")
    ('measured by advisor bench', 'model fitted to the bench profile', 'model, not measured')
    """
    if model.startswith("solid-state "):
        return "measured by advisor bench"
    if model.startswith("fitted-"):
        return "model fitted to the bench profile"
    return "model, not measured"


def area_name(area: AreaRow) -> str:
    """An area's name as every format shows it: a tablespace known only as a whole (a report with
    tablespace-level figures, moved whole) says so, short enough for an 80-column table."""
    return f"{area.name} (whole)" if area.whole_tablespace else area.name


def assumed_areas(report: Report) -> frozenset[str]:
    """Areas whose size ``--assume-size`` gave (every renderer marks their sizes)."""
    return frozenset(a.name for a in report.areas if a.size_assumed)


def size_text(size_bytes: int | None, assumed: bool) -> str:
    """A size cell; an assumed size says so, an unknown one too (see ``--sizes``), in every format."""
    from advisor.units import human_bytes

    if size_bytes is None:
        return "unknown"
    return f"{human_bytes(size_bytes)} assumed" if assumed else human_bytes(size_bytes)
