"""A script's comments carry no control character, and say what keeps a name off a SQL*Plus line.

The plans are the real engine's, on tablespaces whose names hold a right-to-left override
(U+202E: an editor shows the comment's text reversed), an 8-bit CSI (U+009B: a terminal that
reads C1 controls takes what follows as a command), ESC and BEL. The names stay exact inside
quoted identifiers (they name the objects); in comments each such character is a blank, as a
line break always was.
"""

from __future__ import annotations

import pytest

from advisor.disk.physics import ModelPhysics
from advisor.engine.advise import AdviceRequest, Models, advise
from advisor.engine.planner import PlanOptions
from advisor.escape import CONTROL
from advisor.model import Plan
from tests.helpers.clock import AT
from tests.helpers.workloads import AreaSpec, model, workload

BIDI = "users\u202egnp.exe"
C1 = "hot\x9b2J"
ESCAPED = "odd\x1b]0;title\x07"


def _plan(dbms: str, names: tuple[str, ...]) -> Plan:
    specs = [AreaSpec(name, size_gb=1, read_iops=300 - 50 * n, path=f"/db/{dbms}/f{n}") for n, name in enumerate(names)]
    specs.append(AreaSpec("WAL", kind="wal" if dbms == "postgres" else "redo", size_gb=0.3, write_iops=50,
                          random_share=None, syncs=20, path="/db/wal"))
    w = workload(specs, dbms=dbms, version_num=180001 if dbms == "postgres" else 190000, with_layout=False)
    report = advise(AdviceRequest(w, Models(default=ModelPhysics(model(capacity=20 * 10**9))), PlanOptions(dbms=dbms),
                    generated_at=AT))
    assert report.plan is not None and report.plan.scripts
    return report.plan


def _comments(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith(("#", "--"))]


@pytest.mark.parametrize("dbms", ["postgres", "oracle"])
def test_comments_carry_no_bidi_or_c1_control(dbms: str) -> None:
    plan = _plan(dbms, (BIDI, C1))
    sfdisk = next(s for s in plan.scripts if s.name.startswith("sfdisk-"))
    assert any("users gnp.exe" in line for line in _comments(sfdisk.text)), sfdisk.text
    for script in plan.scripts:
        for line in _comments(script.text):
            assert not CONTROL.search(line), (script.name, line)
    assert not CONTROL.search(sfdisk.text.replace("\n", "")), "an sfdisk file is labels and comments only"


def test_an_oracle_name_with_esc_and_bel_is_said_to_hold_a_control_character() -> None:
    plan = _plan("oracle", (ESCAPED, "y\nDROP TABLE t; --"))
    sql = next(s for s in plan.scripts if s.name == "oracle.sql").text
    skipped = [line for line in _comments(sql) if "by hand" in line]
    assert len(skipped) == 2, sql
    assert any(line.startswith("-- odd ]0;title : a name or path holds a control character (\\x1b), which SQL*Plus")
               for line in skipped), skipped
    assert any(line.startswith("-- y DROP TABLE t; --: a name or path holds a line break") for line in skipped)
    assert not any("line break" in line for line in skipped if line.startswith("-- odd"))
