"""The skim of an AWR HTML page leaves out only rows no importer reads, and the parser checks it.

Every committed HTML report gives the same blocks (headings, tables, rows, line numbers) with
the skim as parsed whole, even with every unread table skimmed however small; a heading the
skim reads differently from the parser (one inside a comment) makes the parser read the page
again whole, so the rows of a read section are never lost.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import advisor.collectors.awr.html_skim as skim
from advisor.collectors.awr import decoded
from advisor.collectors.awr.html import _flattened, blocks, rows_read

FIXTURES = Path(__file__).parent / "fixtures"
HTML_REPORTS = sorted(p.name for p in FIXTURES.glob("*.html"))


def _whole(page: str) -> list[object]:
    return list(_flattened((page,)).blocks)


@pytest.mark.parametrize("report", HTML_REPORTS)
def test_the_skim_gives_the_blocks_of_the_whole_page(report: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skim, "SMALLEST_SKIPPED", 0)  # every unread table skimmed, however small
    page = decoded((FIXTURES / report).read_bytes())
    assert skim.skipped_tables(page, rows_read), "nothing skimmed: the comparison would prove nothing"
    assert blocks(page) == _whole(page)


def _page(hidden_heading: str, rows: int) -> str:
    row = "<tr><td>/u01/data01.dbf</td><td>12</td></tr>\n"
    return ("<html><body>\n<h3 class=\"awr\">File IO Stats</h3>\n" + hidden_heading +
            "<table border=\"0\" summary=\"This table displays file IO\">\n<tr><th>Filename</th><th>Reads</th></tr>\n" +
            row * rows + "</table>\n<h3 class=\"awr\">Top Sessions</h3>\n<table summary=\"sessions\">\n"
            "<tr><th>SID</th></tr>\n" + "<tr><td>1</td></tr>\n" * rows + "</table>\n</body></html>\n")


def test_a_heading_the_skim_misreads_makes_the_parser_read_the_page_whole() -> None:
    page = _page("<!-- <h3>Top Sessions</h3> -->\n", rows=500)  # the parser skips the comment; the skim does not
    skimmed = skim.skipped_tables(page, rows_read)
    assert len(skimmed) == 2  # the skim took the File IO table for a Top Sessions one
    read = blocks(page)
    file_io = next(b for b in read if getattr(b, "summary", "") == "This table displays file IO")
    assert len(file_io.rows) == 500 and read == _whole(page)


def test_unread_rows_are_skimmed_and_read_rows_kept_with_their_lines() -> None:
    page = _page("", rows=500)
    skimmed = skim.skipped_tables(page, rows_read)
    assert len(skimmed) == 1  # Top Sessions only
    sessions_line = page[:page.index('<table summary="sessions"')].count("\n") + 1
    assert skimmed[0].table_at == (sessions_line, 0)
    read = blocks(page)
    sessions = next(b for b in read if getattr(b, "summary", "") == "sessions")
    assert sessions.header == ["SID"] and sessions.rows == []
    assert read == _whole(page)


def test_a_table_naming_the_block_size_or_cut_off_is_left_to_the_parser() -> None:
    block_size = _page("", rows=500).replace("<tr><td>1</td></tr>", "<tr><td>Std Block Size:</td><td>8K</td></tr>", 1)
    assert skim.skipped_tables(block_size, rows_read) == []
    cut = _page("", rows=500)
    cut = cut[:cut.rindex("</table>")]  # truncated inside the last table
    assert skim.skipped_tables(cut, rows_read) == []
    assert blocks(cut) == _whole(cut)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("unclosed", ["<table x", "<!--x", "<a href='x", "</x"])
def test_markup_that_never_closes_is_read_in_one_pass(unclosed: str) -> None:
    """The standard library's parser scanned from each such ``<`` to the end of the page: 10,000 copies
    of ``<table x`` took 12 s, these 200,000 would take hours (the timeout fails the test)."""
    from advisor.collectors.awr.html import closed_markup

    page = '<html><h3 class="awr">File IO Stats</h3>' + unclosed * 200_000
    assert closed_markup(page).count("<") == 3 and closed_markup(page[:40]) == page[:40]
    read = blocks(page)
    assert [b.text for b in read if b.kind == "heading"] == ["File IO Stats"]
    assert "".join(b.text for b in read if b.kind == "text").startswith(unclosed.strip())
