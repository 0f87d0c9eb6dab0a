"""Collection: the plugin registry, the typed collect context, and taking snapshots.

``registry`` finds collectors through the ``advisor.collectors`` entry points (built-ins use
the same path as third parties); ``context`` builds a Snapshot from collector runs;
``sampling`` takes one snapshot or a pair ``--interval`` apart.
"""
