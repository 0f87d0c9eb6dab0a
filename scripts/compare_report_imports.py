"""Import every report fixture with two checkouts of advisor and compare the workloads section by section.

Usage: ``python scripts/compare_report_imports.py OLD_TREE NEW_TREE [REPORT ...]``. Each tree is a
source checkout (e.g. ``git worktree add /tmp/base <commit>``); the reports default to the AWR and
Statspack fixtures of NEW_TREE. A report is imported in a fresh interpreter per tree (each with its
tree first on ``sys.path``) and the two workloads are compared per top-level field, and the rates
per file_id, so a change in one figure names its section. Exit status 1 when any figure differs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

IMPORT = """
import json, sys
from advisor.collectors.awr import read_report
from advisor.model.jsonio import dumps
from advisor.errors import AdvisorError
try:
    print(dumps(read_report(sys.argv[1])))
except AdvisorError as exc:
    print(json.dumps({"refused": str(exc)}))
"""

IGNORED = ("tool_version",)


def imported(tree: Path, report: Path) -> dict[str, object]:
    """The workload *tree*'s code imports from *report*, as JSON (or {"refused": message})."""
    done = subprocess.run([sys.executable, "-c", IMPORT, str(report)], cwd=tree, env={"PYTHONPATH": str(tree)},
                          capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def without_new_fields(old: object, new: object, added: set[str], path: str = "") -> object:
    """*new* without the fields *old* does not have (fields the new code adds), their paths in *added*."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in set(new) - set(old):
            added.add(f"{path}{key}={json.dumps(new[key])[:60]}")
        return {k: without_new_fields(old[k], v, added, f"{path}{k}.") for k, v in new.items() if k in old}
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [without_new_fields(o, n, added, f"{path}[]") for o, n in zip(old, new, strict=True)]
    return new


def compare(old: dict[str, object], new: dict[str, object]) -> list[str]:
    """The sections whose figures differ, each with what changed; fields the new code adds are listed apart."""
    added: set[str] = set()
    new = without_new_fields(old, new, added)  # type: ignore[assignment]
    differences = [f"new field (not a figure): {name}" for name in sorted(added)]
    for key in sorted(set(old) | set(new)):
        if key in IGNORED or old.get(key) == new.get(key):
            continue
        if key == "rates" and isinstance(old.get(key), list) and isinstance(new.get(key), list):
            before = {r["file_id"]: r for r in old[key]}  # type: ignore[index, union-attr]
            after = {r["file_id"]: r for r in new[key]}  # type: ignore[index, union-attr]
            for file_id in sorted(set(before) | set(after)):
                if before.get(file_id) != after.get(file_id):
                    fields = sorted(f for f in set(before.get(file_id, {})) | set(after.get(file_id, {}))
                                    if before.get(file_id, {}).get(f) != after.get(file_id, {}).get(f))
                    differences.append(f"rates[{file_id}]: {', '.join(fields) or 'added/removed'}")
            continue
        differences.append(f"{key}: {json.dumps(old.get(key))[:300]} -> {json.dumps(new.get(key))[:300]}")
    return differences


def main(argv: list[str]) -> int:
    old_tree, new_tree = Path(argv[1]).resolve(), Path(argv[2]).resolve()
    reports = [Path(p).resolve() for p in argv[3:]] or sorted(
        p for p in (new_tree / "tests/oracle/fixtures").iterdir() if p.suffix in (".html", ".txt"))
    status = 0
    for report in reports:
        differences = compare(imported(old_tree, report), imported(new_tree, report))
        changed = [d for d in differences if not d.startswith("new field")]
        sections = "same figures in every section" if not changed else f"{len(changed)} differences"
        print(f"{report.name}: {sections}")
        for line in differences:
            print(f"    {line}")
        status |= bool(changed)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
