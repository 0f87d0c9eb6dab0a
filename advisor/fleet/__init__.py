"""The fleet: every instance of the repository advised, judged and ranked.

Module map:

- ``window``: one window advised (the request the fleet makes of the engine, the one entry
  ``advisor report`` uses) and the ranking's row of its report (``WindowAdvice``);
- ``model``: the fleet's documents (``FleetReport``, ``InstanceAdvice``, ``WindowAdvice``, every row
  built by ``window_advice`` or ``summed_window``), the one ``--min-gain`` rule (``judged``), the
  order of the verdicts (``rank_key``) and the words an instance's verdict is shown with;
- ``summaries``: the advice per interval made once when a document arrives (the summarizer a
  push or ``advisor repo summarize`` runs), its rollups, and the summarizer the commands use;
- ``rank``: the one ranking, by SQL over those summaries (``fleet report``);
- ``instances``: one instance advised by the engine over its busiest windows and its whole
  period (``fleet show``, and ``fleet report``'s detail rows, with ``--force/--preset/--spec``);
- ``documents``, ``workloads``: the snapshots and stored workloads read back from the
  repository; ``queries``: an instance named by id, host or database.

The repository itself (schema, ingest, spool, pusher, retention, schedule) is
:mod:`advisor.repo`, which never imports this package: a push is handed the summarizer.
"""
