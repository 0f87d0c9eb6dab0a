"""End to end: a saturated disk's report marks the database that waits behind another's commits."""

from __future__ import annotations

from tests.helpers.commit_waits import commit_waits_report


def test_the_database_behind_anothers_commits_has_no_planned_prediction() -> None:
    (check,) = commit_waits_report().replay
    assert check.traced_busy is not None and check.traced_busy >= 0.9  # saturated: the rule applies
    issuers = {r.issuer: r for r in check.issuers}
    catalogue, ledger = issuers["catalogue"], issuers["ledger"]
    assert catalogue.behind_commits is not None and catalogue.behind_commits >= 0.15
    assert catalogue.barrier_free is False
    assert ledger.behind_commits == 0.0 and ledger.barrier_free is True  # its own commits: its own loop
    areas = {a.area: a for a in check.areas}
    assert areas["cold"].barrier_free is False  # the catalogue's reads
    assert any(n.startswith("catalogue: ") and "follows the writes of ledger" in n and "is no prediction" in n
               for n in check.notes)
