"""Requests as numpy columns, and their compact form in a :class:`BlockTrace`.

Encoding ``advisor-trace-2`` (``BlockTrace.data``): the base64 of the zlib-compressed
concatenation of six little-endian columns of ``requests`` values each, in issue order:

=====  ======  ==============================================================
 u32   issue   µs since the previous request's issue (the first: since ``started_s``; 0 at a clock step)
 u32   service µs from issue to completion
 i64   sector  start sector (512 B) minus the previous request's end sector
 u32   sectors request length in 512-byte sectors (0 for a flush)
 u8    op      0 read, 1 write, 2 flush, 3 discard; plus 128 for a FUA write
 u32   process index into ``BlockTrace.processes``
=====  ======  ==============================================================

``advisor-trace-1`` (advisor before the FUA flag) is the same without the 128: it reads
as a trace whose writes carry no FUA (the collector of that time did not keep the flag).

Deltas make a sequential stream a run of zeros, so zlib shrinks the 25 raw bytes of a
request to about 9-13 for a database workload (benchmarks/trace_size.py measures it), under
the 16 bytes a request the format is bound to. Encoding ``advisor-extents-1``
(``BlockTrace.extents``): the same wrapping around (file index u32, file offset u64, disk
byte u64, length u64) rows, sorted by disk byte.
"""

from __future__ import annotations

import base64
import zlib
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from advisor.errors import BadInput

TRACE_ENCODING = "advisor-trace-2"
FIRST_ENCODING = "advisor-trace-1"  # no FUA flag, and flushes paired with an fsync's end (advisor.trace.parse)
READABLE_ENCODINGS = (FIRST_ENCODING, TRACE_ENCODING)
FUA_BIT = 128
EXTENTS_ENCODING = "advisor-extents-1"
SECTOR_BYTES = 512
US = 1_000_000
OPS = ("read", "write", "flush", "discard")
READ, WRITE, FLUSH, DISCARD = range(4)
_COLUMNS = (("<u4", "issue"), ("<u4", "service"), ("<i8", "sector"), ("<u4", "sectors"), ("u1", "op"),
            ("<u4", "process"))
_EXTENT_ROW = np.dtype([("file", "<u4"), ("file_offset", "<u8"), ("disk_byte", "<u8"), ("length", "<u8")])
MAX_U32 = (1 << 32) - 1

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Requests:
    """Requests in issue order: times in seconds of the trace clock, positions in sectors."""

    issue_s: FloatArray
    service_s: FloatArray
    sector: IntArray
    sectors: IntArray
    op: IntArray
    process: IntArray
    fua: BoolArray | None = None  # per request: a write with FUA (None: no request has it)

    def __len__(self) -> int:
        return len(self.issue_s)

    @property
    def fua_mask(self) -> BoolArray:
        """Per request: True for a FUA write (it must reach the media before it completes)."""
        return self.fua if self.fua is not None else np.zeros(len(self.issue_s), dtype=np.bool_)

    def take(self, keep: npt.NDArray[np.bool_] | slice) -> Requests:
        """The requests *keep* selects (a mask or a slice), in the same order."""
        return Requests(self.issue_s[keep], self.service_s[keep], self.sector[keep], self.sectors[keep],
                        self.op[keep], self.process[keep], None if self.fua is None else self.fua[keep])

    @property
    def complete_s(self) -> FloatArray:
        """When each request completed."""
        return self.issue_s + self.service_s


def _wrap(raw: bytes) -> str:
    return base64.b64encode(zlib.compress(raw, 6)).decode("ascii")


def _unwrap(text: str, what: str) -> bytes:
    try:
        return zlib.decompress(base64.b64decode(text.encode("ascii"), validate=True))
    except (ValueError, zlib.error) as exc:
        raise BadInput(f"the trace's {what} is not valid base64 of zlib data: {exc}") from exc


