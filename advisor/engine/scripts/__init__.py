"""Scripts a plan writes: sfdisk per disk, file systems per tiered device, PostgreSQL and Oracle moves.

``sfdisk`` lays out the partitions from the outer edge; ``prepare`` makes and mounts one file
system per planned partition of a tiered plan's device; ``postgres``, ``oracle`` and
``objects`` move tablespaces, WAL/redo and single objects; ``wal`` (``move_wal.sh``) and
``datadir`` (``move_datadir.sh``) move pg_wal and the data directory with the server stopped;
``pg_cleanup`` drops the tablespaces the moves emptied; ``steps`` moves tablespaces keeping
their names and changes a partition table one partition at a time while others are mounted;
``moves`` turns a plan into the list of file/area moves the database scripts carry out. Every
identifier and path from the database is quoted by :mod:`advisor.engine.scripts.quoting`.
"""
