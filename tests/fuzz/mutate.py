"""Generator of damaged inputs: mutated reports and documents, each case reproducible from its seed.

A case is one or more files (a report, a document, or a pair of snapshots) plus the
mutations applied, so a failure prints what to replay. The mutations are the ones a hostile
probe used and real files show: truncation, rows and cells deleted or duplicated, text for
numbers, SQL*Plus overflow marks, huge and negative numbers, swapped decimal separators, ids
printed as "Sid, Serial#" pairs (13071,63938), rows one or two cells short at their end,
bytes that are not UTF-8, CRLF line ends, HTML entities, zeroed date digits, reports spooled
one after another, odd file names, time units after a figure (known and unknown), HTML as a
browser saves it (upper-case tags, unquoted attributes), text printed in pages (form feeds);
for documents also wrong types, missing keys, repeated rows, another document kind or a
newer format; and snapshot pairs from two servers or in
the wrong order.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.fuzz import seeds

NUMBER = re.compile(r"(?<![\w.,/:+#-])\d[\d,]*(?:\.\d+)?(?![\w/:-])")
DATE = re.compile(r"\d\d-[A-Z][a-z]{2}-\d\d \d\d:\d\d(?::\d\d)?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
ODD_NAMES = ("report with spaces.txt", "rép’ört;$(x).html", "-starts-with-dash.txt", "quote'\"name.lst",
             "tab\tname.txt", "UPPER.HTML", "no_extension", "é" * 60 + ".txt", ".hidden")
WORDS = ("abc", "N/A", "-", "null", "1e5", "NaN", "inf", "0x1F", "12:00", "∞", "1 000", "--5")


SIZES_SEEDS = 1 << 32
"""Case seeds from here on stand for sizes-file cases (:mod:`tests.fuzz.sizes_cases`), so adding
them changed no other case's seed."""


@dataclass
class Case:
    """One fuzz input: files by name, in the order the command takes them."""

    kind: str  # "report", "document", "pair" or "sizes"
    files: list[tuple[str, bytes]]
    steps: list[str] = field(default_factory=list)
    seed: int = 0
    target: str = ""  # the document kind a "document" case is loaded as; a "sizes" case's report fixture

    def describe(self) -> str:
        """What to replay: the seed, the kind, the files and the mutations applied."""
        names = ", ".join(name for name, _ in self.files)
        return f"seed {self.seed} {self.kind} [{names}]: {'; '.join(self.steps) or 'unchanged'}"


# --- text-level mutations, shared by reports and documents -----------------------------------


def _pick_number(rng: random.Random, text: str) -> re.Match[str] | None:
    found = list(NUMBER.finditer(text))
    return rng.choice(found) if found else None


def _replace_number(rng: random.Random, text: str, make: Callable[[str], str]) -> tuple[str, str]:
    match = _pick_number(rng, text)
    if match is None:
        return text, "no number to change"
    new = make(match.group())
    return text[:match.start()] + new + text[match.end():], f"{match.group()!r} -> {new[:40]!r} at {match.start()}"


def truncate(rng: random.Random, text: str) -> tuple[str, str]:
    cut = rng.randrange(len(text) + 1)
    return text[:cut], f"truncated at {cut}"


