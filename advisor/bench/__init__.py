"""Zone benchmark: measure a disk zone by zone (builtin engine or fio) into a DiskProfile.

Entry points: :class:`advisor.bench.runner.BenchRun` (run the tests),
:func:`advisor.bench.target.open_target` / :func:`advisor.bench.target.create_scratch`
(targets and their safety rules), :func:`advisor.bench.engines.pick_engine`.
"""
