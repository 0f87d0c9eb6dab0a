"""File sizes where the workload has none: read a sizes file, merge it, or refuse to plan.

:mod:`advisor.sizes.formats` reads the output of ``advisor sql show sizes`` as SQL*Plus or
psql printed it; :mod:`advisor.sizes.merge` puts its sizes into a workload (by file name,
else by tablespace) with their source and time; :mod:`advisor.sizes.need` is the check a
plan makes first (refuse, or ``--assume-size``). See docs/awr-import.md#sizes.
"""
