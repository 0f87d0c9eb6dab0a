"""Every section an importer reads is one whose lines the reader keeps, and no listed one is unread.

The readers keep the lines (text) or rows (HTML) of a section only when its title is listed
(``text.READ_SECTIONS``, ``html.READ_HEADINGS``, with every "Segments by ..." section) so a
big report is not held twice. A new section parser whose title is not listed would find its
section empty and read nothing, silently. These tests do not list the sections again: they
import every report fixture and record each title the parsers ask for (``title in found``,
``found[title]``, ``found.get(title)`` on the text sections; ``html.section`` and the
header tables found by summary on an HTML page), wherever the asking code lives.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from advisor.collectors.awr import html, read_report, text
from advisor.errors import AdvisorError

FIXTURES = Path(__file__).parent / "fixtures"
REPORTS = sorted(p for p in FIXTURES.iterdir() if p.suffix in (".html", ".txt"))


class Recorded(dict[str, Any]):
    """The sections of a text report, noting every title asked for."""

    def __init__(self, found: dict[str, Any], asked: set[str]) -> None:
        super().__init__(found)
        self.asked = asked

    def __contains__(self, title: object) -> bool:
        self.asked.add(str(title))
        return super().__contains__(title)

    def __getitem__(self, title: str) -> Any:
        self.asked.add(title)
        return super().__getitem__(title)

    def get(self, title: str, default: Any = None) -> Any:
        self.asked.add(title)
        return super().get(title, default)


def _awr_modules() -> Iterator[Any]:
    return (module for name, module in list(sys.modules.items())
            if name.startswith("advisor.collectors.awr") and module is not None)


def _patch_everywhere(monkeypatch: pytest.MonkeyPatch, original: Callable[..., Any],
                      replacement: Callable[..., Any]) -> None:
    """Replace *original* under every name the AWR modules bound it to (``from ... import`` too)."""
    for module in _awr_modules():
        for attribute, value in list(vars(module).items()):
            if value is original:
                monkeypatch.setattr(module, attribute, replacement)


@pytest.fixture(scope="module")
def asked() -> dict[str, set[str]]:
    """Titles asked for by the text parsers, headings and summaries by the HTML ones, over every fixture."""
    titles: set[str] = set()
    headings: set[str] = set()
    summaries: set[str] = set()
    original_sections, original_section = text.sections, html.section
    original_by_summary = html._table_by_summary

    def sections(report: str) -> dict[str, text.Section]:
        return Recorded(original_sections(report), titles)

    def section(found: list[html.Block], title: str) -> tuple[html.Block | None, bool]:
        headings.add(title)
        return original_section(found, title)

    def by_summary(found: list[html.Block], summary: str) -> html.Block | None:
        summaries.add(summary)
        return original_by_summary(found, summary)

    with pytest.MonkeyPatch.context() as monkeypatch:
        _patch_everywhere(monkeypatch, original_sections, sections)
        _patch_everywhere(monkeypatch, original_section, section)
        _patch_everywhere(monkeypatch, original_by_summary, by_summary)
        for report in REPORTS:
            try:
                read_report(str(report))
            except AdvisorError:
                pass  # a fixture the importer refuses still asked for what it read before
    return {"titles": titles, "headings": headings, "summaries": summaries}


def test_the_recording_sees_the_parsers_ask() -> None:
    """The fixtures hold text, Statspack, HTML and global reports, so every parser runs."""
    kinds = {p.suffix for p in REPORTS}
    assert kinds == {".html", ".txt"} and any("statspack" in p.name for p in REPORTS)
    assert any("global" in p.name for p in REPORTS)


def test_every_text_section_a_parser_asks_for_is_kept(asked: dict[str, set[str]]) -> None:
    assert "File IO Stats" in asked["titles"]  # the recording works
    unkept = sorted(t for t in asked["titles"] if not text.is_read(t))
    assert not unkept, f"parsers ask for sections text.READ_SECTIONS does not list (their lines are dropped): {unkept}"


def test_every_html_section_a_parser_asks_for_is_kept(asked: dict[str, set[str]]) -> None:
    assert "File IO Stats" in asked["headings"] and asked["summaries"]
    unkept = sorted(h for h in asked["headings"] if not html.rows_read(h, ""))
    assert not unkept, f"parsers ask for headings html.READ_HEADINGS does not list (their rows are dropped): {unkept}"
    unkept = sorted(s for s in asked["summaries"] if not html.rows_read("", s))
    assert not unkept, f"parsers ask for header tables html.READ_SUMMARIES does not match: {unkept}"


def test_no_listed_section_goes_unread(asked: dict[str, set[str]]) -> None:
    """A listed section no parser asks for is kept for nothing (or its parser lost its call)."""
    assert not sorted(text.READ_SECTIONS - asked["titles"])
    assert not sorted(html.READ_HEADINGS - asked["headings"])
