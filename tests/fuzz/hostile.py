"""Fuzz cases for inventories (TOML) and for fleet documents carrying hostile text.

Inventories: a valid inventory mutated key by key (NaN, infinities, 1e300, fractional and
negative bytes, wrong types, huge counts, names that collide once ``count`` expands, control
characters, deep nesting, a thousand tables, non-UTF-8 bytes, truncation) and model files
that are not files (``/dev/zero``, a FIFO, a directory, a sparse 3 GB file). The property:
``load_inventory`` and every device's model either refuse with one clean line and a
documented exit code (never 1), or give devices whose capacities are whole bytes from 1 to
1 EB and whose expanded names are unique.

Fleet documents: a fleet ranking and an advisor report whose names (hosts, instances,
windows, findings, areas, disks, partition labels, warnings) are drawn from hostile text
(OSC/CSI sequences, CR LF, C1 controls, bidi overrides, NUL, ``|``, backslashes, rich
markup, ``<script>``). The property: every renderer (terminal through advisor's console,
markdown, html) finishes, writes no raw control character, passes no HTML through Markdown,
and keeps each Markdown row to its table's columns.
"""

from __future__ import annotations

import dataclasses
import io
import os
import random
import re
import tomllib
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError, ExitCode
from tests.helpers.clock import AT
from tests.helpers.inventories import GOOD_INVENTORY

ALLOWED_EXIT = frozenset(code for code in ExitCode if code not in (ExitCode.OK, ExitCode.ERROR))
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SGR = re.compile(r"\x1b\[[0-9;]*m")
UNESCAPED_PIPE = re.compile(r"(?<!\\)(?:\\\\)*\|")

BASE_INVENTORY = GOOD_INVENTORY

HOSTILE_VALUES = ("nan", "inf", "-inf", "1e300", "1.5", "-1", "0", "9" * 40, '"0.5 B"', '"1e3 GB"', '"2000 PB"',
                  '"960 GB\\u0000"', '"\\u001b]0;t\\u0007"', "true", "[]", "{}", '"' + "x" * 5000 + '"',
                  "1025", "100000", '"hdd-1"', '"hdd"', '"/dev/zero"', '"nvme"', '"smr-hm"', '"class-7200-desktop"')
KEYS = ("name", "medium", "capacity", "count", "preset", "profile", "spec", "headroom", "host", "rotational")
SPECIAL_FILES = ("/dev/zero", "fifo", "directory", "sparse")
HOSTILE_TEXT = ("db\x1b]0;pwned\x07", "\x1b[2J\x1b[H", "row\r\nbreak", "| a | b |", "<script>alert(1)</script>",
                "\u202eexe.txt", "nul\x00byte", "c1\x9bcontrol", "back\\slash\\", "[bold]markup[/]", "[/]",
                "tab\tstop", "`code`", "&amp;", "ü € 日本", "")


def inventory_text(rng: random.Random, directory: Path) -> tuple[str | bytes, list[str]]:
    """A mutated inventory and the steps that made it."""
    text, steps = BASE_INVENTORY, []
    for _ in range(rng.randint(1, 3)):
        choice = rng.randrange(9)
        if choice <= 3:
            key, value = rng.choice(KEYS), rng.choice(HOSTILE_VALUES)
            lines = text.splitlines()
            spots = [i for i, line in enumerate(lines) if line.startswith(f"{key} =")]
            if spots:
                lines[rng.choice(spots)] = f"{key} = {value}"
            else:
                lines.insert(rng.randrange(min(2, len(lines)), len(lines) + 1), f"{key} = {value}")
            text = "\n".join(lines) + "\n"
            steps.append(f"{key} = {value[:40]}")
        elif choice == 4:
            kind = rng.choice(SPECIAL_FILES)
            target = special_file(kind, directory)
            text = text.replace('preset = "nvme-gen4"', f'{rng.choice(("profile", "spec"))} = "{target}"')
            steps.append(f"model file {kind}")
        elif choice == 5:
            text = "x = " + "[" * rng.randint(100, 3000) + "]" * 10 + "\n" + text
            steps.append("deep nesting")
        elif choice == 6:
            extra = rng.choice((300, 2000))
            text += "".join(f'[[device]]\nname = "d{n}"\nmedium = "hdd"\ncapacity = 1000000\n' for n in range(extra))
            steps.append(f"{extra} more devices")
        elif choice == 7:
            text += '[[device]]\nname = "hdd-2"\nmedium = "hdd"\ncapacity = "4 TB"\npreset = "class-5400-nas"\n'
            steps.append("a name count expansion also gives")
        else:
            cut = rng.randrange(max(1, len(text)))
            text = text[:cut]
            steps.append(f"truncated at {cut}")
    if rng.random() < 0.1:
        return text.encode()[:40] + b"\xff\xfe" + text.encode()[40:], [*steps, "non-UTF-8 bytes"]
    return text, steps


