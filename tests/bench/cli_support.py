"""What the ``advisor bench`` tests share beyond running the CLI (tests/helpers/cli.py does that)."""

from __future__ import annotations

import os

import pytest


def require_root() -> None:
    """Loop devices and mounts need root; say so instead of failing."""
    if os.geteuid() != 0:
        pytest.skip("needs root (loop devices, mounts)")
