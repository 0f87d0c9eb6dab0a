"""The ``$ advisor ...`` transcripts of the command pages run, and their output keeps its shape.

Each page's transcripts run in order in a fresh directory that sees the repository's
``tests/`` (the committed Oracle fixtures) and ``pyproject.toml`` the way the source tree
does, so a command may use a file an earlier one wrote. Pages whose examples need a server, a
disk or inputs made on one get them from :mod:`tests.docs.page_servers` (a live PostgreSQL,
loop devices, snapshots and bench profiles made for real); the page's ports and the
directories of the machine it was made on are mapped to those. A transcript runs when every
input file it names exists there or was written before it; the rest are counted and printed
with the reason (``NOT_RUN``). ``MINIMUM`` and each set-up's minimum pin how many run per
page, so an example that stops running fails here instead of silently dropping out.
Structure, not numbers, is compared (:mod:`tests.docs.transcript`).
``ADVISOR_DOCS_RECORD=DIR`` writes each page's real outputs to DIR for regenerating a page.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from http.server import HTTPServer, SimpleHTTPRequestHandler
from pathlib import Path

import pytest

from tests.docs.mdpage import DOCS, Transcript, blocks, transcripts
from tests.docs.page_fleet import fleet_before, fleet_env, fleet_inputs
from tests.docs.page_servers import (
    FIXTURES,
    PageSetup,
    audit_inputs,
    bench_inputs,
    findings_inputs,
    report_inputs,
    where_inputs,
)
from tests.docs.page_setup import SETUP
from tests.docs.transcript import REPO, Outcome, environment, mismatches, run
from tests.helpers.pg import PgServer, available_versions, running_postgres

MINIMUM = {
    "awr-import.md": 8,
    "tiers.md": 17,
    "plan.md": 6,
    "disk.md": 7,
    "schedule.md": 9,
    "drive-spec.md": 2,
    "oracle.md": 1,
}
"""Transcripts that must run per page with no server (the rest need files the page only describes)."""

NOT_RUN = {
    ("tiers.md", "advisor inventory --check host.toml", 2):
        "reads the profile of the bench before it, which ran on a directory of the machine the page was made on",
    ("report.md", 'advisor collect --dsn "host=127.0.0.1 port=42347 user=postgres dbname=postgres" --interval 20 '
                  "-o w.json", 1):
        "its w.json is the loop-disk workload of scripts/report_sample.py (a 2 GiB loop disk, pgbench for a "
        "minute), committed as tests/docs/fixtures/report-sample-w.json; collect --interval runs in collect.md",
    ("bench.md", "advisor bench /tmp/vda-locked --quick", 1):
        "needs root without the capabilities that bypass file modes (setpriv) on a mode-000 node: "
        "tests/bench/test_bench_safety.py makes exactly that refusal",
    ("bench.md", "advisor bench --scratch-file /tmp/advisor.scratch --size 1G --quick -o vm-disk.json", 1):
        "a 45 s bench of this machine's disk; the same command with a 0.5 s budget per test makes report.md's "
        "vda.json, and tests/cli/test_narrow_bench_inventory.py checks its output at 80 columns",
    ("bench.md", "advisor bench --scratch-file /var/tmp/advdoc-G/term.tmp --size 256M --engine fio --tests "
                 "band,stroke --budget-per-test 6 --runs 1 -o part.json &", 1):
        "the page's kill -TERM $! needs the shell that started it; tests/bench/test_bench_safety.py sends SIGTERM",
    ("bench.md", "advisor bench --scratch-file /var/tmp/advdoc/mnt/bench.tmp --size 256M --tests commit --rpm 7200 "
                 "--quick", 2):
        "the command above again, on a drive emulated with --cache lying: here it would bench the same disk twice",
    ("bench.md", "advisor bench /dev/loop0 --quick -o disk.json --plot zones.svg", 1):
        "a bench of the emulated drive in real time (minutes); tests/bench/test_bench_loop.py benches it",
    ("bench.md", "advisor bench --scratch-file /var/tmp/advdoc-G/mnt/bench.tmp --size 512M --tests smr "
                 "--budget-per-test 60", 1):
        "a 60 s budget on the emulated SMR drive; tests/bench/test_bench_smr.py runs the same test",
}
"""Transcripts not run, by page, command and occurrence, with the reason (printed with the others)."""

_DRAWN = re.compile(r"[─━┃│╭╮╰╯┏┓┗┛┡┩╇┳┻]")
_INPUT = re.compile(r"\.(json|toml|html|txt|csv|sql|lst)$")
_DSN_PORT = re.compile(r"port[= ](\d+)|@[\w.]+:(\d+)")
_COMMAND = re.compile(r"(?:[A-Z_]+=\S+ )*advisor ")


FROM_BLOCKS = {
    "drive-spec.md": {"[drive.db-server-disk]": "drive.toml"},
    "tiers.md": {
        "# The new server: one 1 TB NVMe": "inventory.toml",
    },
}
"""Blocks of a page that make the inputs of its transcripts: a Python script is run as shown,
a file's text is saved under the name the transcripts use. Keyed by the block's first line."""


COMMITTED = {"plan.md": {"w.json": "report-sample-w.json"}}
"""Inputs a page takes from a run too long for CI, committed in ``tests/docs/fixtures`` (see
``scripts/report_sample.py`` for how to regenerate it)."""


def _files_from_blocks(page: str, workdir: Path) -> None:
    for name, fixture in COMMITTED.get(page, {}).items():
        shutil.copy(FIXTURES / fixture, workdir / name)
    if page == "disk.md":  # its `show --spec drive.toml` is the example file of drive-spec.md
        _files_from_blocks("drive-spec.md", workdir)
    wanted = FROM_BLOCKS.get(page, {})
    made = set()
    for block in blocks((DOCS / page).read_text(encoding="utf-8")):
        for first_line, target in wanted.items():
            if block.text.startswith(first_line):
                made.add(first_line)
                if target == "run":
                    done = run(f"{sys.executable} - <<'PYEOF'\n{block.text}\nPYEOF", workdir, environment(workdir))
                    assert done.returncode == 0, f"the script of docs/{page}:{block.line} failed: {done.output}"
                else:
                    (workdir / target).write_text(block.text + "\n")
    assert made == set(wanted), f"docs/{page} no longer has the blocks {set(wanted) - made}"


def _page_transcripts(page: str) -> list[Transcript]:
    text = (DOCS / page).read_text(encoding="utf-8")
    found: list[Transcript] = []
    for block in blocks(text):
        found.extend(t for t in transcripts(block) if _COMMAND.match(t.command))
    return found


def _why_not_runnable(command: str, workdir: Path, written: set[str], live: set[str],
                      mapped: tuple[str, ...] = ()) -> str:
    """Empty when *command* can run here; else what it needs (*mapped*: live paths made for the page)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return "not a shell line"
    ports = [p for match in _DSN_PORT.findall(command) for p in match if p]
    if any(port != "1" and port not in live for port in ports) or "PORT" in command:
        return "needs a server the page's set-up started"
    machine = ("/dev/", "/tmp/", "/var/", "/work/", "/srv/")
    if any(w.startswith(machine) and not w.startswith(mapped) and not Path(w).exists() for w in words):
        return "names a device or directory of the machine the page was made on"
    outputs = {words[i + 1] for i, word in enumerate(words[:-1]) if word in ("-o", "--output")}
    while words and re.fullmatch(r"[A-Z_]+=\S+", words[0]):  # COLUMNS=80 advisor ...
        words = words[1:]
    if words[:2] == ["advisor", "sample"]:  # writes its sample under its own name, or -o
        return ""
    for word in words[1:]:
        if _INPUT.search(word) and word not in outputs and word not in written:
            if any(char in word for char in "*?[") and any(workdir.glob(word)):  # the shell expands it
                continue
            if not (workdir / word).exists() and not word.startswith("/nonexistent"):
                return f"input {word} is not committed"
    return ""