def special_file(kind: str, directory: Path) -> str:
    """A path that is not a small regular file: the device, a FIFO, a directory or a sparse 3 GB file."""
    if kind == "/dev/zero":
        return "/dev/zero"
    path = directory / kind
    if not path.exists():
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "directory":
            path.mkdir()
        else:
            with path.open("wb") as handle:
                handle.truncate(3 << 30)
    return str(path)


def inventory_problem(data: str | bytes, directory: Path) -> str | None:
    """None when advisor kept the inventory property on *data*; else what went wrong."""
    from advisor.disk.media.build import build_device_model
    from advisor.model.inventory import MAX_DEVICES, instance_names, load_inventory
    from advisor.units import MAX_CAPACITY_BYTES

    path = directory / "inventory.toml"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    try:
        inventory = load_inventory(path)
        for device in inventory.devices:
            build_device_model(device, directory)
    except AdvisorError as exc:
        line = exc.one_line()
        if exc.exit_code not in ALLOWED_EXIT:
            return f"exit code {int(exc.exit_code)} for {line!r}"
        if not line.strip() or RAW_CONTROL.search(line):
            return f"refusal is not one clean line: {line!r}"
        return None
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - exactly what the suite looks for
        return f"internal error {type(exc).__name__}: {str(exc)[:200]}"
    names = [name for device in inventory.devices for name in instance_names(device)]
    if len(names) != len(set(names)) or len(names) > MAX_DEVICES:
        return f"accepted {len(names)} device names, not unique or too many"
    for device in inventory.devices:
        if not isinstance(device.capacity_bytes, int) or not 0 < device.capacity_bytes <= MAX_CAPACITY_BYTES:
            return f"accepted capacity {device.capacity_bytes!r} of {device.name!r}"
    return None


# --- fleet documents and reports with hostile text -------------------------------------------


def hostile(rng: random.Random) -> str:
    """One to three pieces of hostile text joined."""
    return "".join(rng.choice(HOSTILE_TEXT) for _ in range(rng.randint(1, 3)))


def fleet_report(rng: random.Random) -> Any:
    """A fleet ranking of a few instances whose every text field is hostile."""
    from advisor.fleet.instances import FleetReport, InstanceAdvice, WindowAdvice

    def window(label: str) -> WindowAdvice:
        return WindowAdvice(label, "2026-11-01T10:00:00+00:00", "2026-11-01T11:00:00+00:00", 3600.0, 120.0, 0.4,
                            rng.random() < 0.7, 8.0, 5.0, 10.8, 0.375, tuple(hostile(rng) for _ in range(2)),
                            hostile(rng))

    instances = tuple(
        InstanceAdvice(hostile(rng), "postgres", hostile(rng), hostile(rng), 8, "2026-11-01T00:00:00+00:00",
                       "2026-11-02T00:00:00+00:00", window("period") if rng.random() < 0.9 else None,
                       (window(hostile(rng)),), tuple(hostile(rng) for _ in range(rng.randint(0, 2))), rank=n + 1)
        for n in range(rng.randint(1, 4)))
    return FleetReport("2026-11-02T00:00:00+00:00", "2026-11-01", "2026-11-02", 1, instances)


