"""Which code a run of the accuracy suite measured, and whether it changed under it.

The suite runs for 15-35 minutes and every report of it is made by the ``advisor`` package the
interpreter imports, which for an editable install is the working tree. A change written there
meanwhile reaches the workloads that run after it: their predictions are then no one commit's
(run 13 of docs/accuracy.md: one workload failed on a half-written change). The suite takes a
fingerprint of the package's files at its start and at its end, records both, and says so when
they differ; run it from a clone of the commit to keep working meanwhile.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import advisor
from advisor.collect.sqlfiles import sql_root

SUFFIXES = (".py", ".sql", ".toml")
"""The files whose content is the code a report runs: modules, the collectors' queries, the presets."""


def code_roots() -> tuple[Path, ...]:
    """The directories of the code this interpreter's advisor runs: its package and the SQL it loads."""
    return Path(advisor.__file__).resolve().parent, sql_root().resolve()


def code_fingerprint(roots: tuple[Path, ...]) -> str:
    """A short digest of every code file under *roots* (its path and its bytes), symbolic links to directories
    followed (the collectors are one): equal digests, the same code.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "a.py").write_text("x = 1")
    ...     before = code_fingerprint((Path(d),))
    ...     _ = (Path(d) / "a.py").write_text("x = 2")
    ...     before == code_fingerprint((Path(d),))
    False
    """
    digest = hashlib.sha256()
    for number, root in enumerate(roots):
        for path in sorted(_files(root)):
            digest.update(f"{number}:{path.relative_to(root).as_posix()}".encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _files(root: Path) -> list[Path]:
    """Every code file under *root*, through symbolic links to directories, named by its path under *root*."""
    found: list[Path] = []
    for directory, subdirectories, files in os.walk(root, followlinks=True):
        subdirectories[:] = [d for d in subdirectories if d != "__pycache__"]
        found += [Path(directory) / name for name in files if Path(name).suffix in SUFFIXES]
    return found


def changed_note(at_start: str, at_end: str) -> str | None:
    """The line the suite prints when the code changed while it ran, else None.

    >>> changed_note("ab", "ab") is None
    True
    """
    if at_start == at_end:
        return None
    return (f"the advisor code changed while the suite ran (fingerprint {at_start} at the start, {at_end} at the "
            "end): the later workloads' predictions are not those of the code the earlier ones ran; run the suite "
            "from a clone of one commit")