def delete_lines(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    start = rng.randrange(len(lines) or 1)
    count = rng.choice((1, 1, 2, 5))
    return "".join(lines[:start] + lines[start + count:]), f"deleted lines {start + 1}..{start + count}"


def duplicate_lines(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    start = rng.randrange(len(lines) or 1)
    count = rng.choice((1, 2))
    return "".join(lines[:start + count] + lines[start:start + count] + lines[start + count:]), \
        f"duplicated lines {start + 1}..{start + count}"


def delete_cell(rng: random.Random, text: str) -> tuple[str, str]:
    if "<td" in text and rng.random() < 0.7:
        cells = list(re.finditer(r"<td[^>]*>[^<]*</td>", text))
        if cells:
            cell = rng.choice(cells)
            return text[:cell.start()] + text[cell.end():], f"deleted cell at {cell.start()}"
    return _replace_number(rng, text, lambda n: " " * len(n))


def duplicate_cell(rng: random.Random, text: str) -> tuple[str, str]:
    if "<td" in text and rng.random() < 0.7:
        cells = list(re.finditer(r"<td[^>]*>[^<]*</td>", text))
        if cells:
            cell = rng.choice(cells)
            return text[:cell.end()] + cell.group() + text[cell.end():], f"duplicated cell at {cell.start()}"
    return _replace_number(rng, text, lambda n: f"{n} {n}")


def text_for_number(rng: random.Random, text: str) -> tuple[str, str]:
    word = rng.choice(WORDS)
    return _replace_number(rng, text, lambda n: word.rjust(len(n)))


def overflow(rng: random.Random, text: str) -> tuple[str, str]:
    return _replace_number(rng, text, lambda n: "#" * max(len(n), rng.choice((1, 4, 6))))


def huge(rng: random.Random, text: str) -> tuple[str, str]:
    digits = rng.choice((19, 40, 309, 400, 5000))
    return _replace_number(rng, text, lambda n: "9" * digits)


def negative(rng: random.Random, text: str) -> tuple[str, str]:
    return _replace_number(rng, text, lambda n: "-" + n)


def swap_separators(rng: random.Random, text: str) -> tuple[str, str]:
    swap = str.maketrans(",.", ".,")
    if rng.random() < 0.3:  # the whole file, as a database with European NLS prints it
        return NUMBER.sub(lambda m: m.group().translate(swap), text), "all separators swapped"
    return _replace_number(rng, text, lambda n: n.translate(swap))


def non_utf8(rng: random.Random, text: str) -> tuple[str, str]:
    at = rng.randrange(len(text) + 1)
    junk = bytes(rng.randrange(0x80, 0x100) for _ in range(rng.randrange(1, 6)))
    # surrogate escapes: written back as exactly these bytes (see :func:`to_bytes`)
    return text[:at] + junk.decode("utf-8", errors="surrogateescape") + text[at:], f"bytes {junk.hex()} at {at}"


def crlf(rng: random.Random, text: str) -> tuple[str, str]:
    return text.replace("\n", "\r\n"), "CRLF line ends"


def html_entities(rng: random.Random, text: str) -> tuple[str, str]:
    entity = rng.choice(("&#160;", "&nbsp;", "&amp;", "&#44;", "&lt;", "&#x2e;", "&bogus;", "&"))
    return _replace_number(rng, text, lambda n: n[:1] + entity + n[1:])


def zero_dates(rng: random.Random, text: str) -> tuple[str, str]:
    found = list(DATE.finditer(text))
    if not found:
        return text, "no date to damage"
    date = rng.choice(found)
    damaged = re.sub(r"\d", lambda d: "0" if rng.random() < 0.6 else d.group(), date.group())
    return text[:date.start()] + damaged + text[date.end():], f"date {date.group()!r} -> {damaged!r}"


IDENTIFIER = re.compile(r"(?<=[> ])\d{2,6}(?=[< ]|$)", re.MULTILINE)


def comma_identifier(rng: random.Random, text: str) -> tuple[str, str]:
    """An id cell printed as a "Sid, Serial#" pair (13071,63938), as ASH sections print sessions."""
    found = list(IDENTIFIER.finditer(text))
    if not found:
        return text, "no identifier to change"
    cell = rng.choice(found)
    pair = f"{cell.group()},{rng.randrange(1, 65536)}" + ("( 1)" if rng.random() < 0.3 else "")
    return text[:cell.start()] + pair + text[cell.end():], f"{cell.group()!r} -> {pair!r} at {cell.start()}"


def drop_trailing_cells(rng: random.Random, text: str) -> tuple[str, str]:
    """A row one or two cells short at its end, as SQL*Plus prints a row whose last figures are empty."""
    count = rng.choice((1, 1, 2))
    if "<tr>" in text:
        rows = list(re.finditer(r"<tr>((?:<td[^>]*>[^<]*</td>)+)</tr>", text))
        if rows:
            row = rng.choice(rows)
            cells = re.findall(r"<td[^>]*>[^<]*</td>", row.group(1))
            kept = "<tr>" + "".join(cells[:max(1, len(cells) - count)]) + "</tr>"
            return text[:row.start()] + kept + text[row.end():], f"row at {row.start()} lost {count} trailing cells"
    lines = text.splitlines(keepends=True)
    numbered = [i for i, line in enumerate(lines) if re.search(r"\d\s*$", line) and len(line.split()) > 2]
    if not numbered:
        return text, "no row to shorten"
    index = rng.choice(numbered)
    ending = "\r\n" if lines[index].endswith("\r\n") else "\n"
    shorter = lines[index].rstrip()
    for _ in range(count):
        shorter = shorter.rstrip().rsplit(" ", 1)[0] if " " in shorter.strip() else shorter
    lines[index] = shorter.rstrip() + ending
    return "".join(lines), f"line {index + 1} lost {count} trailing cells"


TIME_SUFFIXES = ("us", "ms", "s", " s", "ns", "\u00b5s", "MS", " fortnights", "min", "h")
"""Units a 12.2+ report prints after a time (us, ms, s with a blank, ns), one a browser-saved page may
carry (\u00b5s), and ones no report prints (the reader must refuse those naming the cell)."""


def unit_suffix(rng: random.Random, text: str) -> tuple[str, str]:
    """A figure printed with a time unit, as 12.2+ wait, histogram and IOStat cells are."""
    unit = rng.choice(TIME_SUFFIXES)
    return _replace_number(rng, text, lambda n: n + unit)


UNQUOTED = re.compile(r"[\w#%.,:-]+")
"""Attribute values a browser writes without quotes."""


def as_saved(rng: random.Random, text: str) -> tuple[str, str]:
    """The file as it arrives: an HTML page as a browser saves it (tag and attribute names upper-case,
    attribute values unquoted), a text report printed in pages (a form feed before a section title)."""
    if "<" not in text:
        titles = [m.start() for m in re.finditer(r"^\S.*DB/Inst:", text, re.MULTILINE)]
        if not titles:
            return text, "no section title to start a page at"
        at = rng.choice(titles)
        return text[:at] + "\f" + text[at:], f"form feed before the section title at {at}"

    def tag(match: re.Match[str]) -> str:
        def attribute(found: re.Match[str]) -> str:
            quote, value = found.group(2), found.group(3)
            shown = value if UNQUOTED.fullmatch(value) else quote + value + quote
            return f"{found.group(1).upper()}={shown}"

        attributes = re.sub(r"(\w+)=([\"'])([^\"'<>]*)\2", attribute, match.group(3))
        return f"<{match.group(1)}{match.group(2).upper()}{attributes}>"

    return re.sub(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)([^<>]*)>", tag, text), "tags and attributes upper-case, unquoted"


def concatenate(rng: random.Random, text: str) -> tuple[str, str]:
    copies = rng.choice((2, 3, 100))
    return text * copies, f"{copies} copies one after another"


TEXT_MUTATIONS: tuple[Callable[[random.Random, str], tuple[str, str]], ...] = (
    truncate, delete_lines, duplicate_lines, delete_cell, duplicate_cell, text_for_number, overflow, huge,
    negative, swap_separators, non_utf8, crlf, html_entities, zero_dates, concatenate, comma_identifier,
    drop_trailing_cells, unit_suffix, as_saved,
)


# --- document (JSON) mutations ---------------------------------------------------------------


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield prefix, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


def _set(root: Any, path: tuple[Any, ...], value: Any) -> None:
    node = root
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


LEAF_VALUES: tuple[Callable[[Any], Any], ...] = (
    lambda v: -v if isinstance(v, (int, float)) and not isinstance(v, bool) and v else -3.4,
    lambda v: 1e308, lambda v: 10**30, lambda v: -1, lambda v: 0, lambda v: 1.5, lambda v: "abc", lambda v: None,
    lambda v: True, lambda v: [], lambda v: {}, lambda v: "2026-00-00T00:00:00", lambda v: "",
    lambda v: v * 1000 if isinstance(v, (int, float)) and not isinstance(v, bool) else v,
)


def mutate_document(rng: random.Random, data: Any) -> str:
    """Damage the decoded document *data* in place; return what was done."""
    paths = [p for p, _ in _paths(data) if p]
    path = rng.choice(paths)
    leaf = rng.random()
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    if leaf < 0.55:
        old = parent[path[-1]]
        new = rng.choice(LEAF_VALUES)(old)
        _set(data, path, new)
        return f"{'.'.join(map(str, path))}: {old!r:.30} -> {new!r:.30}"
    if leaf < 0.7 and isinstance(parent, dict):
        del parent[path[-1]]
        return f"deleted {'.'.join(map(str, path))}"
    if leaf < 0.85 and isinstance(parent, list):
        parent.insert(path[-1], parent[path[-1]])
        return f"duplicated {'.'.join(map(str, path))}"
    choice = rng.choice(("document", "format_version", "rename"))
    if choice == "document":
        data["document"] = rng.choice(("snapshot", "workload", "disk-profile", "report", "inventory", 7))
    elif choice == "format_version":
        data["format_version"] = rng.choice((0, 2, 99, "1", None, 1.0))
    elif isinstance(parent, dict):
        parent[f"{path[-1]}_x"] = parent.pop(path[-1])
    return f"{choice} changed at {'.'.join(map(str, path))}"


# --- cases -----------------------------------------------------------------------------------


def _odd_name(rng: random.Random, name: str) -> tuple[str, str | None]:
    if rng.random() < 0.1:
        odd = rng.choice(ODD_NAMES)
        return odd, f"named {odd!r}"
    return name, None


def report_case(rng: random.Random, seed: int) -> Case:
    """A report fixture with one to three text mutations."""
    name, raw = rng.choice(sorted(seeds.reports().items()))
    text = raw.decode()
    steps = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        mutation = rng.choice(TEXT_MUTATIONS)
        if mutation is concatenate and len(text) > 200_000:
            continue
        text, what = mutation(rng, text)
        steps.append(f"{mutation.__name__}: {what}")
    name, renamed = _odd_name(rng, name)
    steps += [renamed] if renamed else []
    return Case("report", [(name, to_bytes(text))], steps, seed)


def to_bytes(text: str) -> bytes:
    """The file's bytes: UTF-8, with the raw bytes :func:`non_utf8` inserted kept as they are."""
    return text.encode("utf-8", errors="surrogateescape")


def _document_bytes(rng: random.Random, raw: bytes, steps: list[str]) -> bytes:
    if rng.random() < 0.75:
        data = json.loads(raw)
        for _ in range(rng.choice((1, 1, 2))):
            steps.append(mutate_document(rng, data))
        return json.dumps(data, allow_nan=True).encode()
    mutation = rng.choice((truncate, delete_lines, duplicate_lines, text_for_number, huge, negative, non_utf8,
                           crlf, zero_dates, concatenate))
    text, what = mutation(rng, raw.decode())
    steps.append(f"{mutation.__name__}: {what}")
    return to_bytes(text)


def document_case(rng: random.Random, seed: int) -> Case:
    """One advisor document with one or two mutations of its JSON or its text."""
    name, raw = rng.choice(sorted(seeds.documents().items()))
    steps: list[str] = []
    data = _document_bytes(rng, raw, steps)
    target = name.split(".")[-2]  # "pg-a.snapshot.json" -> "snapshot"
    name, renamed = _odd_name(rng, name)
    steps += [renamed] if renamed else []
    return Case("document", [(name, data)], steps, seed, target)


def pair_case(rng: random.Random, seed: int) -> Case:
    """Two snapshots: in order, swapped, the same twice, from two servers, or one damaged."""
    from tests.fuzz.seeds import as_bytes, other_server, snapshot_pairs

    server, (a, b) = rng.choice(sorted(snapshot_pairs().items()))
    other_kind = snapshot_pairs()["oracle" if server == "pg" else "pg"][1]
    how = rng.choice(("in order", "swapped", "same twice", "two servers", "two database kinds", "one damaged"))
    first, second = {"in order": (a, b), "swapped": (b, a), "same twice": (a, a), "two servers": (a, other_server(b)),
                     "two database kinds": (a, other_kind), "one damaged": (a, b)}[how]
    files = [(f"{server}-a.json", as_bytes(first)), (f"{server}-b.json", as_bytes(second))]
    steps = [how]
    if how == "one damaged":
        index = rng.randrange(2)
        files[index] = (files[index][0], _document_bytes(rng, files[index][1], steps))
    return Case("pair", files, steps, seed)


def cases(seed: int, count: int) -> Iterator[Case]:
    """*count* cases from *seed*: about 45 % reports, 40 % documents, 15 % snapshot pairs."""
    master = random.Random(seed)
    for _ in range(count):
        case_seed = master.randrange(1 << 32)
        yield case_from(case_seed)


def case_from(case_seed: int) -> Case:
    """The case a seed stands for (a failure's seed replays it alone; seeds from 2**32 are sizes files)."""
    if case_seed >= SIZES_SEEDS:
        from tests.fuzz.sizes_cases import sizes_case

        return sizes_case(case_seed)
    rng = random.Random(case_seed)
    pick = rng.random()
    if pick < 0.45:
        return report_case(rng, case_seed)
    if pick < 0.85:
        return document_case(rng, case_seed)
    return pair_case(rng, case_seed)
