"""A kept run judged again by the code of today: its traced workloads re-reported, its measurements kept.

A change to the model (the replay's drive, a rule of the report) is first tried on what earlier
runs kept (``accuracy.py --keep DIR``): the traced workload of each side, and the JSON of the run
(``--json``) with every measured figure. This re-reports each traced workload with the ``advisor``
the interpreter imports, with the disk arguments the run used (the preset of its config, or the
bench profiles it kept) and the path to the drive it measured (or, for a run made before the suite
measured it, the path measured again from the drive records it kept: :mod:`accuracy_host_path`),
swaps the new report's figures in for the old ones, and prints the table
again: the same measurements against the new predictions, in seconds instead of the 15-35 minutes
of a run. It says nothing of how the clients would have moved under the new advice: a plan the
new code makes differently is named (its placements differ from the ones the run applied), and
its figures are then a prediction for a layout nobody measured.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.accuracy_host_path import path_arguments, path_record, result_path, told_path
from benchmarks.accuracy_path import report_figures

SIDES = (("before", "report"), ("after", "report_after"))
"""Each side's traced workload (``workload-<side>-traced.json``) and the result's key for its report."""


def rejudged(run: dict[str, Any], keep: Path, echo: Callable[[str], None],
             tell_path: bool | None = None) -> list[dict[str, Any]]:
    """The results of *run* (a ``--json`` document) with every traced report made again from *keep*, each told
    the path to the drive (``--path-ms``) as the run told it, or as *tell_path* says when given."""
    preset = (run.get("config") or {}).get("preset") or "class-7200-desktop"
    results = []
    with tempfile.TemporaryDirectory(prefix="advisor-rejudge-") as scratch:
        for result in run["results"]:
            result = copy.deepcopy(result)
            kept = keep / result["workload"]
            profiles = sorted(str(p) for p in kept.glob("bench-*.json"))
            disk_args = ["--disk", *profiles] if (run.get("config") or {}).get("bench") and profiles \
                else ["--preset", preset]
            for side, key in SIDES:
                workload = kept / f"workload-{side}-traced.json"
                if key not in result or not workload.is_file():
                    continue
                out = Path(scratch) / f"{result['workload']}-{key}.json"
                path = result_path(result, key, kept, side)
                tell = told_path(result, key) if tell_path is None else tell_path
                if path is not None:
                    result.setdefault("host_path", {})[key] = path_record(path, tell)
                done = subprocess.run([sys.executable, "-m", "advisor", "report", "--workload", str(workload),
                                       *disk_args, *path_arguments(path if tell else None),
                                       "--mount-root", str(Path(scratch) / "planned"),
                                       "--format", "json", "-o", str(out)],
                                      capture_output=True, text=True, check=False)
                if done.returncode not in (0, 4):
                    echo(f"  {result['workload']} {key}: report failed: {done.stderr.strip()[-300:]}")
                    continue
                figures = report_figures(json.loads(out.read_text()))
                if _placements(result.get(key)) != _placements(figures):
                    echo(f"  {result['workload']} {key}: the new code plans another layout than the one measured")
                result[key] = figures
            results.append(result)
    return results


def _placements(figures: dict[str, Any] | None) -> Any:
    return ((figures or {}).get("plan") or {}).get("placements")
