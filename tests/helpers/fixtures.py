"""Fixtures shared across test directories, loaded as a pytest plugin by the root conftest.py.

A fixture used by one directory stays in that directory's conftest.py; one that several
directories use lives here, so no test imports a conftest or copies a fixture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from advisor.model import Report


@pytest.fixture(scope="session")
def report() -> Report:
    """A real report with findings and a plan: the engine on :func:`tests.helpers.workloads.sample_workload`."""
    from advisor.engine.advise import AdviceRequest, advise
    from tests.helpers.clock import AT
    from tests.helpers.workloads import models, sample_workload

    return advise(AdviceRequest(sample_workload(), models(), generated_at=AT))
