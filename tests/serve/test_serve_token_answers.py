"""Answers to steps of tokens (kind bpe) are read alike by an answers file (`attncalc check`) and by
the practice page's JSON route (docs/serving.md: the route "takes each value as an answers file
does"): the same shapes taken, the same refusals (a merge as a list, a number for tokens), the same
items left out ("?"), the same verdicts and points; and the page's download of what the route was
sent grades the same under `attncalc check`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS
from ..serve_support import client

BPE = "bpe-cs336"
PROBLEM = PROBLEMS / f"{BPE}.toml"
# CS336 section 2.5, by hand: the word counts, merge 1 (s t: "e s" and "s t" tie at 9, the greater
# is taken), the words after it, and "newest" encoded with the six merges
COUNTS = [5, 2, 3, 6]
WORDS_1 = [["l", "o", "w"], ["l", "o", "w", "e", "r"], ["w", "i", "d", "e", "st"], ["n", "e", "w", "e", "st"]]
MERGES = ["s t", "e st", "o w", "l ow", "w est", "n e"]
ITEMS = [" ".join(w) for w in WORDS_1]

REFUSED, UNANSWERED = "refused", "unanswered"
# (step, answer, what both must make of it: "refused", "unanswered", or (verdict, share of its points))
CASES: list[tuple[str, Any, Any]] = [
    ("1.merge", ["s", "t"], REFUSED),  # a merge is one string
    ("1.merge", 5, REFUSED),  # a number is no tokens
    ("1.words", 5, REFUSED),
    ("merges", 5.5, REFUSED),
    ("1.words", [["l", "o", "w"], 5], REFUSED),
    ("encode.1", [["ne"], []], REFUSED),
    ("1.merge", "s t", ("correct", 1.0)),
    ("1.merge", "e s", ("wrong", 0.0)),
    ("1.words", WORDS_1, ("correct", 1.0)),  # as solve --format json writes the step
    ("1.words", ITEMS, ("correct", 1.0)),
    ("1.words", ", ".join(ITEMS), ("correct", 1.0)),
    ("merges", MERGES, ("correct", 1.0)),
    ("1.words", ["?", "?", "?", "?"], UNANSWERED),
    ("1.words", "?, ?, ?, ?", UNANSWERED),  # the page's download of the line above, before
    ("1.words", [["?"], ["?"], ["?"], ["?"]], UNANSWERED),
    ("encode.1", ["?", " "], UNANSWERED),
    # an item "?" among answered ones: that item not answered, as a number's entry "?" is (3 of 4 earn)
    ("1.words", [ITEMS[0], "?", ITEMS[2], ITEMS[3]], ("correct", 0.75)),
    ("1.words", [WORDS_1[0], ["?"], WORDS_1[2], WORDS_1[3]], ("correct", 0.75)),
    ("1.words", f"{ITEMS[0]}, ?, {ITEMS[2]}, {ITEMS[3]}", ("correct", 0.75)),
    ("merges", ["s t", "?", "o w", "l ow", "w est", "n e"], ("correct", round(5 / 6, 6))),  # (JSON: 6 places)
    ("encode.1", "ne ?", ("correct", 0.5)),
    # blank items between commas of a text are items not answered, as blank items of a list are
    ("1.words", ",,,", UNANSWERED),
    ("1.words", " , ,  , ", UNANSWERED),
    ("1.words", ["", "", "", ""], UNANSWERED),
    ("1.words", f"{ITEMS[0]},,{ITEMS[2]}, {ITEMS[3]}", ("correct", 0.75)),
    ("1.words", [ITEMS[0], "", ITEMS[2], ITEMS[3]], ("correct", 0.75)),
    ("1.words", f"{ITEMS[0]},,w i d e s t, {ITEMS[3]}", ("wrong", 0.5)),  # 2 of 4 items right
    # an answered item wrong: each item its own entry, as the quiz asks them (2 of 4 right)
    ("1.words", [ITEMS[0], "?", "w i d e s t", ITEMS[3]], ("wrong", 0.5)),
    ("1.words", [ITEMS[0], "?"], ("wrong", 0.0)),  # two items where there are four
]


@pytest.fixture(scope="module")
def c():  # type: ignore[no-untyped-def]
    return client([str(PROBLEM)])


def _toml(answers: dict[str, Any]) -> str:
    # strings, whole numbers, decimals and (nested) lists of them: JSON's spelling is TOML's too
    return "".join(f"{json.dumps(k)} = {json.dumps(v)}\n" for k, v in answers.items())


def _by_file(cli: Any, tmp_path: Path, answers: dict[str, Any]) -> Any:
    f = tmp_path / "answers.toml"
    f.write_text(_toml(answers), encoding="utf-8")
    return cli("check", str(PROBLEM), str(f), "--format", "json"), f


def _outcome(report: dict[str, Any], step: str) -> Any:
    if step in report["unanswered"]:
        return UNANSWERED
    r = next(x for x in report["results"] if x["id"] == step)
    return r["verdict"], round(r["points"] / r["out_of"], 6)


@pytest.mark.parametrize(("step", "answer", "expected"), CASES, ids=[f"{s}={a!r}" for s, a, _ in CASES])
def test_a_file_and_the_json_route_read_tokens_alike(
    c: Any, cli: Any, tmp_path: Path, step: str, answer: Any, expected: Any
) -> None:
    answers = {"words": COUNTS, step: answer}  # the counts: a file that answers something
    done, f = _by_file(cli, tmp_path, answers)
    sent = c.post(f"/problems/{BPE}/check", json={"answers": answers})
    if expected == REFUSED:
        assert done.exit_code == 2 and sent.status_code == 422, (done.output, sent.text)
        line = done.stderr.strip()
        assert "\n" not in line and "Traceback" not in line
        assert line.startswith(f"attncalc: error: {f}: {step}: expected tokens as text")
        error = sent.json()["error"]
        assert error == f"<answers>: {step}: " + line.split(f"{f}: {step}: ", 1)[1]  # the same words
        assert not re.search(r"\bs t\b|\bne\b|\bl o w\b", error)  # in words, never the answer
        return
    assert done.exit_code in (0, 1) and sent.status_code == 200, (done.output, sent.text)  # 1: a wrong answer
    from_file, from_route = json.loads(done.stdout), sent.json()
    assert _outcome(from_file, step) == _outcome(from_route, step) == expected
    assert from_file["score"] == from_route["score"]
    # what the page downloads for the same request grades the same under check
    down = c.post(f"/problems/{BPE}/answers.toml", json={"answers": answers})
    assert down.status_code == 200
    got = tmp_path / "download.toml"
    got.write_text(down.text, encoding="utf-8")
    again = cli("check", str(PROBLEM), str(got), "--format", "json")
    assert again.exit_code == done.exit_code, again.output
    assert _outcome(json.loads(again.stdout), step) == expected


def test_tokens_typed_as_question_marks_in_the_form_answer_nothing(c: Any) -> None:
    r = c.post(f"/problems/{BPE}/check", data={"1.words": "?, ?, ?, ?", "action": "check"})
    assert r.status_code == 200 and "Type at least one answer" in r.text
    both = c.post(f"/problems/{BPE}/check", data={"1.words": "?, ?, ?, ?", "1.merge": "s t", "action": "check"})
    assert both.status_code == 200 and "Type at least one answer" not in both.text


def test_blank_items_typed_in_the_form_are_not_answered(c: Any) -> None:
    r = c.post(f"/problems/{BPE}/check", data={"1.words": ",,,", "action": "check"})
    assert r.status_code == 200 and "Type at least one answer" in r.text
    part = c.post(f"/problems/{BPE}/check", json={"answers": {"1.words": f"{ITEMS[0]},,{ITEMS[2]}, {ITEMS[3]}"}})
    assert part.status_code == 200
    result = next(x for x in part.json()["results"] if x["id"] == "1.words")
    assert (result["verdict"], result["points"] / result["out_of"]) == ("correct", 0.75)  # 3 of 4 items


def test_a_file_alone_of_question_mark_items_answers_nothing(cli: Any, tmp_path: Path) -> None:
    done, f = _by_file(cli, tmp_path, {"1.words": ["?", "?", "?", "?"]})
    assert done.exit_code == 2 and f"{f}: 1.words:" in done.stderr and "nothing is answered" in done.stderr
    sent = client([str(PROBLEM)]).post(f"/problems/{BPE}/check", json={"answers": {"1.words": "?, ?, ?, ?"}})
    assert sent.status_code == 422 and "nothing is answered" in sent.json()["error"]


def test_items_left_out_follow_the_students_own_merge_alike(c: Any, cli: Any, tmp_path: Path) -> None:
    # merge 1 taken as "e s" (the other tie rule): by hand the words become l o w, l o w e r,
    # w i d es t, n e w es t; the answered items are those, so the words are right given it
    answers = {"1.merge": "e s", "1.words": ["?", "l o w e r", "w i d es t", "?"]}
    done, _ = _by_file(cli, tmp_path, answers)
    sent = c.post(f"/problems/{BPE}/check", json={"answers": answers})
    assert done.exit_code == 1 and sent.status_code == 200, (done.output, sent.text)
    from_file, from_route = json.loads(done.stdout), sent.json()
    assert _outcome(from_file, "1.merge")[0] == _outcome(from_route, "1.merge")[0] == "wrong"
    assert _outcome(from_file, "1.words")[0] == _outcome(from_route, "1.words")[0] == "carried"
    assert from_file["score"] == from_route["score"]
    wrong = {"1.merge": "e s", "1.words": ["?", "l o w e r", "w i d e s t", "?"]}  # neither the truth nor their own
    done, _ = _by_file(cli, tmp_path, wrong)
    assert _outcome(json.loads(done.stdout), "1.words")[0] == "wrong"


def test_a_list_too_long_for_a_field_says_its_item_count(c: Any) -> None:
    sent = c.post(f"/problems/{BPE}/check", json={"answers": {"1.words": ["a"] * 100_000}})
    assert sent.status_code == 422
    assert sent.json()["error"].startswith("<answers>: 1.words: 100,000 items, more than a field takes")


def test_one_step_all_question_marks_says_entry(c: Any) -> None:
    sent = c.post(f"/problems/{BPE}/check", json={"answers": {"1.merge": "?"}})
    assert sent.status_code == 422 and "every entry is '?'" in sent.json()["error"]


def test_a_list_in_one_field_with_one_item_wrong_is_marked_wrong(c: Any) -> None:
    """check counts a words list item by item (3 of 4 right earns 3/4); the one field holding the list is
    still marked wrong with its step, not right because its first item is."""
    typed = ", ".join([*ITEMS[:3], "n e w es t"])
    r = c.post(f"/problems/{BPE}/check", data={"1.words": typed, "action": "check"})
    assert r.status_code == 200
    field = re.search(r'<input id="[^"]*" name="1\.words"[^>]*>', r.text)
    assert field is not None and "e-wrong" in field.group(0), field
    assert "Points 0.75 / 1" in r.text
