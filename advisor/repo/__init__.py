"""The fleet repository: many instances' documents in one PostgreSQL database.

:mod:`~advisor.repo.schema` holds the versioned migrations, :mod:`~advisor.repo.ingest` writes
one document per transaction, :mod:`~advisor.repo.pusher` and :mod:`~advisor.repo.spool` make
pushes survive an unreachable repository (:mod:`~advisor.repo.spool` also says what waits in
it when a push fails), :mod:`~advisor.repo.retention` drops old months and
:mod:`~advisor.repo.schedule` runs ``collect --push``. The ranking is :mod:`advisor.fleet`,
which imports this package, never the reverse; the engine and model never import it.
"""
