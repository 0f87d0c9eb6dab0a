"""`advisor where` end to end, per-path errors, and the scratch-disk helper's cleanup."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.helpers.cli import run_advisor
from tests.helpers.loopdisk import ScratchDisk, find_leaks, is_root, no_leaks, scratch_disk, write_file

pytestmark = [pytest.mark.root]


def test_where_json_places_files_and_reports_bad_paths(three_zone_disk: ScratchDisk) -> None:
    outer, inner = three_zone_disk.partition("outer"), three_zone_disk.partition("inner")
    assert outer.mountpoint is not None and inner.mountpoint is not None
    write_file(outer.mountpoint / "cli-outer.dat", 2 << 20)
    write_file(inner.mountpoint / "cli-inner.dat", 2 << 20)
    missing = str(outer.mountpoint / "no-such-file")
    done = run_advisor("where", str(outer.mountpoint / "cli-outer.dat"), missing,
                       str(inner.mountpoint / "cli-inner.dat"), "--format", "json", "--extents")
    assert done.returncode == 6, done.stderr
    assert f"{missing}: no such file or directory" in done.stderr and "Traceback" not in done.stderr
    rows = json.loads(done.stdout)
    assert [r["path"] for r in rows] == [str(outer.mountpoint / "cli-outer.dat"), missing,
                                         str(inner.mountpoint / "cli-inner.dat")]
    size = three_zone_disk.size_bytes
    for row, part in ((rows[0], outer), (rows[2], inner)):
        assert row["disk"] == three_zone_disk.name and row["partition"] == Path(part.device).name
        assert part.start_bytes / size <= row["zone_start"] <= row["zone_end"] <= (part.start_bytes
                                                                                    + part.size_bytes) / size
        assert row["placement_known"] is True and row["reason"] is None and row["size_bytes"] == 2 << 20
        assert row["extents"] == len(row["extent_list"]) >= 1
        assert sum(e["length_bytes"] for e in row["extent_list"]) == 2 << 20
    assert rows[1]["placement_known"] is False and rows[1]["disk"] is None and rows[1]["extents"] == 0


def test_where_terminal_and_exit_zero_when_all_paths_read(three_zone_disk: ScratchDisk, tmpfs_dir: Path) -> None:
    middle = three_zone_disk.partition("middle")
    assert middle.mountpoint is not None
    write_file(middle.mountpoint / "term.dat", 1 << 20)
    (tmpfs_dir / "mem").write_text("x")
    done = run_advisor("where", str(middle.mountpoint / "term.dat"), str(tmpfs_dir / "mem"), "--interval", "0.2",
                       env={"COLUMNS": "160"})
    assert done.returncode == 0, done.stderr  # tmpfs is an answer, not an error
    out = done.stdout
    assert str(middle.mountpoint / "term.dat") in out and "tmpfs lives in memory" in out
    assert Path(middle.device).name in out and "IO over 0.2 s" in out and "loop" in out


def test_permission_denied_for_an_unprivileged_caller() -> None:
    """Run the locator as nobody (this interpreter, the repo on PYTHONPATH) on a file in a 0700 directory."""
    if not is_root() or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to drop privileges")
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable]
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PATH": "/usr/bin:/bin"}
    if subprocess.run([*as_nobody, "-c", "import msgspec"], capture_output=True, env=env, cwd="/").returncode:
        pytest.skip(f"nobody cannot run {sys.executable} with its packages")
    root = Path(tempfile.mkdtemp(prefix="advisor-perm-"))
    try:
        root.chmod(0o755)
        (root / "open").mkdir(mode=0o755)
        (root / "closed").mkdir(mode=0o700)
        (root / "open" / "f").write_text("readable")
        (root / "open" / "f").chmod(0o644)
        (root / "closed" / "f").write_text("secret")
        code = ("import json, sys; from advisor.storage.locate import Locator; "
                "found = Locator().locate_many(sys.argv[1:]); "
                "print(json.dumps([[x.path, x.reason, x.zone_start is not None] for x in found]))")
        done = subprocess.run([*as_nobody, "-c", code, str(root / "open" / "f"), str(root / "closed" / "f")],
                              capture_output=True, text=True, timeout=60, env=env, cwd="/")
        assert done.returncode == 0, done.stderr
        readable, denied = json.loads(done.stdout)
        assert readable[2] is True  # located (on this machine's disk, whatever it is)
        assert denied == [str(root / "closed" / "f"), "permission denied", False]
    finally:
        shutil.rmtree(root)


def test_scratch_disk_cleans_up_when_the_body_fails(storage_root: Path) -> None:
    if not is_root():
        pytest.skip("needs root")
    image_dir = storage_root / "failing"
    seen: list[ScratchDisk] = []
    with pytest.raises(RuntimeError, match="body failed"), \
            scratch_disk(32 << 20, [("a", 0.5), ("b", 0.45)], image_dir=image_dir) as disk:
        seen.append(disk)
        assert all(p.mountpoint is not None and os.path.ismount(p.mountpoint) for p in disk.partitions)
        raise RuntimeError("body failed")
    assert no_leaks(image_dir) and not list(image_dir.iterdir())
    assert not Path(f"/sys/block/{seen[0].name}/loop/backing_file").exists() or \
        str(image_dir) not in Path(f"/sys/block/{seen[0].name}/loop/backing_file").read_text()
    # and the checker really finds a leak when there is one
    image = image_dir / "leak.img"
    image.write_bytes(b"\0" * (1 << 20))
    device = subprocess.run(["losetup", "--find", "--show", str(image)], capture_output=True, text=True,
                            check=True).stdout.strip()
    try:
        assert any(device in problem for problem in find_leaks(image_dir))
        with pytest.raises(AssertionError):
            no_leaks(image_dir)
    finally:
        subprocess.run(["losetup", "-d", device], check=True)
        image.unlink()
    assert no_leaks(image_dir)
