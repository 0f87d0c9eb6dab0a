"""`fleet report` and `fleet show` on a real repository holding hostile names.

Three real snapshots of the repository's own server are pushed with their host, instance
name and a tablespace renamed to text that retitles a terminal (OSC), clears it (CSI),
breaks a Markdown row (CR LF, ``|``) and carries ``<script>``. Every format must show it
escaped: no raw control character in the terminal output, no HTML through Markdown, one
line per row.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.pg import PgServer

pytestmark = [pytest.mark.pg, pytest.mark.slow]

HOSTILE = "db\x1b]0;pwned\x07\r\n| x | <script>alert(1)</script>\x1b[2J"
RAW = ("\x1b", "\x07", "\r")


def hostile_copies(paths: list[Path], tmp_path: Path) -> list[Path]:
    out = []
    for number, path in enumerate(paths):
        data = json.loads(path.read_text())
        data["server"]["host"] = HOSTILE
        data["server"]["name"] = HOSTILE + ":5432"
        for row in data["files"]:
            if row["tablespace"] == "pg_default":
                row["tablespace"] = "ts" + HOSTILE
        target = tmp_path / f"hostile{number}.json"
        target.write_text(json.dumps(data))
        out.append(target)
    return out


def test_fleet_report_and_show_escape_hostile_names(repo_server: PgServer, repo: str, real_snapshots: list[Path],
                                                    tmp_path: Path) -> None:
    files = hostile_copies(real_snapshots, tmp_path)
    pushed = run_advisor("push", "--repo", repo, *map(str, files), env={"ADVISOR_SPOOL": str(tmp_path / "spool")})
    assert pushed.returncode == 0, pushed.stderr
    ranked = run_advisor("fleet", "report", "--repo", repo, "--since", "30d", "-f", "json")
    assert ranked.returncode == 0, ranked.stderr
    instance = json.loads(ranked.stdout)["instances"][0]
    assert instance["host"] == HOSTILE  # json keeps the exact text (escaped by JSON itself)

    for fmt in ("terminal", "markdown", "html"):
        done = run_advisor("fleet", "report", "--repo", repo, "--since", "30d", "-f", fmt)
        assert done.returncode == 0, done.stderr
        assert not any(char in done.stdout for char in RAW), (fmt, done.stdout[:600])
        assert "\\x1b" in done.stdout
        shown_osc = "\\x1b\\]0;pwned\\x07" if fmt == "markdown" else "\\x1b]0;pwned\\x07"  # Markdown escapes "]"
        assert fmt == "terminal" or ("<script>" not in done.stdout and shown_osc in done.stdout)
        shown = run_advisor("fleet", "show", instance["instance_id"], "--repo", repo, "--since", "30d", "-f", fmt,
                            "--force")
        assert shown.returncode == 0, shown.stderr
        assert not any(char in shown.stdout for char in RAW), (fmt, shown.stdout[:600])
        assert "\\x1b" in shown.stdout
        prose = re.sub(r"(?ms)^(`{4,})\w*\n.*?^\1$", "", shown.stdout)  # script text in a fence is code, not HTML
        assert fmt == "terminal" or ("<script>" not in prose and shown_osc in prose)
        if fmt == "markdown":
            rows = [line for line in done.stdout.splitlines() if line.startswith("| 1 |")]
            assert len(rows) == 1 and rows[0].endswith("|")
            header = done.stdout.splitlines()[2]
            borders = len(re.findall(r"(?<!\\)(?:\\\\)*\|", header))
            assert len(re.findall(r"(?<!\\)(?:\\\\)*\|", rows[0])) == borders, rows[0]
