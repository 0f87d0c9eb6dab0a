"""The dependency direction docs/architecture.md states, read from the source with ast.

Every import counts, also one inside a function or under ``TYPE_CHECKING``: a lazy import
is still a dependency, and a cycle hidden in a function body is still a cycle. The page says:
nothing imports ``advisor.cli``; the engine, the model, the rates stage and the media models
import no database driver; ``disk`` never imports ``engine`` (the ``DiskPhysics`` Protocol
lives with the disk models), so there is no cycle between them; advisor reaches its
collectors only through the registry; the engine reads no clock (time is an input); the
repository never imports the fleet that ranks its rows (a push is handed the summarizer), and
the fleet ranks one way: SQL over the interval summaries (``fleet/rank.py`` ``rank_fleet``), the
engine only for one instance at a time (the detail rows, ``fleet show``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers.imports import REPO, advisor_modules, imported, module_name

DRIVERS = ("psycopg", "psycopg2", "psycopg_pool", "oracledb", "cx_Oracle")
CLOCK_CALLS = {"now", "utcnow", "today", "time", "time_ns", "monotonic", "monotonic_ns", "perf_counter",
               "perf_counter_ns"}


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def offenders(packages: tuple[str, ...], banned: tuple[str, ...]) -> dict[str, list[str]]:
    """Modules of *packages* that import any of *banned*, with what they import."""
    found = {}
    for path in advisor_modules():
        module = module_name(path)
        if any(within(module, p) for p in packages):
            hits = sorted(n for n in imported(path) if any(within(n, b) for b in banned))
            if hits:
                found[module] = hits
    return found


def test_nothing_imports_the_command_line() -> None:
    found = {}
    for path in [*advisor_modules(), *sorted((REPO / "collectors").rglob("*.py"))]:
        module = module_name(path)
        if within(module, "advisor.cli") or module == "advisor.__main__":
            continue
        hits = sorted(n for n in imported(path) if within(n, "advisor.cli"))
        if hits:
            found[module] = hits
    assert found == {}


@pytest.mark.parametrize("package", ["advisor.engine", "advisor.model", "advisor.disk", "advisor.rates"])
def test_pure_stages_import_no_database_driver(package: str) -> None:
    assert offenders((package,), DRIVERS) == {}


def test_disk_never_imports_engine() -> None:
    assert offenders(("advisor.disk",), ("advisor.engine",)) == {}


def test_the_engine_never_imports_render() -> None:
    """The engine computes and render prints: what both need (the control characters a script
    comment blanks and a table escapes) lives below them, in ``advisor.escape``."""
    assert offenders(("advisor.engine",), ("advisor.render",)) == {}


def test_the_model_imports_no_stage() -> None:
    stages = ("advisor.cli", "advisor.engine", "advisor.rates", "advisor.render", "advisor.repo", "advisor.bench",
              "advisor.collect", "advisor.disk", "advisor.storage", "advisor.demo", "advisor.sizes")
    assert offenders(("advisor.model",), stages) == {}


def test_the_repository_never_imports_the_fleet() -> None:
    assert offenders(("advisor.repo",), ("advisor.fleet",)) == {}


RANKINGS = ("advisor.fleet.rank.ranked_from_summaries", "advisor.fleet.instances.fleet_report")
"""The ranking (SQL over the summaries) and the engine per instance (the detail rows, ``fleet show``)."""


def _calls(node: ast.AST, name: str) -> list[ast.Call]:
    return [c for c in ast.walk(node) if isinstance(c, ast.Call)
            and (isinstance(c.func, ast.Name) and c.func.id == name
                 or isinstance(c.func, ast.Attribute) and c.func.attr == name)]


def test_only_the_fleet_reaches_the_ranking_or_the_engine_per_instance() -> None:
    """A command asks ``rank_fleet`` (or ``fleet show``); nothing else reaches either."""
    found = {}
    for path in advisor_modules():
        module = module_name(path)
        hits = sorted(n for n in imported(path) if n in RANKINGS)
        if hits and module not in ("advisor.fleet.rank", "advisor.fleet.show"):
            found[module] = hits
    assert found == {}


def test_one_ranking_path_sql_over_the_summaries_the_engine_only_for_detail_rows() -> None:
    """``rank_fleet`` ranks by ``ranked_from_summaries`` alone; the engine (``fleet_report``) is called
    only in the function that advises one instance's detail row, and every call names one instance."""
    tree = ast.parse((REPO / "advisor" / "fleet" / "rank.py").read_text())
    (rank,) = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "rank_fleet"]
    (ranking,) = _calls(rank, "ranked_from_summaries")
    detail = {k.arg: k.value for k in ranking.keywords}.get("advise_period")
    assert isinstance(detail, ast.Name), "the detail rows are advised by a function handed to the ranking"
    nested = {n.name: n for n in ast.walk(rank) if isinstance(n, ast.FunctionDef) and n is not rank}
    engine_in = {name for name, f in nested.items() if _calls(f, "fleet_report")}
    assert engine_in == {detail.id} and len(_calls(rank, "fleet_report")) == len(_calls(nested[detail.id],
                                                                                         "fleet_report"))
    for path in advisor_modules():
        for call in _calls(ast.parse(path.read_text(), str(path)), "fleet_report"):
            assert "only" in {k.arg for k in call.keywords}, f"{path}:{call.lineno} advises every instance"


