"""`advisor collect` (being built; see the issue that owns it)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this command to the root app (placeholder until implemented)."""
