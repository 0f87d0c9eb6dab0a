"""The one Markdown table and the one HTML table every renderer draws its rows into.

Cells are text from documents and are escaped here (:func:`~advisor.render.safe.markdown_cell`,
:func:`~advisor.render.safe.html_text`), so no caller can forget it and a ``|`` in a
tablespace name never splits a row. A cell that is already Markdown (a code span the
renderer made) is marked :class:`Verbatim`. A test holds that no module outside
``advisor/render/`` writes a table of its own.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from advisor.render.safe import html_text, markdown_cell


class Verbatim(str):
    """A Markdown cell already written as Markdown by the renderer: put in the table unescaped."""

    __slots__ = ()


def code_span(text: str) -> Verbatim:
    """*text* (a finding code, an identifier advisor made) as a Markdown code span."""
    return Verbatim(f"`{text}`")


def _md_cell(cell: object) -> str:
    return cell if isinstance(cell, Verbatim) else markdown_cell(cell)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Collection[int] = ()) -> list[str]:
    """A GitHub-flavoured table: header, rule, one line per row (columns in *right* right-aligned).

    >>> markdown_table(("area", "IOPS"), [("a|b", "1.0")], right={1})
    ['| area | IOPS |', '|---|---:|', '| a\\\\|b | 1.0 |']
    """
    rule = "|" + "".join("---:|" if n in right else "---|" for n in range(len(headers)))
    return ["| " + " | ".join(headers) + " |", rule,
            *("| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows)]


def html_table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, css_class: str | None = None,
               sections: bool = True, line_per_row: bool = False) -> str:
    """An HTML table with escaped cells; *sections* puts the header in ``thead`` and the rows in
    ``tbody``; *line_per_row* ends each row with a newline (a page a person may read as source).

    >>> html_table(("a",), [("<b>",)], sections=False)
    '<table><tr><th>a</th></tr><tr><td>&lt;b&gt;</td></tr></table>'
    """
    head = "<tr>" + "".join(f"<th>{html_text(h)}</th>" for h in headers) + "</tr>"
    end = "\n" if line_per_row else ""
    body = "".join("<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>" + end for row in rows)
    opening = f'<table class="{html_text(css_class)}">' if css_class else "<table>"
    if sections:
        return f"{opening}<thead>{head}</thead><tbody>{end}{body}</tbody></table>"
    return f"{opening}{head}{body}</table>"
