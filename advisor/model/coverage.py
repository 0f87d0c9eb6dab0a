"""How much of a report's stated IO an import accounts for (the reconciliation of a report import).

Kept in the workload (``Workload.coverage``) and carried into the report (``Report.coverage``)
so ``advisor workload`` and ``advisor report`` show it in their header, and ``--strict``
refuses an import that fell short.
"""

from __future__ import annotations

from advisor.errors import BadInput
from advisor.model.record import Record


class CoverageCheck(Record):
    """How much of a figure a report prints twice the imported rows account for.

    A report states the same IO more than once (per file, per tablespace, per file type); an
    import that read every row sums to the redundant figure within rounding. *accounted* is
    what the imported rows sum to (each group counted at most up to its stated figure, so an
    excess in one group cannot hide a gap in another), *stated* what the report says;
    *shortfalls* names each gap beyond rounding. A looser check (``strict`` False: figures
    whose meanings differ a little, see docs/awr-import.md) warns but never fails ``--strict``.
    """

    check: str  # the two sections compared: "File IO Stats / Tablespace IO Stats", ...
    subject: str  # what accounts: "files", "data files"
    measure: str  # of what: "tablespace reads", "Data File writes", "read IO requests"
    accounted: float  # what the imported rows sum to over the interval (each group at most its stated figure)
    stated: float  # what the report says over the interval
    shortfalls: tuple[str, ...] = ()  # each gap beyond rounding, as its warning names it
    strict: bool = True  # a shortfall fails --strict (false for the looser checks)
    excess: float = 0.0  # what the imported rows count beyond the stated figure (summed over the groups)

    def line(self) -> str:
        """The header line: "files account for 99.8 % of tablespace reads" (and any excess beyond it)."""
        if not self.stated and self.shortfalls:
            return f"{self.subject}: {self.measure} ({self.check})"
        return f"{self.subject} account for {_share(self)} ({self.check})"


def coverage_lines(coverage: tuple[CoverageCheck, ...]) -> list[str]:
    """Header lines, one per check and subject: "files account for 99.8 % of tablespace reads, 100.0 % of
    tablespace writes (File IO Stats / Tablespace IO Stats)"."""
    groups: dict[tuple[str, str], list[CoverageCheck]] = {}
    for check in coverage:
        groups.setdefault((check.check, check.subject), []).append(check)
    lines = []
    for (name, subject), checks in groups.items():
        missing = [c for c in checks if not c.stated and c.shortfalls]  # a section the report lacks
        lines += [f"{subject}: {c.measure} ({name})" for c in missing]
        shares = ", ".join(_share(c) for c in checks if c not in missing)
        if shares:
            lines.append(f"{subject} account for {shares} ({name})")
    return lines


def _share(check: CoverageCheck) -> str:
    """ "99.8 % of tablespace reads", with the excess beyond the stated figure when the rows count more."""
    share = 100.0 * check.accounted / check.stated if check.stated else 100.0
    beyond = f" (+{100.0 * check.excess / check.stated:.1f} % beyond it)" if check.excess and check.stated else ""
    return f"{share:.1f} % of {check.measure}{beyond}"


def refuse_shortfalls(coverage: tuple[CoverageCheck, ...], where: str) -> None:
    """``--strict``: BadInput (exit 6) naming the first gap when an exact check fell short."""
    gaps = [gap for check in coverage if check.strict for gap in check.shortfalls]
    if gaps:
        more = f" (and {len(gaps) - 1} more)" if len(gaps) > 1 else ""
        raise BadInput(f"{where}: the import does not account for all the IO the report states: {gaps[0]}{more}",
                       hint="without --strict the rows read are kept and each gap is a warning")
