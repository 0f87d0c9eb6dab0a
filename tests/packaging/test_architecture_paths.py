"""Every file and folder docs/architecture.md names is there, so the page stays true in the letter.

A name in backquotes that looks like a path (it holds a ``/`` or ends in ``.py``/``.toml``)
must exist: from the repository root, from ``advisor/``, or, for a short name such as
``findings_disk.py`` or ``awr/``, as the end of some path in advisor/, collectors/ or tests/.
Templates (``sql/<dbms>/...``), options and system paths (``/proc/...``) are not files here.

``ARRIVING`` names what the page describes that other branches of this round bring (the
rates stage's reset rule and per-area sums, the one ``emit``); each must be absent or
present as a whole, and once present it is removed from the set: a second test fails while
the set names a path that already exists.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "architecture.md"
ARRIVING: set[str] = set()


def named_paths() -> set[str]:
    tokens = set(re.findall(r"`([^`\n]+)`", PAGE.read_text()))
    return {t for t in tokens if (("/" in t or t.endswith((".py", ".toml"))) and " " not in t
                                  and "<" not in t and not t.startswith(("/", "-")))}


def found(name: str) -> bool:
    bare = name.rstrip("/")
    if (REPO / bare).exists() or (REPO / "advisor" / bare).exists():
        return True
    if "/" in bare:
        return False
    return any(p.name == bare for top in ("advisor", "collectors", "tests") for p in (REPO / top).rglob(bare))


def test_every_named_path_exists() -> None:
    assert sorted(n for n in named_paths() if n not in ARRIVING and not found(n)) == []


def test_arriving_names_are_not_yet_there() -> None:
    assert sorted(n for n in ARRIVING if found(n)) == [], "remove these from ARRIVING: they are here now"
