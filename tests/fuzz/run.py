"""Run fuzz cases in-process and check the property every input must keep.

The property: advisor either refuses the input with one line and a documented exit code
(never 1, the internal error), or accepts it and every figure it puts out is finite and not
negative (a plan's predicted gain may be negative), and what it writes reads back; and it
does so within :data:`CASE_SECONDS` (a reader loop that never ends is a failure, caught by a
timer, not a stuck run). Sizes files (:mod:`tests.fuzz.sizes_cases`) are merged into the
report they belong to and must keep the same property. Run
``python -m tests.fuzz.run --cases 20000 --sizes-cases 5000`` (``make fuzz``); a failure
prints the case seed, which ``--replay SEED`` runs alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError, ExitCode
from tests.fuzz import seeds
from tests.fuzz.mutate import Case, case_from, cases
from tests.fuzz.sizes_cases import sizes_cases
from tests.helpers.clock import AT

ALLOWED_EXIT = frozenset(code for code in ExitCode if code not in (ExitCode.OK, ExitCode.ERROR))
FREE_FORM = frozenset({"views", "settings", "machine", "mapped_paths", "evidence"})
SIGNED = frozenset({"predicted_gain"})
ADVISE_EVERY = 15  # one accepted workload in this many also goes through the engine (a report and plan)
CLI_EVERY = 20  # one report case in this many also goes through `advisor collect --from-report`
CASE_SECONDS = 120.0  # a case still running after this long is a hang (the slowest take seconds on a busy host)


class CaseTimeout(BaseException):
    """Raised by :func:`time_limit` (a BaseException, so no ``except Exception`` of the code under test eats it)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`CaseTimeout` in the main thread once *seconds* have passed inside the block."""

    def expire(signum: int, frame: object) -> None:
        raise CaseTimeout(f"still running after {seconds:g} s (a loop that never ends?)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def bad_figures(obj: Any, name: str = "", where: str = "$") -> Iterator[str]:
    """Every figure in *obj* that is NaN, infinite, or negative where it cannot be.

    Written apart from advisor.model.validate on purpose: the suite checks the validator's output
    with a walker that shares none of its code.
    """
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return
    if isinstance(obj, (int, float)):
        if isinstance(obj, float) and not math.isfinite(obj):
            yield f"{where} is {obj}"
        elif obj < 0 and name not in SIGNED:
            yield f"{where} is negative ({obj})"
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.name not in FREE_FORM:
                yield from bad_figures(getattr(obj, f.name), f.name, f"{where}.{f.name}")
    elif isinstance(obj, (tuple, list)):
        for index, item in enumerate(obj):
            yield from bad_figures(item, name, f"{where}[{index}]")
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from bad_figures(value, name if isinstance(key, int) else str(key), f"{where}[{key!r}]")


def _load(target: str, path: Path) -> Any:
    from advisor.model import load_disk_profile, load_snapshot, load_workload

    loaders = {"snapshot": load_snapshot, "workload": load_workload, "disk-profile": load_disk_profile}
    return loaders[target](path)


def _execute(case: Case, paths: list[Path]) -> list[Any]:
    """What advisor makes of the case: the documents it accepted (raises on refusal)."""
    if case.kind == "report":
        from advisor.collectors.awr import read_report

        return [read_report(paths[0])]
    if case.kind == "sizes":
        from advisor.collectors.awr import read_report
        from advisor.sizes.formats import read_sizes
        from advisor.sizes.merge import merge_sizes, wanted

        work = read_report(seeds.REPORTS / case.target)
        return [merge_sizes(work, read_sizes(paths[0], keep=wanted(work)))]
    if case.kind == "pair":
        from advisor.model import load_snapshot
        from advisor.rates.workload import diff

        return [diff(load_snapshot(paths[0]), load_snapshot(paths[1]))]
    document = _load(case.target, paths[0])
    if case.target == "workload" and case.seed % ADVISE_EVERY == 0:
        from advisor.engine.advise import AdviceRequest, advise
        from tests.helpers.workloads import models

        return [document, advise(AdviceRequest(document, models(), generated_at=AT))]
    return [document]


def _cli_problem(path: Path) -> str | None:
    """Run ``advisor collect --from-report`` in-process: an allowed exit code and clean stderr."""
    from typer.testing import CliRunner

    from advisor.cli import app

    done = CliRunner().invoke(app, ["collect", "--from-report", str(path), "-o", str(path.parent / "cli.json")])
    if done.exit_code != 0 and done.exit_code not in ALLOWED_EXIT:
        return f"advisor collect --from-report exited {done.exit_code}: {done.output.strip()[:300]!r}"
    errors = [line for line in done.stderr.splitlines() if not line.startswith("advisor: warning:")]
    if "Traceback" in done.output or "internal error" in done.output or len(errors) > 1:
        return f"advisor collect --from-report printed {done.stderr.strip()[:300]!r}"
    return None


def _refusal_problem(exc: AdvisorError) -> str | None:
    line = exc.one_line()
    if exc.exit_code not in ALLOWED_EXIT:
        return f"exit code {int(exc.exit_code)} for {line!r}"
    if not line.strip() or "\n" in line or "internal error" in line or "Traceback" in line:
        return f"refusal is not one clean line: {line!r}"
    return None


def run_case(case: Case, directory: Path) -> str | None:
    """None when advisor kept the property on *case*; else what went wrong."""
    from advisor.model import Report
    from advisor.model.jsonio import encode

    folder = directory / f"case-{case.seed}"
    folder.mkdir()
    try:
        paths = []
        for name, data in case.files:
            path = folder / name
            path.write_bytes(data)
            paths.append(path)
        try:
            with time_limit(CASE_SECONDS):
                if case.kind == "report" and case.seed % CLI_EVERY == 0 and (problem := _cli_problem(paths[0])):
                    return problem
                results = _execute(case, paths)
        except CaseTimeout as exc:
            return f"hang: {exc}"
        except AdvisorError as exc:
            return _refusal_problem(exc)
        except Exception as exc:  # noqa: BLE001 - exactly what the suite looks for
            frames = traceback.extract_tb(exc.__traceback__)[-2:]
            where = " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(frames))
            return f"internal error {type(exc).__name__}: {str(exc)[:200]} ({where})"
        for result in results:
            bad = next(bad_figures(result), None)
            if bad is not None:
                return f"accepted {type(result).__name__} with {bad}"
            if isinstance(result, Report):
                continue
            written = folder / "written.json"
            written.write_bytes(encode(result))  # what save() writes, without its fsync
            try:
                _load(result.document, written)
            except AdvisorError as exc:
                return f"advisor refuses what it wrote: {exc.one_line()}"
        return None
    finally:
        for leftover in folder.iterdir():
            leftover.unlink()
        folder.rmdir()


@contextmanager
def scratch() -> Iterator[Path]:
    """A directory for the cases' files, in memory where the machine has /dev/shm (disk syncs dominate)."""
    memory = Path("/dev/shm")
    with tempfile.TemporaryDirectory(prefix="advisor-fuzz-", dir=memory if memory.is_dir() else None) as tmp:
        yield Path(tmp)


