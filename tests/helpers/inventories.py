"""Inventory texts the tests start from (a good one, edited by each test or mutated by the fuzzer)."""

GOOD_INVENTORY = """host = "db-new"
headroom = 0.2
[[device]]
name = "nvme0"
medium = "nvme"
capacity = "960 GB"
preset = "nvme-gen4"
[[device]]
name = "hdd"
medium = "hdd"
capacity = "16 TB"
count = 4
preset = "class-7200-desktop"
"""
"""One NVMe and four 7200 rpm HDDs, each with a model: `advisor inventory --check` accepts it."""
