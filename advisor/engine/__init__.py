"""The advise stage: a workload, its layout and disk models in, a report out; pure.

No database driver, no device, no clock: every input is an argument (the report's time too),
so the same inputs give the same report (tests/packaging/test_dependency_direction.py).

Module map, in the order ``advise`` runs them:

- ``advise``: the one entry point (``advise``, ``audit_findings``); ``Models`` says which
  disk physics applies to which disk; ``disk_models`` builds them (a measured profile, a
  preset, a drive spec) and says which model it assumed and why.
- ``areas``: per-file rates grouped into areas (tablespace, WAL/redo, temp, ...);
  ``hot_objects`` sets a hot relation or segment apart as an area of its own.
- ``calibrate`` (with ``cached_reads`` and ``kernel_areas``): the database's reads against the
  kernel's counters, per area (random and sequential reads, temp, data-page writes), and the
  reads a cache served.
- ``classify``: how each area uses the disk; ``gate``: whether the database waits on IO at all.
- ``findings``, ``findings_disk``: placement and disk findings; ``model_fit``: whether the
  assumed model fits what was measured (a refuted model carries no finding); ``saturation``:
  a disk with a queue, and what a plan gives there (work per second).
- ``peak_size``: temp and WAL sized for the peak their counters and settings show.
- ``optimizer`` (with ``order_cost`` for big databases): the order of areas from the outer
  edge; ``planner``: that order as a ``Plan``; ``worth``: whether the plan is worth doing;
  ``stages``: with ``--in-place``, the staged migration to it on the disk that holds the data.
  ``stage_order`` finds the order of steps through the disk's own free space, ``stage_steps``
  writes their scripts (``stage_oracle`` the Oracle ones), ``stages`` the path through a spare.
- ``replay_today``: a traced workload's requests replayed on the drive model under today's layout,
  against what the trace measured (the self-check, which decides whether the replay judges the disk);
  ``replay_check``: the same requests under the plan (the verdict and the gain where a trace exists);
  ``replay_issuers``: whose requests they were (a database, a server role, the kernel's), the replay per issuer;
  ``replay_loops``: whether the databases' sessions' loops close in the replay, so that their planned rates
  (work per session-second) say how much more work a saturated disk gives (one database: predicted; several
  sharing a disk: which takes the freed time is not);
  ``replay_barriers``: the requests that waited behind a cache flush, per issuer; on a saturated disk, a database
  or area waiting behind other databases' commits, whose planned time is then no prediction;
  ``replay_phase``: an area whose planned gain depends on the platter's rotational phase, which is no prediction;
  ``replay_area_gain``: each area's time saved, from its replayed time where its self-check fits, from its
  measured one where it misses (and the note that says so, with the other figure beside);
  ``replay_starved``: the requests that starved (waited 200 ms or more), measured and replayed;
  ``replay_saturated``: a disk with a queue judged by the replayed drive's busy time, not each request's;
  ``replay_noise``: a replayed gain's uncertainty (the trace's windows, the layout, the replay's own error), which a
  move must clear;
  ``replay_layout``: where each traced request lies under the plan, and whose area it is;
  ``replay_fs``: where a new ext4 puts the areas a plan copies into it (from its second block group);
  ``replay_tiers``: which device of an inventory serves each traced request under a tier plan;
  ``trace_figures``: what a workload's traces hold, for ``advisor workload`` to show.
- ``tiers/``: plans across the devices of an inventory (fit, targets, search, plan, findings).
- ``scripts/``: what a plan writes (sfdisk, file systems, PostgreSQL and Oracle moves, quoting).
- ``audit_map``: the disk maps of ``advisor audit``.

The disk physics the engine asks for service times (``DiskPhysics``) lives with the disk
models, in :mod:`advisor.disk.physics`.
"""
