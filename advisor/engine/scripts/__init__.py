"""Scripts a plan writes: sfdisk per disk, PostgreSQL and Oracle moves, and the quoting they share.

Every identifier and path from the database is quoted by :mod:`advisor.engine.scripts.quoting`;
``moves`` turns a plan into the list of file/area moves the database scripts carry out.
"""