RECORD = "ADVISOR_DOCS_RECORD"
"""Set to a directory: each page's real outputs of this run are written there as ``PAGE.txt``,
``$ command``, output, ``[exit N]``, ready to paste when a page is regenerated (ports and paths
are this run's: put the page's back)."""


def _record(page: str, command: str, outcome: Outcome) -> None:
    directory = os.environ.get(RECORD)
    if directory:
        with (Path(directory) / f"{page.removesuffix('.md')}.txt").open("a", encoding="utf-8") as out:
            out.write(f"$ {command}\n{outcome.output.rstrip()}\n[exit {outcome.returncode}]\n\n")


def page_width(transcript: Transcript) -> int:
    """The width the page's output was made at: 80, or its widest table line (rich fills tables and
    boxes to the width; plain lines such as warnings are not wrapped, so they do not tell). A line
    keeps its trailing blanks: an edgeless table pads each row to its width with one, and a run
    one column narrower than the table draws it another way."""
    drawn = [line for line in transcript.output if _DRAWN.search(line)]
    return max([80, *(len(line) for line in drawn)])


def _check_page(page: str, workdir: Path, ports: dict[str, str], minimum: int,
                paths: dict[str, str] | None = None, before: Callable[[str], None] | None = None,
                page_env: dict[str, str] | None = None) -> None:
    """Run the page's runnable transcripts in order; *ports* maps the page's ports to live ones,
    *paths* the page's directories (the machine it was made on, or a DSN's port) to the ones its
    set-up made, *before* runs before each transcript, *page_env* is the page's environment."""
    paths = paths or {}
    for name in ("tests", "pyproject.toml"):
        (workdir / name).symlink_to(REPO / name)
    for make in SETUP.values():
        make(workdir)
    _files_from_blocks(page, workdir)
    env = environment(workdir)
    written: set[str] = set()
    ran, problems, not_run = 0, [], []
    seen: dict[str, int] = {}
    for transcript in _page_transcripts(page):
        command = transcript.command
        seen[command] = seen.get(command, 0) + 1
        if (page, command, seen[command]) in NOT_RUN:
            not_run.append(f"{command}: {NOT_RUN[page, command, seen[command]]}")
            continue
        for shown, live in ports.items():
            command = re.sub(rf"\bport={shown}\b", f"port={live}", command)
        for shown, live in paths.items():
            command = command.replace(shown, live)
        live = set(ports.values()) | {p for value in paths.values() for m in _DSN_PORT.findall(value) for p in m if p}
        why = _why_not_runnable(command, workdir, written, live, tuple(paths.values()))
        if why:
            not_run.append(f"{transcript.command}: {why}")
            continue
        if before:
            before(transcript.command)
        outcome = run(command, workdir, {**env, **(page_env or {}), "COLUMNS": str(page_width(transcript))})
        for shown, live in paths.items():  # the run's output in the page's terms (its paths and ports)
            outcome.output = outcome.output.replace(live, shown)
        ran += 1
        words = shlex.split(command, comments=True)
        written.update(words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-o", "--output"))
        if words[:2] == ["advisor", "sample"] and len(words) > 2:
            written.add(words[2])
        for problem in mismatches(transcript, outcome):
            problems.append(f"docs/{page}:{transcript.line}: {transcript.command}\n    {problem}")
        _record(page, transcript.command, outcome)
    print(f"{page}: {ran} run, {len(not_run)} not run:\n  " + "\n  ".join(not_run))
    assert not problems, "\n".join(problems)
    assert ran >= minimum, f"only {ran} transcripts of docs/{page} ran (pinned {minimum})"


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(MINIMUM))
def test_page_transcripts_keep_their_shape(page: str, tmp_path: Path) -> None:
    _check_page(page, tmp_path, {}, MINIMUM[page])


