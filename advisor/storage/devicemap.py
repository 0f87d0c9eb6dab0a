"""Translate offsets on a device-mapper device to offsets on the device below it.

FIEMAP reports offsets on the device the file system sits on. For an LVM volume that is a
dm device; only its *linear* segments (and dm-crypt, which maps 1:1 with an offset) keep
the order of bytes, so only they can be followed down to a partition. The table is read
with the DM_TABLE_STATUS ioctl on ``/dev/mapper/control`` (what ``dmsetup table`` does,
without needing the tool). Striped, thin, snapshot, RAID and cache targets scatter blocks:
for them the placement is reported as unknown, with the target named.
"""

from __future__ import annotations

import fcntl
import os
import struct
from dataclasses import dataclass

SECTOR = 512
_DM_IOCTL = struct.Struct("=3IIIIiIIIQ128s129s7x")  # struct dm_ioctl, 312 bytes
_DM_TARGET_SPEC = struct.Struct("=QQiI16s")  # struct dm_target_spec, 40 bytes
DM_TABLE_STATUS = 0xC0000000 | (_DM_IOCTL.size << 16) | (0xFD << 8) | 12  # _IOWR(0xfd, 12, dm_ioctl)
DM_STATUS_TABLE_FLAG = 1 << 4
DM_BUFFER_FULL_FLAG = 1 << 8
OFFSET_PRESERVING_TARGETS = ("linear", "crypt")


@dataclass(frozen=True, slots=True)
class DmSegment:
    """One line of a dm table: ``<start> <length> <target> <args>`` in 512-byte sectors."""

    start: int
    length: int
    target: str
    args: str

    def below(self) -> tuple[str, int] | None:
        """(``major:minor`` or path, start sector) of the device under a linear/crypt segment.

        >>> DmSegment(0, 2097152, "linear", "8:16 2048").below()
        ('8:16', 2048)
        >>> DmSegment(0, 8, "crypt", "aes-xts-plain64 :64:logon:k 0 259:3 32768").below()
        ('259:3', 32768)
        >>> DmSegment(0, 8, "striped", "2 128 8:16 0 8:32 0").below() is None
        True
        """
        words = self.args.split()
        if self.target == "linear" and len(words) >= 2:
            return words[0], int(words[1])
        if self.target == "crypt" and len(words) >= 5:
            return words[3], int(words[4])
        return None


def parse_table(text: str) -> list[DmSegment]:
    """Parse ``dmsetup table`` output for one device.

    >>> parse_table("0 2048 linear 8:16 2048\\n2048 4096 linear 8:32 0\\n")[1]
    DmSegment(start=2048, length=4096, target='linear', args='8:32 0')
    """
    segments = []
    for line in text.splitlines():
        words = line.split(None, 3)
        if len(words) >= 3:
            segments.append(DmSegment(int(words[0]), int(words[1]), words[2], words[3] if len(words) > 3 else ""))
    return segments


def unsupported_target(segments: list[DmSegment]) -> str | None:
    """Name of the first target that does not preserve byte order, or None."""
    for segment in segments:
        if segment.target not in OFFSET_PRESERVING_TARGETS or segment.below() is None:
            return segment.target
    return None


def translate(segments: list[DmSegment], offset: int, length: int) -> list[tuple[str, int, int]]:
    """Map a byte range on the dm device to (device below, byte offset there, length) pieces.

    >>> translate(parse_table("0 2048 linear 8:16 2048\\n2048 4096 linear 8:32 0"), 1024 * 512, 2048 * 512)
    [('8:16', 1572864, 524288), ('8:32', 0, 524288)]
    """
    pieces: list[tuple[str, int, int]] = []
    end = offset + length
    for segment in segments:
        seg_start = segment.start * SECTOR
        seg_end = seg_start + segment.length * SECTOR
        lo, hi = max(offset, seg_start), min(end, seg_end)
        if lo >= hi:
            continue
        below = segment.below()
        if below is None:
            raise ValueError(f"dm target {segment.target} does not preserve offsets")
        device, base = below
        pieces.append((device, base * SECTOR + (lo - seg_start), hi - lo))
    return pieces


def read_table(dm_name: str, control: str = "/dev/mapper/control") -> str:
    """The table of dm device *dm_name*, as ``dmsetup table`` prints it (raises OSError)."""
    size = 16384
    fd = os.open(control, os.O_RDWR)
    try:
        while True:
            buffer = bytearray(size)
            _DM_IOCTL.pack_into(buffer, 0, 4, 0, 0, size, _DM_IOCTL.size, 0, 0, DM_STATUS_TABLE_FLAG, 0, 0, 0,
                                dm_name.encode()[:127], b"")
            fcntl.ioctl(fd, DM_TABLE_STATUS, buffer, True)
            fields = _DM_IOCTL.unpack_from(buffer, 0)
            data_start, target_count, flags = fields[4], fields[5], fields[7]
            if flags & DM_BUFFER_FULL_FLAG:
                size *= 4
                continue
            return _unmarshal(bytes(buffer), data_start, target_count)
    finally:
        os.close(fd)


def _unmarshal(buffer: bytes, data_start: int, count: int) -> str:
    lines = []
    position = data_start
    for _ in range(count):
        start, length, _status, next_offset, target = _DM_TARGET_SPEC.unpack_from(buffer, position)
        params_at = position + _DM_TARGET_SPEC.size
        params = buffer[params_at:buffer.index(b"\0", params_at)].decode()
        target_name = target.split(b"\0", 1)[0].decode()
        lines.append(f"{start} {length} {target_name} {params}")
        position = data_start + next_offset
    return "\n".join(lines)
