"""The docs runner itself: it reads commands as a reader would and flags a changed shape."""

from __future__ import annotations

from tests.docs.mdpage import Block, inline_commands, shell_lines, strip_comment, transcripts
from tests.docs.transcript import Outcome, mismatches

PAGE_BLOCK = Block("t", 10, """$ advisor workload w.json
Per tablespace over 3,600.0 s
 tablespace  kind     files  MiB    r/s
 ──────────────────────────────────────
 USERS       data         2    ?  150.0
$ advisor inventory --check nan.toml
advisor: error: nan.toml: device 'hdd': capacity nan is not a size
[exit 6]
$ advisor collect --from-report x.toml
advisor: error: x.toml is not a report
$ echo $?
6""")


def test_transcripts_carry_their_output_and_exit_code() -> None:
    found = transcripts(PAGE_BLOCK)
    assert [t.command for t in found] == [
        "advisor workload w.json", "advisor inventory --check nan.toml", "advisor collect --from-report x.toml"]
    assert [t.exit_code for t in found] == [0, 6, 6]
    assert found[0].output[0].startswith("Per tablespace") and found[1].line == 16


def test_same_shape_other_numbers_matches() -> None:
    page = transcripts(PAGE_BLOCK)[0]
    table = " tablespace  kind  files  MiB  r/s\n ─────────\n pg  data  9  1.0  3.0\n"
    run = Outcome(0, "Per tablespace over 12.0 s\n" + table)
    assert mismatches(page, run) == []


def test_a_changed_header_exit_code_or_error_is_flagged() -> None:
    page, error, _ = transcripts(PAGE_BLOCK)
    renamed = Outcome(0, "Per tablespace over 12.0 s\n tablespace  type  files  MiB  r/s\n ─────────\n")
    assert any("header" in problem for problem in mismatches(page, renamed))
    assert any("exit 0" in problem for problem in mismatches(error, Outcome(0, "advisor: error: nan.toml: x")))
    assert any("names nan.toml" in problem for problem in mismatches(error, Outcome(6, "advisor: error: other")))
    assert any("starts with" in problem for problem in mismatches(page, Outcome(0, "Totals\n")))


def test_shell_lines_join_continuations_and_drop_comments() -> None:
    block = Block("", 0, "# a comment\nadvisor report --snapshot a.json \\\n    --scripts plan/   # note\n\npsql -f x")
    assert shell_lines(block) == ["advisor report --snapshot a.json --scripts plan/   # note", "psql -f x"]
    assert strip_comment('advisor x --dsn "a#b" -o y   # note') == 'advisor x --dsn "a#b" -o y'


def test_inline_commands_are_spans_with_arguments_outside_fences() -> None:
    text = "Run `advisor audit --snapshot a.json b.json`; `advisor collect` says so.\n```\n`advisor x y z`\n```\n"
    assert inline_commands(text) == ["advisor audit --snapshot a.json b.json"]


def test_a_device_name_first_is_the_machine_s_and_an_exit_in_parentheses_counts() -> None:
    page = transcripts(Block("t", 1, "$ advisor audit --snapshot a.json b.json\nloop5  1.0 GiB  loop\n(exit 0)"))[0]
    assert page.exit_code == 0 and page.output == ["loop5  1.0 GiB  loop"]
    assert mismatches(page, Outcome(0, "vda  256.0 GiB  virtio\n")) == []
    assert any("starts with" in problem for problem in mismatches(page, Outcome(0, "Findings\n")))
    failed = transcripts(Block("t", 1, "$ advisor where /x\nadvisor: /x: no such file or directory\n(exit 6)"))[0]
    assert failed.exit_code == 6
