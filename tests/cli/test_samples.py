"""`advisor sample`: the docs' inputs ship with the package, so their examples run outside the source tree."""

from __future__ import annotations

import json
from pathlib import Path

from advisor.samples import SAMPLES, sample_bytes
from tests.helpers.cli import run_advisor

REPO = Path(__file__).resolve().parents[2]



def test_samples_are_listed_written_and_never_overwrite(tmp_path: Path) -> None:
    listed = run_advisor("sample", cwd=tmp_path)
    assert listed.returncode == 0 and [line.split()[0] for line in listed.stdout.splitlines()] == list(SAMPLES)
    for name in SAMPLES:
        done = run_advisor("sample", name, cwd=tmp_path)
        assert done.returncode == 0 and (tmp_path / name).read_bytes() == sample_bytes(name), done.stderr
    again = run_advisor("sample", "sizes12.txt", cwd=tmp_path)
    assert again.returncode == 6 and "exists; not overwritten" in again.stderr
    unknown = run_advisor("sample", "nope.json", cwd=tmp_path)
    assert unknown.returncode == 6 and "advisor sample` lists them" in unknown.stderr


def test_the_awr_sample_is_the_tested_fixture() -> None:
    """One file: the fixture the Oracle tests read is a link to the sample that ships (and the
    fixture generator writes through it), so the two can never drift apart."""
    fixture = REPO / "tests/oracle/fixtures/awr_12.1.0.2.html"
    assert fixture.is_symlink() and fixture.resolve() == (REPO / "advisor/samples/awr_12.1.0.2.html").resolve()
    assert sample_bytes("awr_12.1.0.2.html") == fixture.read_bytes()


def test_the_tiers_workload_is_what_the_model_classes_write(tmp_path: Path) -> None:
    """The sample stays the workload docs/tiers.md describes (specs as the page lists them)."""
    from advisor.model import save
    from tests.helpers.workloads import AreaSpec, workload

    specs = [
        AreaSpec("orders", size_gb=300, read_iops=900, write_iops=120, zone=(0.30, 0.34)),
        AreaSpec("order_items", size_gb=500, read_iops=500, write_iops=80, zone=(0.40, 0.46)),
        AreaSpec("customers", size_gb=40, read_iops=350, write_iops=20, zone=(0.55, 0.56)),
        AreaSpec("orders_idx", size_gb=80, read_iops=600, write_iops=90, zone=(0.60, 0.61)),
        AreaSpec("history", size_gb=900, read_iops=8, read_kb=128, random_share=0.1, zone=(0.05, 0.17)),
        AreaSpec("temp", kind="temp", size_gb=100, read_iops=20, write_iops=20, read_kb=256, write_kb=256,
                 random_share=None, zone=(0.20, 0.22)),
        AreaSpec("wal", kind="wal", size_gb=50, write_iops=300, write_kb=16, syncs=250, random_share=None,
                 zone=(0.8, 0.81)),
        AreaSpec("fra", kind="archive", size_gb=2000, write_iops=3, write_kb=1024, random_share=None,
                 zone=(0.82, 0.99)),
    ]
    save(workload(specs, with_layout=False), tmp_path / "w.json")
    assert json.loads(sample_bytes("oltp-2tb-workload.json")) == json.loads((tmp_path / "w.json").read_text())


def test_the_plan_page_oracle_example_runs_from_the_samples(tmp_path: Path) -> None:
    for name in ("awr_12.1.0.2.html", "sizes12.txt"):
        assert run_advisor("sample", name, cwd=tmp_path).returncode == 0
    assert run_advisor("collect", "--from-report", "awr_12.1.0.2.html", "-o", "awr12.json",
                       cwd=tmp_path).returncode == 0
    done = run_advisor("plan", "--workload", "awr12.json", "--preset", "class-10k", "--sizes", "sizes12.txt",
                    "-f", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)["plan"]
    sizes = {p["areas"][0]: p["size_bytes"] for p in plan["partitions"] if len(p["areas"]) == 1}
    assert sizes["USERS"] >= 120 * 1024**3, "USERS with its third file, which the report does not list"


def test_the_tiers_example_runs_from_the_sample(tmp_path: Path) -> None:
    assert run_advisor("sample", "oltp-2tb-workload.json", "-o", "workload.json", cwd=tmp_path).returncode == 0
    (tmp_path / "inventory.toml").write_text(
        'host = "db-new"\nheadroom = 0.3\n\n[[device]]\nname = "nvme0"\nmedium = "nvme"\ncapacity = "1 TB"\n'
        'preset = "nvme-gen4"\n\n[[device]]\nname = "hdd"\nmedium = "hdd"\ncapacity = "16 TB"\ncount = 4\n'
        'preset = "class-7200-desktop"\n\n[[device]]\nname = "smr0"\nmedium = "smr-dm"\ncapacity = "20 TB"\n')
    done = run_advisor("plan", "--workload", "workload.json", "--target", "inventory.toml", "-f", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["plan"]["tiers"] is not None
    assert report["model_basis"] == "each device of the --target inventory by its own profile, preset or spec"
    both = run_advisor("report", "--workload", "workload.json", "--target", "inventory.toml", "--preset",
                    "class-10k", "-f", "json", cwd=tmp_path)
    assert json.loads(both.stdout)["model_basis"] == ("the class-10k preset (--preset) for today's disks; "
                                                      "the --target inventory's devices by their own profile, preset "
                                                      "or spec")


def test_no_doc_command_assumes_sudo() -> None:
    """Hosts without sudo exist (a root shell, a container): commands are shown as root runs them."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    found = [f"{page.name}: {line}" for page in pages for line in page.read_text().splitlines()
             if line.lstrip("$# ").startswith("sudo ")]
    assert not found, found
