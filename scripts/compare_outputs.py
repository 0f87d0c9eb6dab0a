"""Do two source trees print the same thing? ``workload``, ``plan``, ``report``, ``audit``, ``fleet report`` and
``fleet show`` over every sample and fixture, in every format, side by side.

A refactoring that must not change what the commands print (one advise entry, the fleet in one
package) is checked by running both trees on the same inputs and comparing the bytes: the
samples (``advisor/samples``), every AWR/Statspack report fixture (``tests/oracle/fixtures``)
imported once, and three real snapshots of a real PostgreSQL server (the newest available,
started here), whose host layout gives ``audit`` and ``report`` real disks. Each tree gets its
own fleet repository on that server, initialised and filled by its own ``repo init`` and
``push`` with the same documents, and ranked with a fixed ``--until``. The only text normalised
is the time a command ran (a report's ``generated_at``, the ranking's), which differs run by run.

Run: ``.venv/bin/python scripts/compare_outputs.py --base DIR [--here DIR] [--keep DIR] [--allow NAME ...]``
(``DIR``: the other tree, e.g. ``git worktree add --detach DIR REV``; ``--here``: the tree compared
with it, by default this one). Prints one line per
output (same / differs, with the first differing lines) and exits 1 when an output differs
that ``--allow`` does not name.
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TREE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TREE))

from tests.helpers.pg import PgServer, available_versions, running_postgres  # noqa: E402

FORMATS = ("terminal", "json", "markdown", "html")
RANKINGS: tuple[tuple[str, list[str]], ...] = (
    ("summaries", []), ("engine", ["--force"]), ("preset", ["--preset", "class-7200-desktop"]))
"""The ranking by default and with the options that change the engine (they apply to the detail rows only)."""
FIXTURES = TREE / "tests" / "oracle" / "fixtures"
SAMPLES = TREE / "advisor" / "samples"
UNTIL = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).replace(microsecond=0).isoformat()
SINCE = "9000d"  # the AWR fixtures are years old
_RUN_TIME = re.compile(r"(generated_at\"?:\s*\"?)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[+-]\d\d:\d\d|Z)?")
_CREATED = re.compile(r"(generated |generated on |Generated )\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?([+-]\d\d:\d\d| UTC)?")


def advisor(tree: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``advisor ARGS`` run by *tree*'s code (``python -P -m advisor``, as tests/helpers/cli.py runs it)."""
    full = {**os.environ, "PYTHONPATH": str(tree), "ADVISOR_SQL_DIR": str(tree / "sql"), "COLUMNS": "120",
            **(env or {})}
    return subprocess.run([sys.executable, "-P", "-m", "advisor", *args], env=full, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)


def inputs(server: PgServer, root: Path) -> dict[str, list[Path]]:
    """The documents both trees read: report imports, the samples, and three real snapshots (made by this tree)."""
    root.mkdir(parents=True)
    workloads = [SAMPLES / "oltp-2tb-workload.json"]
    sized = root / "sample-awr-sized.json"
    done = advisor(TREE, "collect", "--from-report", str(SAMPLES / "awr_12.1.0.2.html"), "--sizes",
                   str(SAMPLES / "sizes12.txt"), "-o", str(sized))
    if done.returncode not in (0, 4):
        raise SystemExit(f"sample import: {done.stderr}")
    workloads.append(sized)
    for report in sorted(FIXTURES.glob("*")):
        if report.suffix not in (".html", ".txt"):
            continue
        out = root / f"{report.stem}.json"
        done = advisor(TREE, "collect", "--from-report", str(report), "-o", str(out))
        if done.returncode in (0, 4) and out.is_file():
            workloads.append(out)
    server.psql("CREATE TABLE IF NOT EXISTS busy (id int, pad text);"
                "INSERT INTO busy SELECT g, repeat('b', 100) FROM generate_series(1, 20000) g;")
    snapshots = []
    for n in range(3):
        server.psql("SELECT count(*) FROM busy;")
        path = root / f"snap{n}.json"
        done = advisor(TREE, "collect", "--dsn", server.dsn, "-o", str(path))
        if done.returncode not in (0, 4):
            raise SystemExit(f"collect: {done.stderr}")
        snapshots.append(path)
    return {"workloads": workloads, "snapshots": snapshots}


