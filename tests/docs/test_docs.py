"""Every command has help and a documentation page that shows it being used."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from advisor.cli import app
from tests.helpers.commands import leaf_commands

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _commands() -> list[tuple[str, ...]]:
    return [words for words, _ in leaf_commands()]


def test_the_command_list_is_what_the_docs_index_describes() -> None:
    index = (DOCS / "README.md").read_text()
    for words in _commands():
        head = " ".join(words[:1])
        assert f"`advisor {head}" in index, f"advisor {head} missing from docs/README.md"


@pytest.mark.parametrize("words", _commands(), ids=lambda w: " ".join(w))
def test_every_command_has_help_and_a_page_showing_it(words: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*words, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    pages = "\n".join(p.read_text() for p in DOCS.glob("*.md") if p.name != "README.md")
    pattern = re.compile(r"advisor\s+" + r"\s+".join(map(re.escape, words)) + r"\b")
    assert pattern.search(pages), f"no docs page shows 'advisor {' '.join(words)}'"


def test_every_docs_page_is_linked_from_the_index() -> None:
    index = (DOCS / "README.md").read_text()
    for page in DOCS.glob("*.md"):
        if page.name != "README.md":
            assert f"({page.name})" in index, f"docs/{page.name} is not linked from docs/README.md"


def test_json_format_doc_matches_the_dataclasses() -> None:
    """docs/json-format.md is generated from advisor/model.py; a new field must reach it."""
    import subprocess
    import sys

    script = DOCS.parent / "scripts" / "gen-json-format.py"
    generated = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout
    assert generated == (DOCS / "json-format.md").read_text(), (
        "docs/json-format.md is stale: run scripts/gen-json-format.py > docs/json-format.md"
    )
