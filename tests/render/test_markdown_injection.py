"""Names that carry Markdown's inline syntax stay text in every Markdown a command writes.

A tablespace, device, host or instance name is whatever the database or a hand-edited file
held. Written into Markdown raw, ``[text](url)`` is a link whose target the reader does not
see, ``![i](https://...)`` an image a viewer loads as soon as the page is shown (a request
to that host on every view), ``**bold**``, ``_em_`` and ``~~strike~~`` change what a cell
seems to say, and ``# x`` or ``1. x`` at the start of a list item opens a heading or a list.
Each page here is rendered by a CommonMark parser with GitHub's tables and strikethrough
(markdown-it-py), and must hold exactly the markup the same page holds with plain names.
"""

from __future__ import annotations

import collections
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from advisor.model import Report
from advisor.render.markdown import render_markdown
from advisor.render.safe import markdown_cell, markdown_line
from tests.helpers.cli import run_advisor
from tests.helpers.inventories import GOOD_INVENTORY
from tests.helpers.pg import PgServer, available_versions, running_postgres

INJECT = "![i](https://evil.example/p.png) [t](https://evil.example/x) **b** _e_ ~~s~~ <img src=x>"
MARKUP = re.compile(r"<(a|img|strong|em|s|del|code|h[1-6]|ol|ul|li|blockquote|hr|table|tr|td|th)\b")


def markup(markdown: str) -> collections.Counter[str]:
    """How many of each element the page holds, rendered as a Markdown viewer would."""
    parser = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    return collections.Counter(MARKUP.findall(parser.render(markdown)))


def test_markup_can_tell_a_page_with_live_syntax_from_one_without() -> None:
    raw = markup(f"| a |\n|---|\n| {INJECT} |\n")
    assert raw["img"] == 2 and raw["a"] == 1  # the Markdown image and the raw tag
    assert raw["strong"] == 1 and raw["em"] == 1 and raw["s"] == 1
    assert markup(f"| a |\n|---|\n| {markdown_cell(INJECT)} |\n") == markup("| a |\n|---|\n| plain |\n")


@pytest.mark.parametrize("line", ["# heading", "1. list", "2) list", "- item", "+ item", "=== x", "> quote"])
def test_a_list_item_that_starts_like_a_block_stays_one_item(line: str) -> None:
    assert markup(f"- {markdown_line(line)}\n") == markup("- plain\n")


def test_intraword_underscores_stay_as_written() -> None:
    assert markdown_cell("USERS_DATA_01 ts_ü_x") == "USERS_DATA_01 ts_ü_x"
    assert markdown_cell("_x x_ a__ __b") == "\\_x x\\_ a\\_\\_ \\_\\_b"


def _renamed(report: Report, name: str) -> Report:
    """*report* with its first area (everywhere), the disk, the partition labels and a warning named *name*."""
    assert report.plan is not None
    old = report.areas[0].name

    def rename(area: str) -> str:
        return name if area == old else area

    plan = dataclasses.replace(
        report.plan,
        placements=tuple(dataclasses.replace(p, area=rename(p.area)) for p in report.plan.placements),
        service_times=tuple(dataclasses.replace(t, area=rename(t.area)) for t in report.plan.service_times),
        partitions=tuple(dataclasses.replace(p, label=name, areas=tuple(map(rename, p.areas)))
                         for p in report.plan.partitions),
        notes=(*report.plan.notes, f"# {name}"))
    return dataclasses.replace(report, areas=tuple(dataclasses.replace(a, name=rename(a.name), disk=name)
                                                   for a in report.areas),
                               plan=plan, warnings=(*report.warnings, f"1. file {name} odd"))


def test_report_markdown_keeps_names_as_text(report: Report) -> None:
    plain, injected = render_markdown(_renamed(report, "plain")), render_markdown(_renamed(report, INJECT))
    assert markup(injected) == markup(plain)
    assert "!\\[i\\](https://evil.example/p.png)" in injected  # shown, as written, for the reader to see


