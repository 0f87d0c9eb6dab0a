"""The fleet repository: many instances' documents in one PostgreSQL database, one ranking.

:mod:`~advisor.repo.schema` holds the versioned migrations, :mod:`~advisor.repo.ingest` writes
one document per transaction, :mod:`~advisor.repo.pusher` and :mod:`~advisor.repo.spool` make
pushes survive an unreachable repository, :mod:`~advisor.repo.fleet` advises every instance
over its busiest windows and the whole period with the ordinary engine, and
:mod:`~advisor.repo.retention` drops old months. The engine and model never import this
package; it imports them.
"""
