"""Every figure of the validation set (reference disk.md §5) within its tolerance."""

from __future__ import annotations

import pytest

from advisor.disk.validation import cases, outcomes, sim_random_ms

CASES = cases()


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c.group[:24]}: {c.name}" for c in CASES])
def test_published_figure_is_reproduced(index: int) -> None:
    outcome = outcomes()[index]
    case = outcome.case
    assert case.name == CASES[index].name
    assert outcome.ok, f"{case.name}: model {outcome.model:.3f} vs published {case.published} ({outcome.error:+.1%})"


def test_the_validation_set_covers_the_reference_list() -> None:
    names = " ".join(c.name for c in CASES)
    for needle in ("cheetah-9lp", "atlas-10k", "barracuda-st32171w", "hitachi-7k500", "seagate-savvio-10k3",
                   "wd-velociraptor-1tb", "sas-10k-300gb", "Maxtor 200 GB outer", "alternating outer/inner",
                   "ST4000VN006", "full surface", "1 GB outer partition", "WD2002FYPS"):  # fmt: skip
        assert needle in names


def test_inner_partition_anomaly_is_not_reproduced() -> None:
    """The seed's 8.7 ms inner 2 GB figure is a known anomaly (docs/disk-model.md): the
    model keeps the inner band within 5-10 % of the outer one, as every DiskSim curve does."""
    outer = sim_random_ms("maxtor-200gb-7200-firewire", (0.0, 0.01), 8192)
    inner = sim_random_ms("maxtor-200gb-7200-firewire", (0.99, 1.0), 8192)
    assert 1.0 < inner / outer < 1.12
    assert inner < 8.7 * 0.8