def test_advisor_reaches_collectors_only_through_the_registry() -> None:
    found = offenders(("advisor",), ("advisor.collectors", "collectors"))
    assert found == {}  # the registry finds them by entry point and imports no module by name


def test_the_engine_reads_no_clock() -> None:
    found = {}
    for path in advisor_modules():
        module = module_name(path)
        if not within(module, "advisor.engine"):
            continue
        tree = ast.parse(path.read_text(), str(path))
        hits = sorted(n for n in imported(path) if n == "time" or within(n, "time"))
        hits += [f"line {node.lineno}: .{node.func.attr}()" for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                 and node.func.attr in CLOCK_CALLS]
        if hits:
            found[module] = hits
    assert found == {}


def test_the_checks_see_imports_a_module_makes(tmp_path: Path) -> None:
    """The walker counts lazy and ``from`` imports, so the checks above can fail."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from psycopg.conninfo import make_conninfo\n    import advisor.cli\n"
                     "    from advisor import engine\n")
    assert {"psycopg.conninfo", "advisor.cli", "advisor.engine"} <= imported(probe)


def package_of(module: str) -> str:
    """``advisor.render.safe`` -> ``advisor.render``; a top-level module (``advisor.errors``) is its own."""
    return ".".join(module.split(".")[:2])


def package_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one package (Tarjan): each is a cycle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return cycles


def package_edges() -> dict[str, set[str]]:
    """advisor's packages and top-level modules -> the others they import (lazy imports included)."""
    edges: dict[str, set[str]] = {}
    for path in advisor_modules():
        package = package_of(module_name(path))
        for name in imported(path):
            if within(name, "advisor") and not within(name, "advisor.collectors") and name != "advisor":
                other = package_of(name)
                if other != package:
                    edges.setdefault(package, set()).add(other)
    return edges


def test_no_package_cycle() -> None:
    """A cycle through several packages (render -> repo -> render, errors -> render -> errors) is one
    too: no package may import, directly or through others, a package that imports it."""
    cycles = package_cycles(package_edges())
    assert cycles == [], [{p: sorted(package_edges()[p] & set(c)) for p in c} for c in cycles]


def test_the_cycle_check_finds_a_cycle_through_three_packages() -> None:
    edges = {"advisor.errors": {"advisor.render"}, "advisor.render": {"advisor.repo"},
             "advisor.repo": {"advisor.errors", "advisor.model"}, "advisor.model": set()}
    assert package_cycles(edges) == [["advisor.errors", "advisor.render", "advisor.repo"]]
