"""The block layer's request stream: its compact format, the map to files, and the checks.

``codec`` packs requests into a :class:`advisor.model.BlockTrace` and back; ``extents``
is the reverse extent index (disk byte -> file) built from the file extents the host
collector reads; ``soundness`` names what makes a stored trace unfit for a replay (lost
requests, another disk, a short trace, a clock step, requests no file holds); ``links``
names what ties a request to another process's (a cache flush, the ``fsync`` callers it
releases, a read continuing another's). Reading the
kernel's tracepoints is :mod:`advisor.storage.blocktrace`; replaying a trace on a disk
model is :mod:`advisor.disk.replay`.
"""