def commands(docs: dict[str, list[Path]]) -> list[tuple[str, list[str]]]:
    """(name, arguments) of every output compared that needs no repository."""
    out: list[tuple[str, list[str]]] = []
    a, b, c = (str(p) for p in docs["snapshots"])
    for fmt in FORMATS:
        out.append((f"workload snapshots {fmt}", ["workload", a, c, "-f", fmt]))
        out.append((f"report snapshots {fmt}", ["report", "--snapshot", a, c, "-f", fmt]))
        out.append((f"report snapshots force {fmt}", ["report", "--snapshot", a, b, "--force", "-f", fmt]))
        for w in docs["workloads"]:
            out.append((f"workload {w.stem} {fmt}", ["workload", str(w), "-f", fmt]))
            out.append((f"report {w.stem} {fmt}", ["report", "--workload", str(w), "-f", fmt]))
            out.append((f"report {w.stem} assumed {fmt}", ["report", "--workload", str(w), "--assume-size", "10G",
                                                          "--force", "-f", fmt]))
            out.append((f"plan {w.stem} {fmt}", ["plan", "--workload", str(w), "--assume-size", "10G", "-f", fmt]))
    for fmt in ("terminal", "json", "html"):
        out.append((f"audit one {fmt}", ["audit", "--snapshot", a, "-f", fmt]))
        out.append((f"audit two {fmt}", ["audit", "--snapshot", a, c, "-f", fmt]))
    return out


def fleet(tree: Path, server: PgServer, side: str, docs: dict[str, list[Path]], spool: Path) -> dict[str, str]:
    """*tree*'s own repository filled with *docs*, and every ``fleet report``/``fleet show`` output of it."""
    name = f"compare_{side}_{os.getpid()}"
    server.psql(f"CREATE DATABASE {name}")
    dsn = server.dsn_for(name)
    env = {"ADVISOR_SPOOL": str(spool)}
    for step in (["repo", "init", "--dsn", dsn], ["push", "--repo", dsn, *map(str, docs["snapshots"]),
                                                   *map(str, docs["workloads"])]):
        done = advisor(tree, *step, env=env)
        if done.returncode != 0:
            raise SystemExit(f"{side}: {' '.join(step[:2])}: {done.stderr}")
    window = ["--repo", dsn, "--since", SINCE, "--until", UNTIL]
    out: dict[str, str] = {}
    ranking = advisor(tree, "fleet", "report", *window, "-f", "json", env=env)
    keys = [i["instance_id"] for i in json.loads(ranking.stdout)["instances"]]
    for fmt in FORMATS:
        for label, extra in RANKINGS:
            out[f"fleet report {label} {fmt}"] = _shown(advisor(tree, "fleet", "report", *window, *extra, "-f", fmt,
                                                                env=env))
        for key in keys:
            for pick in ("period", "busiest 1", "workload 1"):
                out[f"fleet show {key} {pick} {fmt}"] = _shown(advisor(tree, "fleet", "show", key, *window,
                                                                       "--window", pick, "-f", fmt, env=env))
    return out


def _shown(done: subprocess.CompletedProcess[str]) -> str:
    """What a person sees of one run: exit code, stdout and stderr, the time it ran taken out."""
    text = f"exit {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    return _CREATED.sub(r"\1<time>", _RUN_TIME.sub(r"\1<time>", text))


def run_side(tree: Path, server: PgServer, side: str, docs: dict[str, list[Path]], root: Path) -> dict[str, str]:
    """Every output of *tree*."""
    out = {name: _shown(advisor(tree, *args)) for name, args in commands(docs)}
    out.update(fleet(tree, server, side, docs, root / f"spool-{side}"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, type=Path, help="The other source tree.")
    parser.add_argument("--here", type=Path, default=TREE, help="The tree compared with --base (default: this one).")
    parser.add_argument("--keep", type=Path, help="Write every output of both trees here.")
    parser.add_argument("--allow", action="append", default=[], help="A regular expression: outputs whose name "
                        "matches may differ (printed, not counted).")
    args = parser.parse_args()
    versions = available_versions()
    if not versions:
        raise SystemExit("no PostgreSQL server binaries available")
    with tempfile.TemporaryDirectory(prefix="compare-") as scratch, \
            running_postgres(max(versions), Path(scratch) / "pg") as server:
        docs = inputs(server, Path(scratch) / "in")
        base = run_side(args.base.resolve(), server, "base", docs, Path(scratch))
        here = run_side(args.here.resolve(), server, "here", docs, Path(scratch))
    differs = 0
    for name in sorted(set(base) | set(here)):
        left, right = base.get(name, "<missing>"), here.get(name, "<missing>")
        if args.keep is not None:
            for side, text in (("base", left), ("here", right)):
                path = args.keep / side / (re.sub(r"[^\w.-]+", "_", name) + ".txt")
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
        if left == right:
            print(f"same     {name}")
            continue
        allowed = any(re.search(pattern, name) for pattern in args.allow)
        differs += not allowed
        print(f"{'allowed' if allowed else 'DIFFERS'}  {name}")
        for line in list(difflib.unified_diff(left.splitlines(), right.splitlines(), "base", "here", n=0,
                                              lineterm=""))[2:12]:
            print(f"    {line}")
    print(f"{len(set(base) | set(here))} outputs compared, {differs} differ")
    raise SystemExit(1 if differs else 0)


if __name__ == "__main__":
    main()