def test_plan_markdown_with_tiers_keeps_inventory_names_as_text(tmp_path: Path) -> None:
    run_advisor("sample", "oltp-2tb-workload.json", cwd=tmp_path)
    pages = {}
    for label, name in (("plain", "nvme0"), ("injected", f"nvme0 {INJECT}".replace('"', "'"))):
        (tmp_path / f"{label}.toml").write_text(GOOD_INVENTORY.replace('name = "nvme0"', f'name = "{name}"'))
        done = run_advisor("plan", "--workload", "oltp-2tb-workload.json", "--target", f"{label}.toml", "-f",
                           "markdown", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        pages[label] = done.stdout
    assert "### Tiers" in pages["injected"] and "evil.example" in pages["injected"]
    assert markup(pages["injected"]) == markup(pages["plain"])


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A real repository holding the AWR sample twice: as imported, and with its names injected."""
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries available")
    root = tmp_path_factory.mktemp("fleet-md")
    with running_postgres(max(versions), tmp_path_factory.mktemp("pg")) as server:
        yield root, _repository(server, root)


def _repository(server: PgServer, root: Path) -> str:
    import json

    for sample in ("awr_12.1.0.2.html", "sizes12.txt"):
        assert run_advisor("sample", sample, cwd=root).returncode == 0
    done = run_advisor("collect", "--from-report", "awr_12.1.0.2.html", "--sizes", "sizes12.txt", "-o", "awr.json",
                       cwd=root)
    assert done.returncode == 0, done.stderr
    data = json.loads((root / "awr.json").read_text())
    data["server"].update(host=f"host {INJECT}", name=f"ORCL {INJECT}", identity="987654321")
    for row in data["rates"]:
        if row["tablespace"] == "USERS":
            row["tablespace"] = f"USERS {INJECT}"
    (root / "injected.json").write_text(json.dumps(data))
    server.psql("CREATE DATABASE fleetmd")
    repo = server.dsn_for("fleetmd")
    assert run_advisor("repo", "init", "--dsn", repo).returncode == 0
    pushed = run_advisor("push", "--repo", repo, "awr.json", "injected.json", cwd=root,
                         env={"ADVISOR_SPOOL": str(root / "spool")})
    assert pushed.returncode == 0, pushed.stderr
    return repo


@pytest.mark.pg
@pytest.mark.slow
def test_fleet_report_and_show_markdown_keep_names_as_text(fleet: tuple[Path, str]) -> None:
    import json

    root, repo = fleet
    window = ["--repo", repo, "--since", "3650d", "--until", "2030-01-01"]
    ranked = run_advisor("fleet", "report", *window, "-f", "json", cwd=root)
    assert ranked.returncode == 0, ranked.stderr
    ids = {item["host"]: item["instance_id"] for item in json.loads(ranked.stdout)["instances"]}
    assert set(ids) == {"dbhost1", f"host {INJECT}"}, ids
    report = run_advisor("fleet", "report", *window, "-f", "markdown", cwd=root)
    assert report.returncode == 0, report.stderr
    assert "evil.example" in report.stdout
    rows = [line for line in report.stdout.splitlines() if line.startswith("| ") and "evil" in line]
    assert rows and markup(report.stdout)["a"] == 0 and markup(report.stdout)["img"] == 0
    assert markup(report.stdout)["strong"] == 0 and markup(report.stdout)["em"] == 0

    pages = {}
    for host, instance in ids.items():
        done = run_advisor("fleet", "show", instance, *window, "-f", "markdown", "--force", cwd=root)
        assert done.returncode == 0, done.stderr
        pages[host] = done.stdout
    injected = pages[f"host {INJECT}"]
    assert "evil.example" in injected and "USERS !\\[i\\]" in injected
    assert markup(injected) == markup(pages["dbhost1"])
