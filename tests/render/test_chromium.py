"""What a browser shows of the HTML of `report`, `plan`, `audit` and `fleet report`: real headless Chromium.

Each page is what the command writes with ``-f html -o FILE`` on real inputs: the AWR sample
(`report`, with its sfdisk file and oracle.sql), the 2 TB OLTP sample planned onto a tiered
inventory (`plan`: eleven scripts, SQL lines longer than the page), two snapshots of a real
PostgreSQL server (`audit`), and a real PostgreSQL repository holding the AWR sample and a
copy with long and hostile names (`fleet report`). Chromium lays each page out in a window
1280 pixels wide (tests/helpers/browser.py); the test reads what a person would see:

* every script the command writes with ``--scripts`` is shown with its lines as lines
  (the ``<pre>``'s rendered text equals the file), and no page shows a literal ``\\n``;
* the page, every table and every script box fit the window: no horizontal scroll bar;
* the screenshot (saved beside the page in the test's tmp dir, path printed) is not blank.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.model import Report
from advisor.render.html import render_html
from tests.helpers.browser import LITERAL_ESCAPE, WINDOW_WIDTH_PX, Rendered, chromium, png_rows, render
from tests.helpers.cli import run_advisor
from tests.helpers.inventories import GOOD_INVENTORY
from tests.helpers.pg import PgServer, available_versions, running_postgres

pytestmark = [pytest.mark.chromium, pytest.mark.slow]

LONG_NAME = "USERS_" + "X" * 180 + " <b>|</b> **b** [t](https://evil.example/x)"
"""A tablespace and host name no column can hold on one line unless it breaks inside the word."""


def test_html_report_renders_in_chromium(report: Report, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(report), encoding="utf-8")
    shown = render(page, tmp_path / "profile")
    width, height, rows = png_rows(shown.screenshot.read_bytes())
    assert width == WINDOW_WIDTH_PX and height == min(shown.page_height, 16_000)
    assert len({row[1:] for row in rows}) > 100, "the page shows text and drawings, not a blank canvas"
    for finding in report.findings:
        assert finding.code in shown.text


def _advisor(*args: str, cwd: Path) -> None:
    done = run_advisor(*args, cwd=cwd)
    assert done.returncode in (0, 4), (args, done.stderr)


def _injected(root: Path) -> Path:
    """The AWR sample's workload as another instance, with LONG_NAME for its host, name and USERS."""
    data = json.loads((root / "awr.json").read_text())
    data["server"].update(host=LONG_NAME, name=LONG_NAME, identity="987654321")
    for row in data["rates"]:
        if row["tablespace"] == "USERS":
            row["tablespace"] = LONG_NAME
    path = root / "injected.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Path, Path | None]]]:
    """Per command, its HTML page and the directory its ``--scripts`` wrote (None: it writes none)."""
    chromium()  # skip before any work where no browser can be installed
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries available")
    root = tmp_path_factory.mktemp("pages")
    with running_postgres(max(versions), tmp_path_factory.mktemp("pg")) as server:
        yield _pages(server, root)


