"""The render stage: documents in, text out; formatting only, no computation.

Module map:

- ``terminal``, ``markdown``, ``html`` (with ``svg``), ``json``: a report in each format.
- ``text``: formatting the report renderers share (sizes, gains, evidence, which model);
  ``cells``: terminal table cells whose figures never wrap at 80 columns.
- ``tiers``: the tier section of a plan; ``replay``: the replay of a traced workload (every
  format); ``diskmap``: the disk maps of ``advisor audit``, ``audit_html`` the same maps and its
  findings as a page.
- ``workload`` (the page of ``advisor workload``), ``rates``, ``segments``: workload rates per
  tablespace, file and Oracle segment;
  ``locations``: ``advisor where``.
- ``output``: ``emit`` (one renderer per format, atomic ``-o`` files), the consoles and the
  one width for files; ``tables``: the one Markdown and HTML table.
- ``disk_model`` (``advisor disk``), ``disk_profile`` and ``zone_plot`` (``advisor bench``),
  ``collectors`` (``advisor collectors``); the fleet: ``fleet_ranking`` (``fleet report``),
  ``fleet_instance`` (``fleet show``), ``fleet`` (the ranking's whole-period detail rows).
- ``safe``: every name that came from a document goes through it (control characters,
  Markdown and HTML cells).
"""
