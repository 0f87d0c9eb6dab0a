"""Tables are drawn in advisor/render/ only: a command computes, a renderer draws.

A module outside render/ that imports a table builder (rich's ``Table`` or ``box``, or
render's ``tables``/``cells``) draws its own table, with its own widths and escaping: none does
(the fleet's ranking and ``fleet show`` are drawn by ``render/fleet_ranking.py`` and
``render/fleet_instance.py``).
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.imports import REPO, advisor_modules, imported

TABLE_BUILDERS = ("rich.table", "rich.box", "advisor.render.tables", "advisor.render.cells")


def table_drawers(paths: list[Path], root: Path) -> set[str]:
    """Modules of *paths* outside advisor/render/ that import a table builder."""
    found = set()
    for path in paths:
        relative = path.relative_to(root).as_posix()
        if relative.startswith("advisor/render/"):
            continue
        if any(name == b or name.startswith(b + ".") for name in imported(path) for b in TABLE_BUILDERS):
            found.add(relative)
    return found


def test_only_render_draws_tables() -> None:
    assert table_drawers(list(advisor_modules()), REPO) == set()


def test_a_table_drawn_in_a_command_is_found(tmp_path: Path) -> None:
    command = tmp_path / "advisor" / "cli" / "x.py"
    command.parent.mkdir(parents=True)
    command.write_text("def f():\n    from rich.table import Table\n    return Table()\n")
    assert table_drawers([command], tmp_path) == {"advisor/cli/x.py"}
