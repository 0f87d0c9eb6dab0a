"""The snapshot documents a fleet ranking reads back from the repository, and their checks.

Only what :func:`advisor.rates.workload.diff` reads is fetched: not the raw ``views`` rows (used
by nothing after collection) except the few the IO share of DB time is computed from
(:data:`advisor.rates.io_share.VIEWS_READ`), and for the earlier snapshot of a pair not the file
locations either (a workload takes its layout from the later snapshot). That halves what
is sent and decoded, and the advice says what ``advisor report`` says on the same files,
down to why an IO share is unknown.

The collectors' role may insert any row, so a row is believed only when its document
decodes through the model's reader and names the row's own instance and time; any other
row is :class:`Unreadable`, and the ranking skips it by name instead of failing on it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

import psycopg

from advisor.errors import BadInput
from advisor.model import Snapshot, decode_snapshot
from advisor.rates.io_share import VIEWS_READ
from advisor.repo.documents import instance_id
from advisor.repo.packed import unpack

Wanted = tuple[dt.datetime, bool]  # (taken_at, whole): whole = the later snapshot of a pair, with its layout
Fetch = Callable[[set[Wanted]], "dict[Wanted, Stored]"]


class Unreadable(Exception):
    """A repository row whose document cannot be used: it does not decode, or is another's."""

    def __init__(self, taken: dt.datetime, why: str) -> None:
        super().__init__(why)
        self.taken = taken
        self.why = why


_FETCH = """
SELECT taken_at, (CASE WHEN packed IS NOT NULL THEN NULL
                       WHEN kept IS NULL THEN document
                       WHEN %(whole)s OR jsonb_typeof(kept->'layout') IS DISTINCT FROM 'object' THEN kept
                       ELSE kept #- '{layout,locations}' END)::text,
       packed, CASE WHEN %(whole)s THEN l.locations END
FROM advisor.snapshots s
LEFT JOIN advisor.layouts l ON l.instance_id = s.instance_id AND l.digest = s.layout_digest,
LATERAL (SELECT CASE WHEN packed IS NULL AND jsonb_typeof(document) = 'object' THEN jsonb_set(document, '{views}', (
    SELECT coalesce(jsonb_object_agg(key, value), '{}') FROM jsonb_each(
        CASE jsonb_typeof(document->'views') WHEN 'object' THEN document->'views' ELSE '{}' END)
    WHERE key = ANY(%(views)s))) END AS kept) AS trimmed
WHERE s.instance_id = %(id)s AND taken_at = ANY(%(at)s)
"""
"""A snapshot's document with only the views :data:`~advisor.rates.io_share.VIEWS_READ`, and without
file locations unless wanted whole; a row that is not a JSON object comes back as it is (and
is refused by the decoder, not by this query). A packed row (:mod:`advisor.repo.packed`, every
row since schema 3) comes back as its packed bytes and, wanted whole, its file locations."""
Stored = str | tuple[bytes, bytes | None]
"""A fetched row: the document's text (rows before schema 3), or the packed core and locations."""


def fetch(conn: psycopg.Connection[Any], key: str, wanted: set[Wanted]) -> dict[Wanted, Stored]:
    """Each wanted snapshot of instance *key*, as stored (the measured choice: see the module)."""
    texts: dict[Wanted, Stored] = {}
    for whole in (False, True):
        at = sorted(t for t, is_whole in wanted if is_whole == whole)
        if at:
            rows = conn.execute(_FETCH, {"whole": whole, "id": key, "at": at, "views": list(VIEWS_READ)}).fetchall()
            texts.update(((taken_at, whole), text if packed is None else (bytes(packed), None if loc is None
                                                                          else bytes(loc)))
                         for taken_at, text, packed, loc in rows)
    return texts


class Documents:
    """The snapshot documents of one instance, decoded by the model's reader when first asked for."""

    def __init__(self, key: str, texts: dict[Wanted, Stored], more: Fetch | None = None) -> None:
        self.key = key
        self.texts = texts
        self.more = more
        self.decoded: dict[Wanted, Snapshot] = {}

    def get(self, taken: Sequence[dt.datetime]) -> list[Snapshot]:
        """The snapshots taken at *taken*, in that order (the last one whole).

        Raises :class:`Unreadable` for a row that cannot be used.
        """
        out = []
        for index, t in enumerate(taken):
            wanted = (t, True) if (t, True) in self.texts or index == len(taken) - 1 else (t, False)
            if wanted not in self.decoded:
                if wanted not in self.texts and self.more is not None:
                    self.texts.update(self.more({wanted}))
                if wanted not in self.texts:
                    raise BadInput(f"repository snapshot {self.key} at {t.isoformat()} disappeared while read",
                                   hint="run the fleet report again (a prune ran at the same time?)")
                self.decoded[wanted] = self._decode(t, self.texts[wanted])
            out.append(self.decoded[wanted])
        return out

    def _decode(self, taken: dt.datetime, text: Stored) -> Snapshot:
        source = f"repository snapshot {self.key} at {taken.isoformat()}"
        try:
            snapshot = decode_snapshot(text, source) if isinstance(text, str) else unpack(*text, source)
        except BadInput as exc:
            raise Unreadable(taken, exc.one_line()) from None
        owner = instance_id(snapshot.server)
        if owner != self.key:
            raise Unreadable(taken, f"{source}: the document is a snapshot of {owner}")
        try:
            stated = dt.datetime.fromisoformat(snapshot.taken_at)
        except ValueError:
            stated = None
        if stated is None or (stated if stated.tzinfo else stated.replace(tzinfo=dt.UTC)) != taken:
            raise Unreadable(taken, f"{source}: the document says it was taken at {snapshot.taken_at!r}")
        return snapshot