def hostile_report(rng: random.Random, report: Any) -> Any:
    """*report* with its area, disk, partition and warning texts replaced by hostile text."""
    names = {a.name: hostile(rng) or "x" for a in report.areas}
    areas = tuple(dataclasses.replace(a, name=names[a.name], disk=hostile(rng)) for a in report.areas)
    plan = report.plan
    if plan is not None:
        plan = dataclasses.replace(
            plan,
            placements=tuple(dataclasses.replace(p, area=names.get(p.area, p.area), target=hostile(rng))
                             for p in plan.placements),
            service_times=tuple(dataclasses.replace(t, area=names.get(t.area, t.area)) for t in plan.service_times),
            partitions=tuple(dataclasses.replace(p, label=hostile(rng), disk=hostile(rng)) for p in plan.partitions),
            notes=(*plan.notes, hostile(rng)),
        )
    findings = tuple(dataclasses.replace(f, subject=hostile(rng), title=hostile(rng), action=hostile(rng))
                     for f in report.findings)
    return dataclasses.replace(report, areas=areas, plan=plan, findings=findings,
                               warnings=tuple(hostile(rng) for _ in range(3)))


def _markdown_problem(text: str, where: str) -> str | None:
    prose = re.sub(r"(?ms)^(`{4,})\w*\n.*?^\1$", "", text)  # fenced scripts are code, not markup
    if "<script" in prose:
        return f"{where}: <script> passed through Markdown"
    widths: list[int] = []
    for line in prose.splitlines():
        if line.startswith("|"):
            widths.append(len(UNESCAPED_PIPE.findall(line)))
        elif widths:
            if len(set(widths)) > 1:
                return f"{where}: a table's rows have {sorted(set(widths))} cell borders"
            widths = []
    return None


def render_problem(rng: random.Random, report: Any) -> str | None:
    """Render a hostile fleet ranking and report in every format; None when all is escaped."""
    from advisor.render import fleet_ranking as fleet
    from advisor.render.html import render_html
    from advisor.render.markdown import render_markdown
    from advisor.render.safe import safe_console
    from advisor.render.terminal import render_terminal

    ranking = fleet_report(rng)
    page = hostile_report(rng, report)
    try:
        console = safe_console(file=io.StringIO(), width=rng.choice((60, 100, 200)), force_terminal=True,
                               color_system="truecolor")
        fleet.render_terminal(ranking, console)
        render_terminal(page, console)
        terminal = SGR.sub("", console.file.getvalue())  # type: ignore[attr-defined]
        outputs = {"terminal": terminal, "fleet markdown": fleet.render_markdown(ranking),
                   "fleet html": fleet.render_html(ranking), "report markdown": render_markdown(page),
                   "report html": render_html(page)}
    except Exception as exc:  # noqa: BLE001 - exactly what the suite looks for
        return f"renderer failed: {type(exc).__name__}: {str(exc)[:200]}"
    for where, text in outputs.items():
        if RAW_CONTROL.search(text):
            found = RAW_CONTROL.search(text)
            assert found is not None
            return f"{where}: raw control character U+{ord(found.group(0)):04X}"
        if "html" in where and "<script" in text:
            return f"{where}: <script> passed through HTML"
        if "markdown" in where and (problem := _markdown_problem(text, where)):
            return problem
    return None


def valid_toml(text: str | bytes) -> bool:
    """Whether *text* parses as TOML at all (the suite counts how many cases got past the parser)."""
    try:
        tomllib.loads(text.decode() if isinstance(text, bytes) else text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.fuzz.hostile --cases 3000``: a longer run than the test suite's; exit 0 when all held."""
    import argparse
    import tempfile
    import time
    from collections import Counter

    from advisor.engine.advise import AdviceRequest, advise
    from tests.helpers.workloads import models, sample_workload

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000, help="inventory cases (a fifth as many render cases)")
    parser.add_argument("--seed", type=int, default=20261125)
    args = parser.parse_args(argv)
    rng, failures, outcomes = random.Random(args.seed), [], Counter[str]()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="advisor-fuzz-") as tmp:
        for case in range(args.cases):
            folder = Path(tmp) / f"case{case}"
            folder.mkdir()
            data, steps = inventory_text(rng, folder)
            outcomes["parsed" if valid_toml(data) else "not TOML"] += 1
            if problem := inventory_problem(data, folder):
                failures.append(f"inventory case {case} [{'; '.join(steps)}]: {problem}")
    report = advise(AdviceRequest(sample_workload(), models(), generated_at=AT))
    for case in range(args.cases // 5):
        if problem := render_problem(rng, report):
            failures.append(f"render case {case}: {problem}")
    print(f"{args.cases} inventory cases ({dict(outcomes)}) and {args.cases // 5} render cases in "
          f"{time.perf_counter() - started:.1f} s; {len(failures)} failures")
    print("\n".join(failures[:20]))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
