"""Documents written before the outcome was typed, read into today's fields.

This is the one place that reads meaning from a message's words, and only from documents
that had nothing else to say it with: a report before format 4 said why it had no plan in a
warning that started with "No ", and put the model basis first among its warnings as
"disk model: ..."; a workload before ``resets`` said which reset rules fired as warnings
"rule: message" (:data:`advisor.rates.workload.RULES`). Everything after reading decides by
the typed fields (``Report.no_plan``, ``Report.model_basis``, ``Workload.resets``).
"""

from __future__ import annotations

from typing import TypeVar, get_args

import msgspec

from advisor.model.report import NoPlan, NoPlanCode, Report
from advisor.model.snapshot import ResetRule, Workload

T = TypeVar("T")

TYPED_OUTCOME_VERSION = 4
"""The report format that carries ``no_plan``, ``model_basis`` and ``outcome``."""

OLD_MODEL_NOTE = "disk model: "
OLD_NO_PLAN: tuple[tuple[str, NoPlanCode], ...] = (
    ("No plan: file sizes unknown", "sizes-unknown"),
    ("No plan: the workload has no files", "no-files"),
    ("No plan: the assumed disk model does not fit", "model-does-not-fit"),
    ("No zone plan: the disks are solid state", "solid-state"),
    ("No plan: no area is located on a rotating disk", "nothing-located"),
    ("No plan: ", "not-io-bound"),  # the gate's reason follows: the last "No plan: " left
)
"""How the words of a report before format 4 began, per reason (the first that matches)."""

RESET_RULES: tuple[ResetRule, ...] = get_args(ResetRule)


def upgraded(document: T) -> T:
    """*document* with the typed fields an older writer said only in words; anything else unchanged."""
    if isinstance(document, Report) and document.format_version < TYPED_OUTCOME_VERSION:
        return _report(document)  # type: ignore[return-value]
    if isinstance(document, Workload) and not document.resets:
        return _workload(document)  # type: ignore[return-value]
    return document


def _report(report: Report) -> Report:
    basis = next((w for w in report.warnings if w.startswith(OLD_MODEL_NOTE)), None)
    warnings = tuple(w for w in report.warnings if w != basis)
    no_plan = None
    words = next((w for w in warnings if w.startswith("No ")), None) if report.plan is None else None
    if words is not None:
        code: NoPlanCode = next((c for start, c in OLD_NO_PLAN if words.startswith(start)), "unknown")
        no_plan = NoPlan(code, words)
    elif report.plan is not None and report.plan.not_worth_it is not None:
        no_plan = NoPlan("not-worth-it", report.plan.not_worth_it)
    # it has today's shape now: written again, it says so, and is not read from its words twice
    return msgspec.structs.replace(report, warnings=warnings, no_plan=no_plan, format_version=TYPED_OUTCOME_VERSION,
                                   model_basis=basis[len(OLD_MODEL_NOTE):] if basis is not None else None)


def _workload(work: Workload) -> Workload:
    fired = tuple(rule for rule in RESET_RULES if any(w.startswith(f"{rule}: ") for w in work.warnings))
    return msgspec.structs.replace(work, resets=fired) if fired else work
