"""The accuracy suite: does the predicted gain hold on workloads of different shape?

Each workload of :mod:`accuracy_workloads` goes through the tutorial's path on emulated
7200 rpm disks (:mod:`accuracy_path`): a deliberately bad layout, collect, run, collect,
report, apply the plan with its own in-place stages (:mod:`accuracy_apply`), run again
(two measured runs each side), and a report on the applied layout (stable advice). The
table (:mod:`accuracy_table`) prints, per workload and per area, the measured time saved
beside the predicted one, with the issue's targets met or MISSED, the load average around
the runs and the run-to-run noise; ``--json`` writes everything measured. Results are per
workload: one that fails is reported with its error and the others still run.

Run as root (loop devices, FUSE):   make accuracy          (every workload, about 40 minutes)
    .venv/bin/python benchmarks/accuracy.py --workload tpcb-qd1 --quick --json out.json
A model change tried on what a run kept, in seconds (:mod:`accuracy_rejudge`):
    .venv/bin/python benchmarks/accuracy.py --rejudge run.json kept/ --json rejudged.json
Where the files really went, against where the plan put them (:mod:`accuracy_as_applied`):
    .venv/bin/python benchmarks/accuracy.py --as-applied rejudged.json kept/
Everything it starts is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402

from advisor.demo.cleanup import claim, leftovers  # noqa: E402
from advisor.errors import AdvisorError  # noqa: E402
from advisor.signals import interruptible  # noqa: E402
from advisor.units import GIB  # noqa: E402
from benchmarks.accuracy_as_applied import decomposed, render_decomposed  # noqa: E402
from benchmarks.accuracy_code import changed_note, code_fingerprint, code_roots  # noqa: E402
from benchmarks.accuracy_path import PathConfig, run_workload, workload_header  # noqa: E402
from benchmarks.accuracy_rejudge import rejudged  # noqa: E402
from benchmarks.accuracy_table import compare, render  # noqa: E402
from benchmarks.accuracy_workloads import QUICK_WORKLOAD, WORKLOADS, Workload  # noqa: E402


def run_one(w: Workload, cfg: PathConfig, parent: Path | None, echo: Any, keep: Path | None = None) -> dict[str, Any]:
    """One workload in its own directory; an AdvisorError becomes the workload's error, not the suite's.
    With *keep*, the directory's documents (snapshots, traced workloads, reports, the emulated
    drives' records) are copied to ``keep/<workload>/`` before the directory is removed."""
    root = Path(tempfile.mkdtemp(prefix="advisor-demo-accuracy-", dir=parent)).resolve()
    claim(root)
    started = time.monotonic()
    result = workload_header(w, cfg)
    try:
        with ExitStack() as stack:
            result = run_workload(w, cfg, root, stack, echo)
    except AdvisorError as exc:
        result["error"] = str(exc)
        echo(f"  {w.name} failed: {exc}")
    finally:
        if keep is not None:
            (keep / w.name).mkdir(parents=True, exist_ok=True)
            for document in root.glob("*.json"):
                shutil.copy(document, keep / w.name / document.name)
        shutil.rmtree(root, ignore_errors=True)
    result["leftovers"] = leftovers(root)
    result["elapsed_s"] = round(time.monotonic() - started, 1)
    return result


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    return {"cpus": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version(),
            "load_at_start": [round(x, 2) for x in os.getloadavg()]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", choices=sorted(WORKLOADS),
                        help="run only these (repeatable); default: all")
    parser.add_argument("--quick", action="store_true", help=f"smaller tables, short runs (default {QUICK_WORKLOAD})")
    parser.add_argument("--runs", type=int, default=2, help="measured runs each side (default 2)")
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="emulated disk this many times faster than the drive (above 1 it is not the preset's "
                             "drive: the reports' fit checks refute the model)")
    parser.add_argument("--bench", action="store_true",
                        help="advise with bench --quick profiles of the emulated disks (time scale 1), not the preset")
    parser.add_argument("--advised-only", action="store_true",
                        help="apply only a plan the report advises (default: one it does not advise is applied "
                             "too, so its prediction of no worthwhile gain is measured like any other)")
    parser.add_argument("--tell-path", action=argparse.BooleanOptionalAction, default=None,
                        help="tell each traced report the path to the drive the suite measured beyond the emulated "
                             "drive's own calibration (--path-ms; default on; with --rejudge: tell, or do not tell, "
                             "every report made again, where by default each is told what the run told it; "
                             "docs/accuracy.md, run 65)")
    parser.add_argument("--disk-gib", type=int, default=8, help="size of each emulated disk (sparse)")
    parser.add_argument("--workdir", type=Path, default=None, help="parent of the temporary directories")
    parser.add_argument("--json", type=Path, default=None, help="write every result here")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="copy each workload's snapshots, traced workloads, reports and the emulated drives' "
                             "request records (io-trace-*.json) to DIR/WORKLOAD")
    parser.add_argument("--table", type=Path, nargs="+", default=None, metavar="JSON",
                        help="print the table of earlier --json files (in order) and run nothing")
    parser.add_argument("--rejudge", type=Path, nargs=2, default=None, metavar=("JSON", "KEPT"),
                        help="re-report the traced workloads a run kept (--keep KEPT) with this code, keep the "
                             "measurements of its --json, print the table (and write it with --json); run nothing")
    parser.add_argument("--as-applied", type=Path, nargs=2, default=None, metavar=("JSON", "KEPT"),
                        help="replay each kept before trace on the layout its move really produced and print the "
                             "replay's error split into the layout's part and the workload's; run nothing")
    args = parser.parse_args(argv)
    if args.as_applied:
        rows = decomposed(json.loads(args.as_applied[0].read_text()), args.as_applied[1])
        render_decomposed(rows, Console(width=160))
        return 0
    if args.rejudge:
        return _rejudge(args.rejudge[0], args.rejudge[1], args.json, args.tell_path)
    if args.table:
        render([compare(r) for path in args.table for r in json.loads(path.read_text())["results"]], Console(width=160))
        return 0
    names = args.workload or ([QUICK_WORKLOAD] if args.quick else list(WORKLOADS))
    cfg = PathConfig(time_scale=args.time_scale, disk_bytes=args.disk_gib * GIB, runs_per_side=args.runs,
                     advise_from_bench=args.bench, keep_records=args.keep is not None,
                     apply_anyway=not args.advised_only, tell_path=args.tell_path is not False)
    console = Console(stderr=True)

    def echo(text: str) -> None:
        console.print(text, markup=False, highlight=False)

    info = machine()
    info["code_at_start"] = code_fingerprint(code_roots())
    results = []
    with interruptible():
        for name in names:
            workload = WORKLOADS[name].quick() if args.quick else WORKLOADS[name].concrete()
            results.append(run_one(workload, cfg, args.workdir, echo, args.keep))
    comparisons = [compare(r) for r in results]
    info["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    info["code_at_end"] = code_fingerprint(code_roots())
    render(comparisons, Console(width=160))
    split = decomposed({"config": {"preset": cfg.preset, "time_scale": cfg.time_scale}, "results": results})
    if split:
        render_decomposed(split, Console(width=160))
    changed = changed_note(info["code_at_start"], info["code_at_end"])
    if changed:
        echo(f"WARNING: {changed}")
    if args.json is not None:
        args.json.write_text(json.dumps({"machine": info, "config": {"time_scale": cfg.time_scale,
                                                                    "disk_bytes": cfg.disk_bytes,
                                                                    "preset": cfg.preset, "quick": args.quick,
                                                                    "bench": cfg.advise_from_bench,
                                                                    "tell_path": cfg.tell_path},
                                         "comparisons": comparisons, "results": results}, indent=1) + "\n")
    return 1 if any(r.get("error") or r.get("leftovers") for r in results) else 0


def _rejudge(run_json: Path, kept: Path, out: Path | None, tell_path: bool | None = None) -> int:
    console = Console(stderr=True)
    run = json.loads(run_json.read_text())
    results = rejudged(run, kept, lambda text: console.print(text, markup=False, highlight=False), tell_path)
    comparisons = [compare(r) for r in results]
    render(comparisons, Console(width=160))
    split = decomposed({**run, "results": results}, kept)
    if split:
        render_decomposed(split, Console(width=160))
    if out is not None:
        machine_then = {**run.get("machine", {}), "rejudged_with": code_fingerprint(code_roots())}
        out.write_text(json.dumps({**run, "machine": machine_then, "comparisons": comparisons, "results": results},
                                  indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
