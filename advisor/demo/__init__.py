"""`advisor demo`: the whole story on a real PostgreSQL 18, in one command.

The demo starts an embedded PostgreSQL 18 with a deliberately bad layout (hot table on the
inner partition of an emulated 7200 rpm disk, WAL at the outer edge), drives pgbench,
runs the report chain (collect with a block-layer trace, bench, report, plan), applies the plan's own PostgreSQL
script and measures again. Without root, loop devices or FUSE it tells the same story on
the disk model alone, driven by a workload collected from a real server, and says so.

Modules: :mod:`embedded` (server launcher), :mod:`pgbench` (load and parsing),
:mod:`layout` (partitions and directories), :mod:`chain` (the advisor commands),
:mod:`scenario` and :mod:`simulated` (the two stories), :mod:`cleanup` (signals, leftovers),
:mod:`summary` (what the demo measured, JSON and terminal), :mod:`measured` (the server's
own per-IO timings between two snapshots), :mod:`timesplit` (each measured run split into
the modelled disk's time and the host's, and whether the before/after comparison is valid),
:mod:`prediction` (the replay of the traced before-run as the prediction, or the aggregate
model's figure marked as such, and whether it holds).
"""
