"""The one grammar of expectations (syncgrade.authoring.cases): corpus and integrity headers,
mutant entries of mutants.toml, and edits. Nothing here grades."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncgrade.authoring.cases import (
    MUTANT_KEYS,
    CaseError,
    Edit,
    corpus_case,
    integrity_case,
    parse_mutants,
)

MUTANT = '''\
[[mutant]]
name = "no_wait"
flaw = "no wait on the output before the timer stops"
expect-fail = ["sync-before-stop", "covers-device-work"]

  [[mutant.edit]]
  old = """
        out.block_until_ready()
"""
  new = ""

  [[mutant.edit]]
  old = "a"
  new = "b"
'''


def _file(tmp_path: Path, text: str, kind: str = "flawed") -> Path:
    path = tmp_path / "exercise-1" / kind / "case.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "import time\n")
    return path


def test_corpus_headers_are_parsed(tmp_path: Path) -> None:
    correct = corpus_case(_file(tmp_path, "# style: a helper\n#   over two lines\n"
                                          "# expect: pass\n", "correct"))
    assert (correct.kind, correct.exercise, correct.description, correct.expects_pass) == (
        "correct", "exercise-1", "a helper over two lines", True)
    flawed = corpus_case(_file(tmp_path, "# flaw: no wait\n# expect-fail: b a\n"))
    assert (flawed.kind, flawed.name, flawed.expected_failures) == ("flawed", "case",
                                                                    frozenset({"a", "b"}))
    assert flawed.header() == "# flaw: no wait\n# expect-fail: a b\n"
    assert flawed.may_fail == frozenset()
    measured = corpus_case(_file(tmp_path, "# flaw: x\n# expect-fail: a\n# may-fail: c\n"))
    assert (measured.expected_failures, measured.may_fail) == ({"a"}, {"c"})
    assert measured.tpu_may_pass == frozenset()
    on_tpu = corpus_case(_file(tmp_path, "# flaw: x\n# expect-fail: a b\n# tpu-may-pass: b\n"))
    assert (on_tpu.expected_failures, on_tpu.tpu_may_pass) == ({"a", "b"}, {"b"})
    assert on_tpu.tpu_may_fail == frozenset()
    fails_there = corpus_case(_file(tmp_path, "# style: x\n# expect: pass\n"
                                              "# tpu-may-fail: runs\n", "correct"))
    assert (fails_there.expects_pass, fails_there.tpu_may_fail) == (True, {"runs"})


@pytest.mark.parametrize(("header", "message"), [
    ("# expect: pass\n", "exactly one of '# style: ...'"),  # no description
    ("# flaw: x\n", "exactly one of '# expect: ...'"),  # no expectation
    ("# style: x\n# flaw: y\n# expect: pass\n", "exactly one of '# style: ...'"),
    ("# flaw: x\n# expect: pass\n# expect-fail: runs\n", "exactly one of '# expect: ...'"),
    ("# flaw: x\n# must-fail: runs\n", "unknown key '# must-fail:'"),
    ("# mutant: x\n# expect-fail: runs\n", "unknown key '# mutant:'"),
    ("# flaw: x\n# cheat: y\n# expect-fail: runs\n", "'# cheat:' does not belong here"),
    ("# flaw: x\n# flaw: y\n# expect-fail: runs\n", "'# flaw:' given twice"),
    ("# flaw: x\n# expect-fail:\n", "'# expect-fail:' is empty"),
    ("# flaw: x\n# and more\n# expect-fail: runs\n", "line 2: a header line is"),
    ("# style: x\n# expect-fail: runs\n", "a '# style:' file is correct"),
    ("# flaw: x\n# expect: pass\n", "a '# flaw:' file fails"),
    ("# flaw: x\n# expect: tampered\n", "unknown expectation '# expect: tampered'"),
    ("# style: x\n# expect: pass\n# may-fail: runs\n", "'# may-fail: ids' names"),
    ("# flaw: x\n# expect-fail: runs\n# may-fail: runs\n", "'# may-fail: ids' names"),
    ("# flaw: x\n# expect-fail: runs\n# tpu-may-pass: jitted\n",
     "'# tpu-may-pass: ids' names"),
    ("# style: x\n# expect: pass\n# tpu-may-pass: runs\n", "'# tpu-may-pass: ids' names"),
    ("# flaw: x\n# expect-fail: runs\n# tpu-may-fail: runs\n", "'# tpu-may-fail: ids' names"),
])
def test_a_bad_corpus_header_is_one_clear_error(tmp_path: Path, header: str,
                                                message: str) -> None:
    path = _file(tmp_path, header)
    with pytest.raises(CaseError, match=r"^\S*case\.py: ") as info:
        corpus_case(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_integrity_headers(tmp_path: Path) -> None:
    path = tmp_path / "cheat.py"
    path.write_text("# exercise: exercise-1\n# cheat: x\n# expect: tampered\n")
    case = integrity_case(path)
    assert (case.kind, case.exercise, case.expected_cause) == ("integrity", "exercise-1",
                                                               "tampered")
    assert case.header() == "# exercise: exercise-1\n# cheat: x\n# expect: tampered\n"
    path.write_text("# exercise: exercise-1\n# style: x\n# expect-fail: runs\n")
    with pytest.raises(CaseError, match="'# style:' does not belong here"):
        integrity_case(path)


def test_mutant_entries_are_parsed() -> None:
    [mutant] = parse_mutants(MUTANT, "m.toml", "exercise-1")
    assert (mutant.name, mutant.kind, mutant.exercise, mutant.description) == (
        "no_wait", "mutant", "exercise-1", "no wait on the output before the timer stops")
    assert mutant.expected_failures == {"sync-before-stop", "covers-device-work"}
    assert mutant.edits == (Edit("        out.block_until_ready()\n", ""), Edit("a", "b"))
    solution = "a = 1\n        out.block_until_ready()\n"
    assert mutant.apply(solution) == "b = 1\n"


@pytest.mark.parametrize("key", MUTANT_KEYS)
def test_a_mutant_without_a_key_is_refused(key: str) -> None:
    lines = MUTANT.splitlines(keepends=True)
    if key == "edit":
        text = "".join(lines[:4])
    else:
        text = "".join(ln for ln in lines if not ln.startswith(f"{key} ="))
    label = "#1" if key == "name" else "no_wait"
    with pytest.raises(CaseError, match=f"^m.toml: mutant {label}: no '{key}'$"):
        parse_mutants(text, "m.toml")


@pytest.mark.parametrize(("change", "message"), [
    (('expect-fail = [', 'must-fail = ['), "mutant no_wait: unknown key 'must-fail'"),
    (('flaw = ', 'mutant = "x"\nflaw = '), "mutant no_wait: unknown key 'mutant'"),
    (('new = ""', 'new = ""\n  why = "x"'), "edit 1 must have exactly the keys old and new"),
    (('new = "b"', 'neww = "b"'), "edit 2 must have exactly the keys old and new"),
    (('old = "a"', 'old = ""'), "edit 2: old (non-empty) and new must be strings"),
    (('expect-fail = ["sync-before-stop", "covers-device-work"]', 'expect-fail = []'),
     "'expect-fail' must be a non-empty list of check ids"),
    (('expect-fail = ["sync-before-stop", "covers-device-work"]', 'expect-fail = "runs"'),
     "'expect-fail' must be a non-empty list of check ids"),
    (('name = "no_wait"', 'name = "no wait"'), "'name' must be an identifier"),
    (('[[mutant]]', 'title = "x"\n[[mutant]]'), "unknown top-level key 'title'"),
    (('[[mutant]]', '[[mutant]'), "not valid TOML"),
])
def test_a_bad_mutant_entry_is_one_clear_error(change: tuple[str, str], message: str) -> None:
    text = MUTANT.replace(*change, 1)
    with pytest.raises(CaseError, match=r"^m\.toml: ") as info:
        parse_mutants(text, "m.toml")
    assert message in str(info.value)


def test_a_mutant_name_given_twice_is_refused() -> None:
    with pytest.raises(CaseError, match="mutant no_wait given twice"):
        parse_mutants(MUTANT + "\n" + MUTANT, "m.toml")
    with pytest.raises(CaseError, match="no \\[\\[mutant\\]\\] entry"):
        parse_mutants("", "m.toml")


def test_co_firing_is_narrow_and_one_way() -> None:
    from syncgrade.authoring.cases import CO_FIRING, co_firing

    assert {"interval-clean": frozenset({"sample-duration"})} == CO_FIRING
    assert co_firing(frozenset({"interval-clean"})) == {"sample-duration"}
    assert co_firing(frozenset({"times-the-call", "interval-clean"})) == {"sample-duration"}
    # An expected failure stays required, and nothing co-fires with the others.
    assert co_firing(frozenset({"interval-clean", "sample-duration"})) == frozenset()
    assert co_firing(frozenset({"sample-duration"})) == frozenset()
    assert co_firing(frozenset({"sync-before-stop"})) == frozenset()
