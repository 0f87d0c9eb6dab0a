"""``_mb_s`` means one thing in code: MiB/s (2^20 bytes per second), as in the documents.

A drive's figures stay in the datasheets' megabyte (10^6: presets, drive specs, the disk
models, media classes) and their names say so (``r_od_mb_s_decimal``,
``DiskModel.rate_mb_s_decimal``, ``SolidState.mb_s_decimal``); docs/architecture.md states the
rule. This walk reads every name advisor and its collectors bind or use (variables,
attributes, arguments, keywords, functions, classes) with ``ast``: a bare ``_mb_s`` name is
allowed only in the modules listed below, which deal in the databases' MiB/s, and never under
``advisor/disk/``. A new module that uses one is added here once its rates are checked to be
MiB/s; a disk-side one says ``_mb_s_decimal`` (or holds bytes per second).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.helpers.imports import ADVISOR, REPO, advisor_modules

BARE_MB_S = re.compile(r"(?:^|_)mb_s(?:_|$)", re.IGNORECASE)
DECIMAL = re.compile(r"mb_s_decimal", re.IGNORECASE)

MIB_S_MODULES = frozenset({
    "advisor/engine/advise.py",
    "advisor/engine/areas.py",
    "advisor/engine/cached_reads.py",
    "advisor/engine/calibrate.py",
    "advisor/engine/classify.py",
    "advisor/engine/hot_objects.py",
    "advisor/engine/kernel_areas.py",
    "advisor/engine/model_fit.py",
    "advisor/engine/peak_size.py",
    "advisor/engine/tiers/findings.py",
    "advisor/fleet/summaries.py",
    "advisor/model/layout.py",
    "advisor/model/report.py",
    "advisor/model/snapshot.py",
    "advisor/rates/areas.py",
    "advisor/rates/patterns.py",
    "advisor/rates/segments.py",
    "advisor/rates/workload.py",
    "advisor/render/fleet_instance.py",
    "advisor/render/html.py",
    "advisor/render/locations.py",
    "advisor/render/markdown.py",
    "advisor/render/rates.py",
    "advisor/render/segments.py",
    "advisor/render/terminal.py",
    "advisor/sizes/merge.py",
    "advisor/storage/diskstats.py",
    "collectors/awr/build.py",
})
"""Modules whose ``_mb_s`` names are the databases' and the kernel's MiB/s (iostat's MB)."""

DISK_SIDE = ADVISOR / "disk"
"""Drive models, presets, media classes, the emulator: every MB/s here is the datasheets' 10^6."""


def bound_names(source: str) -> Iterator[tuple[str, int]]:
    """Every name *source* binds or uses, with its line (string keys of dicts are data, not names)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            yield node.id, node.lineno
        elif isinstance(node, ast.Attribute):
            yield node.attr, node.lineno
        elif isinstance(node, ast.arg):
            yield node.arg, node.lineno
        elif isinstance(node, ast.keyword) and node.arg is not None:
            yield node.arg, node.value.lineno
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, node.lineno


def bare_mb_s(source: str) -> list[str]:
    """``name (line N)`` for each name with a bare ``_mb_s`` (not ``_mb_s_decimal``)."""
    return sorted({f"{name} (line {line})" for name, line in bound_names(source)
                   if BARE_MB_S.search(name) and not DECIMAL.search(name)})


def _modules() -> Iterator[Path]:
    yield from advisor_modules()
    yield from sorted((REPO / "collectors").rglob("*.py"))


def test_a_bare_mb_s_name_is_mib_s_and_only_where_listed() -> None:
    wrong = []
    for path in _modules():
        rel = path.relative_to(REPO).as_posix()
        found = bare_mb_s(path.read_text())
        if found and (rel not in MIB_S_MODULES or path.is_relative_to(DISK_SIDE)):
            wrong.append(f"{rel}: {', '.join(found)}")
    assert not wrong, ("names with a bare _mb_s outside the MiB/s modules (a drive's 10^6 rate says "
                       "_mb_s_decimal; a MiB/s module goes in MIB_S_MODULES):\n" + "\n".join(wrong))


def test_every_listed_module_exists_and_still_uses_mib_s() -> None:
    """A stale entry would let a later disk-side name through unseen."""
    stale = [rel for rel in sorted(MIB_S_MODULES)
             if not (REPO / rel).is_file() or not bare_mb_s((REPO / rel).read_text())]
    assert not stale, f"MIB_S_MODULES lists modules without a MiB/s name: {stale}"


def test_the_walk_finds_each_kind_of_name() -> None:
    """The check can fail: a field, an argument, a keyword, a method and an attribute are each found."""
    source = (
        "class Drive:\n"
        "    r_od_mb_s: float\n"
        "    def rate_mb_s(self, max_mb_s: float) -> float:\n"
        "        return self.r_od_mb_s\n"
        "x = Drive(clean_mb_s=1.0)\n"
        "y = Drive(r_od_mb_s_decimal=1.0).rate_mb_s_decimal\n"
        "z = {'mb_s': 1.0}\n"
    )
    assert bare_mb_s(source) == ["clean_mb_s (line 5)", "max_mb_s (line 3)", "r_od_mb_s (line 2)",
                                 "r_od_mb_s (line 4)", "rate_mb_s (line 3)"]
