"""stage1-spare.sh on real loop devices: an empty device becomes the spare, one that holds anything is refused."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from advisor.demo.embedded import SERVER_USER, server_account
from advisor.engine.scripts.steps import spare_device_script
from tests.helpers.loopdisk import is_root

pytestmark = [pytest.mark.root]


@contextmanager
def _loop(image: Path) -> Iterator[str]:
    subprocess.run(["truncate", "-s", "64M", str(image)], check=True)
    device = subprocess.run(["losetup", "--find", "--show", str(image)], capture_output=True, text=True,
                            check=True).stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], capture_output=True, check=False)


def _run(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "stage1-spare.sh"
    path.write_text(script)
    return subprocess.run(["sh", str(path)], capture_output=True, text=True, timeout=120, check=False,
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "OWNER": SERVER_USER})


def test_an_empty_device_becomes_the_spare_and_a_formatted_one_is_refused(tmp_path: Path) -> None:
    if not is_root() or server_account() is None:
        pytest.skip("needs root, losetup and the server's account")
    mount = tmp_path / "spare"
    with _loop(tmp_path / "empty.img") as empty, _loop(tmp_path / "used.img") as used:
        script = spare_device_script("stage1-spare.sh", empty, str(mount)).text
        try:
            done = _run(script, tmp_path)
            assert done.returncode == 0, done.stderr
            source = subprocess.run(["findmnt", "-no", "SOURCE,FSTYPE", str(mount)], capture_output=True,
                                    text=True, check=True).stdout.split()
            assert source == [empty, "ext4"]
            assert mount.stat().st_uid == server_account().pw_uid  # type: ignore[union-attr]
            again = _run(script, tmp_path)
            assert again.returncode == 0 and "already" in again.stdout  # a second run changes nothing
        finally:
            subprocess.run(["umount", str(mount)], capture_output=True, check=False)
        subprocess.run(["mkfs.ext4", "-q", "-F", used], check=True)
        before = Path(tmp_path / "used.img").read_bytes()[:1 << 20]
        refused = _run(spare_device_script("stage1-spare.sh", used, str(tmp_path / "other")).text, tmp_path)
        assert refused.returncode == 1 and "holds ext4" in refused.stderr, refused.stderr
        assert Path(tmp_path / "used.img").read_bytes()[:1 << 20] == before  # nothing written
