"""Another revision's ``advisor`` package, for a benchmark that sets this tree beside it.

``git archive`` of the packages a command imports (``advisor``, ``collectors``, ``sql``) unpacked
into a folder; with that folder first on ``PYTHONPATH`` (and ``ADVISOR_SQL_DIR`` at its ``sql``),
``python -m advisor`` runs the revision's code.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def export(revision: str, folder: Path) -> Path:
    """The ``advisor`` package, its collectors and its SQL of *revision*, written under *folder*."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "advisor", "collectors", "sql"],
                             capture_output=True, timeout=120, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True, timeout=120)
    return folder
