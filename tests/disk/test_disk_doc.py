"""docs/disk-model.md is what scripts/gen_disk_model_doc.py renders from the tested cases."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_disk_model_doc_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen_disk_model_doc", ROOT / "scripts" / "gen_disk_model_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rendered = module.render()
    committed = (ROOT / "docs" / "disk-model.md").read_text()
    assert rendered == committed, "docs/disk-model.md is stale: run .venv/bin/python scripts/gen_disk_model_doc.py"
    assert "FAIL" not in rendered
    assert "8.7 ms" in rendered and "does not try to do better" in rendered
