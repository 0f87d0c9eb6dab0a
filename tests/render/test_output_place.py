"""Output lives in advisor/render/: tables are drawn there, the format is chosen once, files have one width.

The source checks read every module of the ``advisor`` package (collectors included) as a
syntax tree, so a table written in a string anywhere else, a console made for a file of its
own width, or another ``if fmt is OutputFormat.markdown`` fails here with the file and line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import advisor
from advisor.errors import BadInput
from advisor.render.output import FILE_WIDTH, OutputFormat, emit
from advisor.render.tables import code_span, html_table, markdown_table

PACKAGE = Path(advisor.__file__).parent
RENDER = PACKAGE / "render"

TABLE_TEXT = re.compile(r"<t(able|head|body|r|h|d)\b|\|\s*:?-{3,}|-{3,}:?\s*\||^\s*:?-{3,}:?\s*$")
"""An HTML table tag, or a piece of a Markdown table rule (``|---|``, ``| --- |``, ``---:|``, or a
cell's ``---`` / ``---:`` alone, joined with pipes elsewhere)."""


def _modules(outside_render: bool = True) -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if outside_render and RENDER in path.parents:
            continue
        yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _strings(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every string literal, f-string parts included (their literal pieces are Constants too)."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_the_source_checks_find_what_they_look_for() -> None:
    """The checks below would see the code they forbid (the old fleet_show table, a file console of its own)."""
    old = ast.parse('lines = ["| " + " | ".join(h) + " |", "|" + "---|" * n]\n'
                    'rule = "|".join("---:" if n in right else "---" for n in range(9))\n'
                    'body = f"<table class=\\"fleet\\"><thead><tr>{head}</tr>"\n'
                    'console = safe_console(file=io.StringIO(), width=200, record=True)\n'
                    'if fmt is OutputFormat.markdown:\n    pass\n')
    assert sum(1 for _, text in _strings(old) if TABLE_TEXT.search(text)) == 4
    assert _console_calls(old) == [4]
    assert _format_choices(old) == [5]
    assert not TABLE_TEXT.search("``<dbname>/<relation oid>``, ``temp/<tablespace>``")


def test_no_module_outside_render_writes_a_table() -> None:
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {text!r}" for path, tree in _modules()
             for line, text in _strings(tree) if TABLE_TEXT.search(text)]
    assert not found, "draw tables with advisor.render.tables (markdown_table, html_table):\n" + "\n".join(found)


def _console_calls(tree: ast.Module) -> list[int]:
    """Lines that make a rich console or take a recording's text: only render/output.py may."""
    names = {"safe_console", "Console", "export_text"}
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and ((isinstance(node.func, ast.Name) and node.func.id in names)
                 or (isinstance(node.func, ast.Attribute) and node.func.attr in names))]


def test_consoles_and_file_text_come_from_render_output() -> None:
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}" for path, tree in _modules() for line in _console_calls(tree)]
    assert not found, "use advisor.render.output (emit, stdout_console, stderr_console):\n" + "\n".join(found)


def _format_choices(tree: ast.Module) -> list[int]:
    """Lines comparing with OutputFormat.markdown or .html: the choice between formats is emit's."""
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
            for side in (node.left, *node.comparators)
            if isinstance(side, ast.Attribute) and side.attr in ("markdown", "html")
            and isinstance(side.value, ast.Name) and side.value.id == "OutputFormat"]


def test_the_format_is_chosen_in_one_place() -> None:
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}" for path, tree in _modules(outside_render=False)
             if path != RENDER / "output.py" for line in _format_choices(tree)]
    assert not found, "pass one renderer per format to advisor.render.output.emit:\n" + "\n".join(found)


@pytest.mark.parametrize("columns", ["80", "200", None])
def test_terminal_output_to_a_file_is_file_width_whatever_columns_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columns: str | None) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    target = tmp_path / "out.txt"
    emit(OutputFormat.terminal, target, terminal=lambda console: console.rule("wide"))
    lines = target.read_text(encoding="utf-8").splitlines()
    assert [len(line) for line in lines] == [FILE_WIDTH]


def test_emit_calls_only_the_chosen_renderer_and_refuses_a_missing_one(tmp_path: Path) -> None:
    called: list[str] = []

    def markdown() -> str:
        called.append("markdown")
        return "# m"

    def html() -> str:
        called.append("html")
        return "<p>h</p>"

    emit(OutputFormat.markdown, tmp_path / "a.md", markdown=markdown, html=html)
    assert called == ["markdown"] and (tmp_path / "a.md").read_text() == "# m"
    with pytest.raises(BadInput, match=r"--format json is not offered here; use markdown or html"):
        emit(OutputFormat.json, tmp_path / "b.json", markdown=markdown, html=html)
    assert not (tmp_path / "b.json").exists(), "nothing half-written"


def test_table_cells_are_escaped_and_a_code_span_is_kept() -> None:
    lines = markdown_table(("name", "IOPS"), [("a|b\r\n<script>", "1.0"), (code_span("WAL_SHARES"), "2")],
                           right={1})
    assert lines == ["| name | IOPS |", "|---|---:|", "| a\\|b\\r\\n&lt;script&gt; | 1.0 |",
                     "| `WAL_SHARES` | 2 |"]
    assert all(line.count("|") - line.count("\\|") == 3 for line in lines), "every row has the header's cells"
    page = html_table(("n",), [("<b>&",)], css_class="fleet", line_per_row=True)
    assert page == ('<table class="fleet"><thead><tr><th>n</th></tr></thead><tbody>\n'
                    "<tr><td>&lt;b&gt;&amp;</td></tr>\n</tbody></table>")