def _pages(server: PgServer, root: Path) -> dict[str, tuple[Path, Path | None]]:
    for sample in ("awr_12.1.0.2.html", "sizes12.txt", "oltp-2tb-workload.json"):
        _advisor("sample", sample, cwd=root)
    (root / "inventory.toml").write_text(GOOD_INVENTORY)
    _advisor("collect", "--from-report", "awr_12.1.0.2.html", "--sizes", "sizes12.txt", "-o", "awr.json", cwd=root)
    server.psql("CREATE TABLE busy AS SELECT g AS id, repeat('b', 100) AS pad FROM generate_series(1, 20000) g")
    for name in ("a.json", "b.json"):
        server.psql("SELECT count(*) FROM busy")
        _advisor("collect", "--dsn", server.dsn, "-o", name, cwd=root)
    server.psql("CREATE DATABASE fleet")
    repo = server.dsn_for("fleet")
    _advisor("repo", "init", "--dsn", repo, cwd=root)
    done = run_advisor("push", "--repo", repo, "awr.json", str(_injected(root)), cwd=root,
                       env={"ADVISOR_SPOOL": str(root / "spool")})
    assert done.returncode == 0, done.stderr
    _advisor("report", "--workload", "awr.json", "--sizes", "sizes12.txt", "--preset", "class-10k", "-f", "html",
             "-o", "report.html", "--scripts", "report-scripts", cwd=root)
    _advisor("plan", "--workload", "oltp-2tb-workload.json", "--target", "inventory.toml", "-f", "html",
             "-o", "plan.html", "--scripts", "plan-scripts", cwd=root)
    _advisor("audit", "-s", "a.json", "b.json", "-f", "html", "-o", "audit.html", cwd=root)
    _advisor("fleet", "report", "--repo", repo, "--since", "3650d", "--until", "2030-01-01", "-f", "html",
             "-o", "fleet.html", cwd=root)
    return {"report": (root / "report.html", root / "report-scripts"),
            "plan": (root / "plan.html", root / "plan-scripts"),
            "audit": (root / "audit.html", None), "fleet report": (root / "fleet.html", None)}


def _shown(pages: dict[str, tuple[Path, Path | None]], command: str, capsys: pytest.CaptureFixture[str]) -> Rendered:
    page, _ = pages[command]
    shown = render(page, page.parent / f"profile-{command.replace(' ', '-')}")
    with capsys.disabled():
        print(f"\n{command}: screenshot {shown.screenshot}")
    width, _height, rows = png_rows(shown.screenshot.read_bytes())
    assert width == WINDOW_WIDTH_PX
    assert len({row[1:] for row in rows}) > 20, f"{command}: the screenshot is blank"
    return shown


@pytest.mark.pg
@pytest.mark.parametrize("command", ["report", "plan", "audit", "fleet report"])
def test_a_browser_shows_each_page_whole(pages: dict[str, tuple[Path, Path | None]], command: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    shown = _shown(pages, command, capsys)
    assert shown.inner_width == WINDOW_WIDTH_PX
    assert shown.page_width <= WINDOW_WIDTH_PX, f"{command}: the page scrolls sideways ({shown.page_width} px)"
    assert shown.tables, f"{command}: no table"
    for box in (*shown.tables, *shown.pres):
        assert box.right <= WINDOW_WIDTH_PX and box.scrollWidth <= box.clientWidth, \
            (command, box.tag, box.right, box.scrollWidth, box.clientWidth, box.text[:120])
    if command != "fleet report":  # the fleet page names LONG_NAME's markup, escaped: shown as text
        assert not LITERAL_ESCAPE.search(shown.text), LITERAL_ESCAPE.search(shown.text)
    else:
        assert "**b** [t](https://evil.example/x)" in shown.text and "<b>|</b>" in shown.text


@pytest.mark.pg
@pytest.mark.parametrize("command", ["report", "plan"])
def test_a_script_shows_its_lines_as_lines(pages: dict[str, tuple[Path, Path | None]], command: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    shown = _shown(pages, command, capsys)
    _, scripts = pages[command]
    assert scripts is not None
    written = sorted(p for p in scripts.rglob("*") if p.is_file())  # a tiered plan: a folder per device
    assert len(written) >= 2 and any(p.name.startswith("sfdisk") for p in written), written
    shown_scripts = [box.text.rstrip("\n") for box in shown.pres]
    assert len(shown_scripts) == len(written)
    for path in written:
        lines = path.read_text(encoding="utf-8").rstrip("\n")
        assert lines in shown_scripts, f"{command}: {path.name} is not shown line for line"
        assert lines.count("\n") >= 3
    assert not any(LITERAL_ESCAPE.search(text) for text in shown_scripts)
