"""Names from documents cannot drive a terminal or break a Markdown/HTML table.

The report below is the real engine's, with its area, disk and partition names replaced by
text a hostile or broken collector might push: an OSC sequence that retitles the terminal,
a CSI that clears it, a CR LF that breaks a Markdown row, ``|`` and ``<script>``, a
right-to-left override. Every renderer must show those characters escaped, keep each table
row one line with its column count, and pass no HTML through Markdown.
"""

from __future__ import annotations

import dataclasses
import io
import re

import pytest

from advisor.model import Report
from advisor.render.html import render_html
from advisor.render.markdown import render_markdown
from advisor.render.safe import markdown_cell, safe_console, shown
from advisor.render.terminal import render_terminal

HOSTILE = "ord\x1b]0;pwned\x07ers\r\n| x | <script>alert(1)</script> \u202eexe \x1b[2J\x9b"
RAW = ("\x1b", "\x07", "\r", "\u202e", "\x9b")


def hostile_report(report: Report) -> Report:
    """*report* with the name of its first area (everywhere it appears) replaced by HOSTILE."""
    assert report.plan is not None
    old = report.areas[0].name

    def rename(name: str) -> str:
        return HOSTILE if name == old else name

    areas = tuple(dataclasses.replace(a, name=rename(a.name), disk=HOSTILE) for a in report.areas)
    plan = dataclasses.replace(
        report.plan,
        placements=tuple(dataclasses.replace(p, area=rename(p.area)) for p in report.plan.placements),
        service_times=tuple(dataclasses.replace(t, area=rename(t.area)) for t in report.plan.service_times),
        partitions=tuple(dataclasses.replace(p, label=HOSTILE, areas=tuple(map(rename, p.areas)))
                         for p in report.plan.partitions),
    )
    return dataclasses.replace(report, areas=areas, plan=plan, warnings=(*report.warnings, f"file {HOSTILE} odd"))


def test_terminal_report_shows_control_characters_escaped(report: Report) -> None:
    console = safe_console(file=io.StringIO(), width=200, force_terminal=True, color_system="truecolor")
    render_terminal(hostile_report(report), console)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    without_styles = re.sub(r"\x1b\[[0-9;]*m", "", out)  # rich's own colour codes are fine
    assert not any(char in without_styles for char in RAW), repr(without_styles[:400])
    assert "\\x1b]0;pwned\\x07" in without_styles and "\\u202e" in without_styles


def test_safe_console_catches_text_a_renderer_forgot() -> None:
    from rich.text import Text

    console = safe_console(file=io.StringIO(), width=80, color_system=None)
    console.print(Text("raw \x1b]0;title\x07 and \x1b[2J"), "plain\rstring")
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert "\\x1b]0;title" in out and "\\x1b[2J" in out  # rich itself drops BEL and CR from a Text


def unescaped_pipes(line: str) -> int:
    """Cell borders: a ``|`` after an even number of backslashes (``\\|`` is text)."""
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))


def table_shapes(text: str) -> list[int]:
    """The cell-border count of every table row, in order."""
    return [unescaped_pipes(line) for line in text.splitlines() if line.startswith("|")]


def test_markdown_rows_stay_whole_and_carry_no_html(report: Report) -> None:
    text = render_markdown(hostile_report(report))
    assert "<script>" not in text and not any(char in text for char in RAW)
    assert table_shapes(text) == table_shapes(render_markdown(report))  # same rows, same columns
    assert len(text.splitlines()) == len(render_markdown(report).splitlines()) + 1  # the one added warning
    assert any(line.startswith("| ") and "ord\\x1b\\]0;pwned\\x07ers\\r\\n\\|" in line for line in text.splitlines())


def test_html_escapes_markup_and_control_characters(report: Report) -> None:
    page = render_html(hostile_report(report))
    assert "<script>" not in page and not any(char in page for char in RAW)
    assert "&lt;script&gt;" in page and "\\x1b]0;pwned\\x07" in page


@pytest.mark.parametrize(("text", "expected"), [
    ("a|b", "a\\|b"), ("x\\", "x\\\\"), ("<b>&", "&lt;b&gt;&amp;"), ("l1\r\nl2", "l1\\r\\nl2"),
    ("`code`", "\\`code\\`"),
])
def test_markdown_cell(text: str, expected: str) -> None:
    assert markdown_cell(text) == expected


def test_shown_escapes_c0_c1_del_and_bidi_but_keeps_text() -> None:
    assert shown("tablespace_ü €") == "tablespace_ü €"
    assert shown("\x00\x7f\x85\u2066") == "\\x00\\x7f\\x85\\u2066"
