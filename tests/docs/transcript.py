"""Run the ``$ advisor ...`` transcripts of a page and compare the structure of their output.

The pages paste real output, with values of the machine that produced it (ports, paths,
times, rates). What must not drift is the shape: the exit code, that an error is an
``advisor: error:`` line, the files a command says it wrote, the header of every table (its
column names in order) and the first word of the output. Numbers and the wording of table
bodies are free to change.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.docs.mdpage import Transcript

REPO = Path(__file__).resolve().parents[2]
_RULE = re.compile(r"^[\s┃┡━╇┩─]*[─━]{3,}[\s┃┡━╇┩─]*$")
_BOX = re.compile(r"[┃│╭╮╰╯┏┓┗┛┡┩╇┳┻]")
_DEVICE = re.compile(r"(loop|sd|vd|xvd|hd|nvme|md|dm-|mmcblk)\w*")
"""A block device's name: the machine's (``loop5`` there, ``vda`` here), so a word like any other."""


@dataclass
class Outcome:
    """What running one transcript's command gave."""

    returncode: int
    output: str


def environment(workdir: Path) -> dict[str, str]:
    """``advisor`` on the PATH as this tree's CLI, output at the width the pages were made at."""
    bindir = workdir / ".bin"
    bindir.mkdir(exist_ok=True)
    wrapper = bindir / "advisor"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m advisor "$@"\n')
    wrapper.chmod(0o755)
    env = dict(os.environ)
    env.update(PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(REPO),
               ADVISOR_SQL_DIR=str(REPO / "sql"), COLUMNS="80", NO_COLOR="1")
    return env


def run(command: str, workdir: Path, env: dict[str, str]) -> Outcome:
    """Run *command* as the page shows it (pipes and redirections included) in *workdir*."""
    done = subprocess.run(["bash", "-c", command], cwd=workdir, env=env, capture_output=True, text=True,
                          timeout=300)
    return Outcome(done.returncode, done.stdout + done.stderr)


def _same_table(page: list[str], run: list[str]) -> bool:
    """The run's header is the page's, or the page's with columns left out in the same order: the
    per-file table drops a column no file has a figure for, which depends on the data of the run."""
    if " ".join(page) == " ".join(run):
        return True
    words_page, words_run = " ".join(page).split(), " ".join(run).split()
    if not words_run or words_page[:1] != words_run[:1]:
        return False
    remaining = iter(words_page)
    return all(word in remaining for word in words_run)


def headers(lines: list[str]) -> list[list[str]]:
    """Column names of each table: the line above a rule (rich's boxed or simple tables)."""
    found: list[list[str]] = []
    for index, line in enumerate(lines[1:], 1):
        if _RULE.match(line) and lines[index - 1].strip():
            above = lines[index - 1]
            cells = [cell.strip() for cell in re.split(r"┃|│|\s{2,}", above) if cell.strip()]
            if cells and not _RULE.match(above):
                found.append(cells)
    return found


def mismatches(transcript: Transcript, outcome: Outcome) -> list[str]:
    """How the real run differs in structure from what the page shows (empty: it matches)."""
    problems: list[str] = []
    expected = [line for line in transcript.output if line.strip()]
    actual = outcome.output.splitlines()
    if outcome.returncode != transcript.exit_code:
        problems.append(f"exit {outcome.returncode}, the page shows {transcript.exit_code}")
    for line in expected:
        subject = re.match(r"advisor: error: (\S+):", line)
        if line.startswith("advisor: error:") and not any(a.startswith("advisor: error:") for a in actual):
            problems.append("the page shows an 'advisor: error:' line, the run printed none")
        elif subject and not any(a.startswith(f"advisor: error: {subject.group(1)}:") for a in actual):
            problems.append(f"the page's error names {subject.group(1)}, the run's does not")
    for line in expected:
        wrote = re.match(r"wrote (\S+)$", line.strip())
        if wrote and not any(a.strip().startswith(f"wrote {wrote.group(1)}") for a in actual):
            problems.append(f"no 'wrote {wrote.group(1)}'")
    found = headers(actual)
    flat = [" ".join(cells) for cells in found]
    for cells in headers(expected):
        if not any(_same_table(cells, run) for run in found):
            problems.append(f"no table with the header {cells} (the run has {flat})")
    # Notes and warnings on stderr depend on the server's settings; the output proper starts after.
    first_expected = _first_word([line for line in expected if not line.startswith("advisor:")])
    first_actual = _first_word([line for line in actual if line.strip() and not line.startswith("advisor:")])
    if first_expected and first_expected != first_actual:
        problems.append(f"output starts with {first_actual!r}, the page shows {first_expected!r}")
    return problems


def _first_word(lines: list[str]) -> str:
    for line in lines:
        if _BOX.search(line) or _RULE.match(line):
            continue
        word = re.match(r"\s*([A-Za-z][\w-]*)", line)
        if word and _DEVICE.fullmatch(word.group(1)):
            return "<device>"
        return word.group(1) if word else ""
    return ""
