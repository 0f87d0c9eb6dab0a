"""Read the commands a documentation page shows, so tests can run exactly those.

A page shows commands two ways: fenced blocks (shell lines, ``# comments``, ``\\``
continuations, sometimes ``$ cmd`` transcripts followed by their output) and inline code
spans in the prose (`` `advisor audit --snapshot a.json b.json` ``). The tests run what the
page prints, with only the machine-specific parts (DSN, paths, durations) replaced, so an
example that drifts from the tool fails CI instead of a reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"

_FENCE = re.compile(r"^```")
_SPAN = re.compile(r"`([^`\n]+)`")
_TOOLS = ("advisor ", "psql ", "pgbench ")


@dataclass
class Block:
    """One fenced code block: the heading it sits under and its lines."""

    heading: str
    line: int
    text: str


@dataclass
class Transcript:
    """One ``$ command`` of a fenced block with the output the page shows below it."""

    command: str
    output: list[str] = field(default_factory=list)
    exit_code: int = 0
    line: int = 0


def section(page: str, heading: str) -> str:
    """The text of a page from *heading* (a ``#`` line) to the next heading of its level.

    ``#`` lines inside fenced blocks are shell comments, not headings.
    """
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    level = len(heading) - len(heading.lstrip("#"))
    inside = False
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if _FENCE.match(line):
            inside = not inside
        elif not inside and re.match(rf"#{{1,{level}}} ", line):
            return "\n".join(lines[start:number]) + "\n"
    return "\n".join(lines[start:]) + "\n"


def blocks(text: str) -> list[Block]:
    """Every fenced block of *text*, with the nearest heading above it."""
    found: list[Block] = []
    heading, inside, start = "", False, 0
    lines: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            if inside:
                found.append(Block(heading, start, "\n".join(lines)))
            inside, start, lines = not inside, number, []
        elif inside:
            lines.append(line)
        elif line.startswith("#"):
            heading = line.lstrip("# ").strip()
    return found


def shell_lines(block: Block) -> list[str]:
    """The commands of a shell block: continuations joined, comments and blanks dropped."""
    commands: list[str] = []
    pending = ""
    for raw in block.text.splitlines():
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        commands.append((pending + line.strip()) if pending else line.strip())
        pending = ""
    return commands


def inline_commands(text: str) -> list[str]:
    """Code spans in the prose (outside fences) that are command lines of advisor/psql/pgbench."""
    prose: list[str] = []
    inside = False
    for line in text.splitlines():
        if _FENCE.match(line):
            inside = not inside
        elif not inside:
            prose.append(line)
    joined = " ".join(prose)
    # `advisor collect` alone names a command in a sentence; a command line has arguments.
    return [span for span in _SPAN.findall(joined) if span.startswith(_TOOLS) and len(span.split()) > 2]


def transcripts(block: Block) -> list[Transcript]:
    """``$ advisor ...`` lines of a block and the output lines the page shows after each."""
    found: list[Transcript] = []
    status_next = False
    for number, line in enumerate(block.text.splitlines(), block.line + 1):
        if line.strip() == "$ echo $?":
            status_next = True
        elif status_next and found and line.strip().isdigit():
            found[-1].exit_code, status_next = int(line.strip()), False
        elif line.startswith("$ "):
            found.append(Transcript(line[2:].strip(), line=number))
        elif found:
            exit_line = re.fullmatch(r"\[exit (\d+)\]|\(exit (\d+)\)", line.strip())
            if exit_line:
                found[-1].exit_code = int(exit_line.group(1) or exit_line.group(2))
            else:
                found[-1].output.append(line)
    return found


def strip_comment(command: str) -> str:
    """*command* without a trailing ``# comment`` (outside quotes, as the shell reads it)."""
    quote = ""
    for index, char in enumerate(command):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or command[index - 1] in " \t"):
            return command[:index].rstrip()
    return command
