"""What the scripts need to know about one move: the area and where it goes."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from advisor.engine.areas import Area
from advisor.engine.scripts.quoting import label


@dataclass(frozen=True, slots=True)
class Move:
    """Area *area* goes to partition *partition* mounted at *mount* (hot = outer part of the disk)."""

    area: Area
    area_class: str
    partition: str
    mount: str
    hot: bool

    @property
    def directory(self) -> str:
        """An empty directory for this area inside the target mount."""
        return posixpath.join(self.mount, label(self.area.name))
