"""Fixed-seed fuzz runs over inventories (TOML) and over fleet documents with hostile text,
and the checks that show each property can fail."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from advisor.model import Report
from tests.fuzz import hostile

SEED = 20261125
INVENTORY_CASES = 400
RENDER_CASES = 150


@pytest.mark.slow
def test_inventory_fuzz_keeps_the_property(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    failures, outcomes = [], Counter[str]()
    for case in range(INVENTORY_CASES):
        folder = tmp_path / f"case{case}"
        folder.mkdir()
        data, steps = hostile.inventory_text(rng, folder)
        problem = hostile.inventory_problem(data, folder)
        outcomes["parsed" if hostile.valid_toml(data) else "not TOML"] += 1
        if problem:
            failures.append(f"case {case} [{'; '.join(steps)}]: {problem}")
    assert not failures, "\n".join(failures[:20])
    assert outcomes["parsed"] > INVENTORY_CASES / 2, outcomes  # most cases reach the validator, not the parser


@pytest.mark.slow
def test_hostile_text_fuzz_keeps_every_renderer_escaped(report: Report) -> None:
    rng = random.Random(SEED)
    failures = [f"case {case}: {problem}" for case in range(RENDER_CASES)
                if (problem := hostile.render_problem(rng, report))]
    assert not failures, "\n".join(failures[:20])


def test_inventory_checker_flags_an_accepted_absurd_device(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import advisor.model.inventory as inventory

    good = hostile.BASE_INVENTORY
    assert hostile.inventory_problem(good, tmp_path) is None
    monkeypatch.setattr(inventory, "_check_names", lambda devices, where: None)
    colliding = good + '[[device]]\nname = "hdd-2"\nmedium = "hdd"\ncapacity = "4 TB"\npreset = "class-5400-nas"\n'
    assert hostile.inventory_problem(colliding, tmp_path) == "accepted 6 device names, not unique or too many"


def test_render_checker_flags_a_raw_escape_and_a_broken_row(report: Report, monkeypatch: pytest.MonkeyPatch) -> None:
    import advisor.render.markdown as markdown
    import advisor.render.tables as tables

    assert hostile.render_problem(random.Random(1), report) is None
    monkeypatch.setattr(tables, "markdown_cell", lambda text: text)  # every table's cells (the fleet's first)
    problem = hostile.render_problem(random.Random(1), report)
    assert problem is not None and problem.startswith("fleet markdown:"), problem
    monkeypatch.undo()
    monkeypatch.setattr(markdown, "_cell", str)
    monkeypatch.setattr(markdown, "_line", str)  # list items and notes
    problem = hostile.render_problem(random.Random(1), report)
    assert problem is not None and problem.startswith("report markdown:"), problem