ON_A_SERVER = {
    "collect.md": PageSetup({"43769": "pg", "33937": "pg"}, 7),
    "exit-codes.md": PageSetup({"33937": "pg", "52399": "web"}, 12),
    "audit.md": PageSetup({"55705": "pg"}, 3, audit_inputs),
    "findings.md": PageSetup({}, 3, findings_inputs),
    "report.md": PageSetup({}, 6, report_inputs),
    "where.md": PageSetup({}, 5, where_inputs),
    "bench.md": PageSetup({}, 7, bench_inputs),
    "fleet.md": PageSetup({"58207": "pg"}, 34, fleet_inputs, before=fleet_before, env=fleet_env),
}
"""Pages whose transcripts talk to a server or need inputs made on one (:mod:`tests.docs.page_servers`):
the page's port → a live PostgreSQL or web server, and the transcripts that must run."""


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PgServer, dict[str, str]]]:
    """A PostgreSQL server (with the grant-less role ``monitor`` of exit-codes.md) and a web server."""
    versions = available_versions()
    if not versions:
        pytest.skip("no PostgreSQL server binaries on this machine")
    with running_postgres(max(versions), tmp_path_factory.mktemp("pg"),
                          settings={"track_io_timing": "on"}) as server:
        server.psql("CREATE ROLE monitor LOGIN")
        web = HTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler)
        thread = threading.Thread(target=web.serve_forever, daemon=True)
        thread.start()
        try:
            yield server, {"pg": str(server.port), "web": str(web.server_address[1])}
        finally:
            web.shutdown()


@pytest.mark.pg
@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(ON_A_SERVER))
def test_page_transcripts_on_real_servers(page: str, tmp_path: Path,
                                          live_server: tuple[PgServer, dict[str, str]]) -> None:
    server, live = live_server
    setup = ON_A_SERVER[page]
    with ExitStack() as stack:
        paths = setup.make(tmp_path, server, stack) if setup.make else {}
        ports = {shown: live[kind] for shown, kind in setup.ports.items()}
        before = setup.before
        _check_page(page, tmp_path, ports, setup.minimum, paths,
                    (lambda command: before(tmp_path, server, command)) if before else None,
                    setup.env(tmp_path) if setup.env else None)
