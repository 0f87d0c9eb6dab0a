"""The Linux block layer as advisor needs it: which disk, partition and zone holds each file.

Public entry points:

- :class:`advisor.storage.locate.Locator` / :func:`advisor.storage.locate.locate`: paths → Locations.
- :func:`advisor.storage.layout.build_layout`: paths → HostLayout (devices, partitions, diskstats).
- :func:`advisor.storage.diskstats.sample` and
  :func:`advisor.storage.diskstats.diskstats_rates`: /proc/diskstats and iostat-style rates.

Submodules stay importable without side effects (no subprocess, no root needed to import).
"""
