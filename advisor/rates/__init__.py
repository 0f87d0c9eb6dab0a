"""Counters to rates, once: the stage between two snapshots and a workload.

``workload`` diffs two snapshots (``diff``) or one against a zero baseline at the server's
start (``since_start``), with reset and restart detection; ``io_share`` turns wait counters
into the IO share of database time; ``patterns`` gives pg_stat_io's sequential reads to the
tables scanned in the interval (IO size and random share); ``segments`` turns segment counters into segment rates
and keeps the coverage of top-N lists.
"""
