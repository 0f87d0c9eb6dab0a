"""The time tests hand the engine as "now": it reads no clock, so a report is made at a given time."""

from __future__ import annotations

import datetime as dt

AT = dt.datetime(2026, 1, 5, 9, 30, tzinfo=dt.UTC)
"""When a test's report is made (``Report.generated_at``)."""
