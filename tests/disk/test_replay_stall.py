"""A replay whose requests wait for each other in a cycle stops with one line, never spins."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.disk.replay import Stream, replay
from advisor.disk.replay_devices import FlatDevice, replay_on_devices
from advisor.errors import BadInput
from tests.helpers.workloads import model

DISK = 500 * 10**9


def three_reads() -> Stream:
    return Stream(np.array([0, 8192, 16384], dtype=np.int64), np.full(3, 8192, dtype=np.int64),
                  np.zeros(3, dtype=np.int64), np.array([0, 1, 2], dtype=np.int64), np.array([0.0, 0.0, 0.1]),
                  np.array([0.01, 0.01, 0.11]))


@pytest.mark.timeout(20)
def test_requests_that_wait_for_each_other_are_refused_with_one_line() -> None:
    s = three_reads()
    cycle = np.array([1, 0, -1], dtype=np.int64)  # 0 waits for 1 and 1 for 0: neither can be issued
    none = np.full(3, -1, dtype=np.int64)
    flat = FlatDevice(read_s=0.001, write_s=0.001, bytes_per_s=1e8)
    with pytest.raises(BadInput, match="cycle .2 of 3 never issued"):
        replay_on_devices(s, np.zeros(3, dtype=np.int64), (flat,), linked=(cycle, none))
    with pytest.raises(BadInput, match="cycle"):  # on a drive too
        replay(model(DISK), s, DISK, linked=(cycle, none))
    # without the cycle every request is served, each completing after its issue
    served = replay(model(DISK), s, DISK, linked=(none, none))
    assert (served.complete_s > served.issue_s).all()