def run(seed: int, count: int, *, sizes: int = 0, stop_after: int = 20) -> tuple[list[tuple[Case, str]], Counter[str]]:
    """Run *count* cases from *seed* and then *sizes* sizes-file cases; the failures (up to
    *stop_after*) and how cases ended."""
    failures: list[tuple[Case, str]] = []
    outcomes: Counter[str] = Counter()
    with scratch() as tmp:
        for case in itertools.chain(cases(seed, count), sizes_cases(seed, sizes)):
            problem = run_case(case, tmp)
            outcomes[f"{case.kind} {'failed' if problem else 'ok'}"] += 1
            if problem:
                failures.append((case, problem))
                if len(failures) >= stop_after:
                    break
    return failures, outcomes


def main(argv: list[str] | None = None) -> int:
    """Command line of ``make fuzz``: exit 0 when every case kept the property."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20000)
    parser.add_argument("--sizes-cases", type=int, default=5000, help="sizes-file cases after the others")
    parser.add_argument("--seed", type=int, default=20261123)
    parser.add_argument("--replay", type=int, default=None, help="run the one case of this case seed")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.replay is not None:
        case = case_from(args.replay)
        with scratch() as tmp:
            problem = run_case(case, tmp)
        print(case.describe())
        print(problem or "ok")
        return 1 if problem else 0
    failures, outcomes = run(args.seed, args.cases, sizes=args.sizes_cases)
    elapsed = time.perf_counter() - started
    total = sum(outcomes.values())
    print(f"{total} cases in {elapsed:.1f} s ({total / elapsed * 60:,.0f} a minute): " +
          ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    for case, problem in failures:
        print(f"FAIL {case.describe()[:400]}\n     {problem}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