def encode_requests(requests: Requests, started_s: float) -> str:
    """``BlockTrace.data`` for *requests* (issue order) of a trace that began at *started_s*."""
    issue_us = np.rint((requests.issue_s - started_s) * US).astype(np.int64)
    # a backward step of the clock is stored as 0 (the trace lists where: BlockTrace.clock_steps)
    issue_delta = np.maximum(np.diff(issue_us, prepend=0), 0)
    if len(issue_delta) and issue_delta.max() > MAX_U32:
        raise ValueError("requests less than 71 minutes apart can be stored, not more")
    service_us = np.clip(np.rint(requests.service_s * US), 0, MAX_U32).astype(np.int64)
    ends = requests.sector + requests.sectors
    sector_delta = requests.sector - np.concatenate(([0], ends[:-1])).astype(np.int64)
    op = requests.op + np.where(requests.fua_mask & (requests.op == WRITE), FUA_BIT, 0)
    columns = (issue_delta, service_us, sector_delta, requests.sectors, op, requests.process)
    raw = b"".join(np.asarray(col).astype(dtype).tobytes() for col, (dtype, _) in zip(columns, _COLUMNS, strict=True))
    return _wrap(raw)


def decode_requests(text: str, count: int, started_s: float, encoding: str = TRACE_ENCODING) -> Requests:
    """The requests of ``BlockTrace.data`` in *encoding* (one of :data:`READABLE_ENCODINGS`);
    refuses another encoding, and data whose length is not *count* requests."""
    if encoding not in READABLE_ENCODINGS:
        raise BadInput(f"the trace's encoding {encoding!r} is not one this advisor reads "
                       f"({', '.join(READABLE_ENCODINGS)})")
    raw = _unwrap(text, "data")
    width = sum(np.dtype(dtype).itemsize for dtype, _ in _COLUMNS)
    if len(raw) != width * count:
        raise BadInput(f"the trace's data holds {len(raw)} bytes, not the {width} x {count} its requests need")
    columns: dict[str, IntArray] = {}
    at = 0
    for dtype, name in _COLUMNS:
        size = np.dtype(dtype).itemsize * count
        columns[name] = np.frombuffer(raw[at:at + size], dtype=dtype).astype(np.int64)
        at += size
    fua = columns["op"] >= FUA_BIT if encoding != FIRST_ENCODING else np.zeros(count, dtype=np.bool_)
    columns["op"] = np.where(fua, columns["op"] - FUA_BIT, columns["op"])
    issue_s = started_s + np.cumsum(columns["issue"]) / US
    ends_before = np.cumsum(columns["sector"] + columns["sectors"])
    sector = ends_before - columns["sectors"]
    if count and (sector.min() < 0 or columns["op"].max() >= len(OPS) or bool((fua & (columns["op"] != WRITE)).any())):
        raise BadInput("the trace's data holds a negative sector or an unknown operation")
    return Requests(issue_s, columns["service"] / US, sector, columns["sectors"], columns["op"],
                    columns["process"], fua if fua.any() else None)


@dataclass(frozen=True)
class ExtentTable:
    """File extents on one disk, sorted by disk byte (the reverse index's input)."""

    file: IntArray
    file_offset: IntArray
    disk_byte: IntArray
    length: IntArray


def encode_extents(table: ExtentTable) -> str:
    """``BlockTrace.extents`` for *table*."""
    rows = np.zeros(len(table.file), dtype=_EXTENT_ROW)
    rows["file"], rows["file_offset"] = table.file, table.file_offset
    rows["disk_byte"], rows["length"] = table.disk_byte, table.length
    return _wrap(rows.tobytes())


def decode_extents(text: str, files: int) -> ExtentTable:
    """The extents of ``BlockTrace.extents``, sorted by disk byte; refuses a file index out of range."""
    if not text:
        empty = np.zeros(0, dtype=np.int64)
        return ExtentTable(empty, empty, empty, empty)
    raw = _unwrap(text, "extents")
    if len(raw) % _EXTENT_ROW.itemsize:
        raise BadInput("the trace's extents are not whole rows")
    rows = np.frombuffer(raw, dtype=_EXTENT_ROW)
    order = np.argsort(rows["disk_byte"], kind="stable")
    rows = rows[order]
    if len(rows) and int(rows["file"].max()) >= files:
        raise BadInput("the trace's extents name a file it does not list")
    return ExtentTable(rows["file"].astype(np.int64), rows["file_offset"].astype(np.int64),
                       rows["disk_byte"].astype(np.int64), rows["length"].astype(np.int64))
