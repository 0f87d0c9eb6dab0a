"""A snapshot as the repository keeps it: what the engine reads, compressed, the file locations once.

Measured on a collected PostgreSQL 18 snapshot of 383 files (467 KiB of JSON; docs/fleet.md):
the whole document as jsonb took 166 KiB of repository per snapshot with its per-file rows.
Most of it is read by nothing after collection or repeats from one snapshot to the next:

* the raw ``views`` rows other than :data:`advisor.rates.io_share.VIEWS_READ` (the IO share of DB
  time is computed from those few; ``pg_stat_io`` is most of the rest);
* ``layout.locations``, where each file's extents lie on disk, the same in every snapshot
  until a file moves: stored once per instance and distinct content (``advisor.layouts``,
  keyed by its digest), about 10 KiB compressed;
* the per-file rows (``advisor.snapshot_files``), which the document holds already.

The rest is encoded by the model's own encoder and zlib-compressed in the client (the
column's storage is EXTERNAL, so PostgreSQL does not compress it again): about 11 KiB. A
snapshot read back (:func:`unpack`) goes through the model's reader like any file, so it is
checked exactly as a pushed document is. The document as pushed is kept whole only when
asked (``push --keep-documents``).
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass

import msgspec

from advisor.model import Snapshot, decode_snapshot
from advisor.model.jsonio import encode_compact
from advisor.model.layout import Location
from advisor.rates.io_share import VIEWS_READ

LEVEL = 6
"""zlib level: 6 packs the collected snapshot to 11.4 KiB (9: 11.1 KiB at twice the time)."""
_LOCATIONS = msgspec.json.Decoder(tuple[Location, ...])


@dataclass(frozen=True, slots=True)
class Packed:
    """One snapshot packed: its compressed core, and its file locations with their digest."""

    core: bytes
    locations: bytes | None  # None: the snapshot has no host layout
    layout_digest: str | None


def pack(snapshot: Snapshot) -> Packed:
    """*snapshot* without the views nothing reads and without its locations, compressed."""
    layout = snapshot.layout
    views = {k: v for k, v in snapshot.views.items() if k in VIEWS_READ}
    if layout is None:
        core = msgspec.structs.replace(snapshot, views=views)
        return Packed(zlib.compress(encode_compact(core), LEVEL), None, None)
    core = msgspec.structs.replace(snapshot, views=views, layout=msgspec.structs.replace(layout, locations=()))
    located = encode_compact(layout.locations)
    return Packed(zlib.compress(encode_compact(core), LEVEL), zlib.compress(located, LEVEL),
                  hashlib.sha256(located).hexdigest())


def unpack(core: bytes, locations: bytes | None, source: str) -> Snapshot:
    """The snapshot stored by :func:`pack`, read and checked by the model's reader.

    Raises :class:`~advisor.errors.BadInput` for bytes that do not decompress or decode.
    """
    from advisor.errors import BadInput

    try:
        text = zlib.decompress(core)
        located = zlib.decompress(locations) if locations is not None else None
    except zlib.error as exc:
        raise BadInput(f"{source}: the stored snapshot does not decompress ({exc})") from None
    snapshot = decode_snapshot(text, source)
    if located is None or snapshot.layout is None:
        return snapshot
    try:
        places = _LOCATIONS.decode(located)
    except msgspec.DecodeError as exc:
        raise BadInput(f"{source}: the stored file locations do not decode ({exc})") from None
    return msgspec.structs.replace(snapshot, layout=msgspec.structs.replace(snapshot.layout, locations=places))
