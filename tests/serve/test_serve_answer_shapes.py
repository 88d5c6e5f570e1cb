"""What the practice page takes as an answer: a blank label or tokens is not answered (as an empty
field is), "?" typed in every field is the same as every field left empty, a field comes back as
it was typed (so a second Check grades the same text), and the JSON route's shapes for tokens:
a merge is one string, a number is no tokens, a list of token lists (as `solve --format json`
writes a words step) is taken."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attncalc.api import check

from ..helpers import PROBLEMS, run_cli
from ..serve_support import client, field_value, verdicts

DOT, BPE = "decoder-dot", "bpe-cs336"
# decoder-dot by hand: q = [1, 1], keys [1, 0], [0, 2], [1, 1]: scores 1, 2, 2
SCORES = [1, 2, 2]
# CS336 section 2.5: merge 1 is "s t", and the words after it
WORDS_1 = [["l", "o", "w"], ["l", "o", "w", "e", "r"], ["w", "i", "d", "e", "st"], ["n", "e", "w", "e", "st"]]


@pytest.fixture(scope="module")
def c():  # type: ignore[no-untyped-def]
    return client([str(PROBLEMS / f"{DOT}.toml"), str(PROBLEMS / f"{BPE}.toml")])


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_blank_label_sent_as_json_is_not_answered(c, blank: str) -> None:  # type: ignore[no-untyped-def]
    r = c.post(f"/problems/{DOT}/check", json={"answers": {"prediction": blank, "scores": SCORES}})
    assert r.status_code == 200
    report = r.json()
    assert [x["id"] for x in report["results"]] == ["scores"] and "prediction" in report["unanswered"]
    alone = c.post(f"/problems/{DOT}/check", json={"answers": {"prediction": blank}})
    assert alone.status_code == 422 and "nothing is answered" in alone.json()["error"]  # as "?" alone is


def test_a_blank_merge_is_not_answered_nor_downloaded_as_spaces(c) -> None:  # type: ignore[no-untyped-def]
    r = c.post(f"/problems/{BPE}/check", json={"answers": {"1.merge": "   ", "1.words": WORDS_1}})
    assert r.status_code == 200 and "1.merge" in r.json()["unanswered"]
    assert [(x["id"], x["verdict"]) for x in r.json()["results"]] == [("1.words", "correct")]
    file = c.post(f"/problems/{BPE}/answers.toml", json={"answers": {"1.merge": "   ", "1.words": WORDS_1}})
    assert file.status_code == 200 and '"1.merge" = "?"' in file.text and '"   "' not in file.text


def test_a_blank_label_typed_in_the_form_is_not_answered(c) -> None:  # type: ignore[no-untyped-def]
    r = c.post(f"/problems/{DOT}/check", data={"prediction": "   ", "action": "check"})
    assert r.status_code == 200 and "Type at least one answer" in r.text and not verdicts(r.text)


@pytest.mark.parametrize("blank", ['""', '"  "'])
def test_a_blank_label_in_an_answers_file_is_not_answered(tmp_path: Path, blank: str) -> None:
    report = check(str(PROBLEMS / f"{DOT}.toml"), {"prediction": blank.strip('"'), "scores": SCORES})
    assert [(r.id, r.verdict) for r in report.results] == [("scores", "correct")]
    f = tmp_path / "answers.toml"
    f.write_text(f"prediction = {blank}\nscores = [1, 2, 2]\n")
    done = run_cli("check", str(PROBLEMS / f"{DOT}.toml"), str(f), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert '"wrong": 0' in done.stdout or '"wrong":0' in done.stdout


def test_question_marks_in_every_field_are_the_same_as_empty_fields(c) -> None:  # type: ignore[no-untyped-def]
    asked = c.post(f"/problems/{DOT}/check", data={f"scores[{i}]": "?" for i in range(3)} | {"action": "check"})
    empty = c.post(f"/problems/{DOT}/check", data={f"scores[{i}]": "" for i in range(3)} | {"action": "check"})
    assert asked.status_code == empty.status_code == 200
    assert "Type at least one answer" in asked.text and "Type at least one answer" in empty.text
    assert field_value(asked.text, "scores[0]") == "?"  # what was typed, kept
    down = c.post(f"/problems/{DOT}/answers.toml", data={f"scores[{i}]": "?" for i in range(3)})
    assert down.status_code == 200 and "Type at least one answer" in down.text


@pytest.mark.parametrize("typed", ["X\u202eY", "B\u200b", "\u202dB"])
def test_a_field_comes_back_as_typed_and_a_second_check_grades_the_same(c, typed: str) -> None:  # type: ignore[no-untyped-def]
    first = c.post(f"/problems/{DOT}/check", data={"prediction": typed, "action": "check"})
    shown = field_value(first.text, "prediction")
    assert shown == typed
    second = c.post(f"/problems/{DOT}/check", data={"prediction": shown, "action": "check"})
    assert field_value(second.text, "prediction") == typed
    assert verdicts(first.text) == verdicts(second.text) and first.status_code == second.status_code
    # shown as its escape where the page says it (the note), never raw
    note = re.search(r"belongs to B, not ([^<]*)\.", first.text)
    assert note is None or "\u202e" not in note.group(1)


def test_a_merge_sent_as_a_list_is_refused(c) -> None:  # type: ignore[no-untyped-def]
    r = c.post(f"/problems/{BPE}/check", json={"answers": {"1.merge": ["s", "t"]}})
    error = r.json()["error"]
    assert r.status_code == 422 and error.startswith("<answers>: 1.merge: expected tokens as text") and "pair" in error
    assert not re.search(r"\bs t\b", error)  # (the true merge, by hand from the handout: never given away)
    ok = c.post(f"/problems/{BPE}/check", json={"answers": {"1.merge": "s t"}})
    assert ok.status_code == 200 and ok.json()["results"][0]["verdict"] == "correct"


@pytest.mark.parametrize("number", [5, 5.5, 0])
def test_a_number_where_tokens_are_asked_is_refused(c, number: float) -> None:  # type: ignore[no-untyped-def]
    for step in ("1.words", "1.merge", "merges"):
        r = c.post(f"/problems/{BPE}/check", json={"answers": {step: number}})
        assert r.status_code == 422 and step in r.json()["error"] and "tokens" in r.json()["error"], r.text


def test_a_list_of_token_lists_is_taken_as_solve_writes_it(c) -> None:  # type: ignore[no-untyped-def]
    r = c.post(f"/problems/{BPE}/check", json={"answers": {"1.words": WORDS_1}})
    assert r.status_code == 200 and r.json()["results"][0]["verdict"] == "correct"
    wrong = [w[:] for w in WORDS_1]
    wrong[3] = ["n", "e", "w", "es", "t"]
    r = c.post(f"/problems/{BPE}/check", json={"answers": {"1.words": wrong}})
    assert r.status_code == 200 and r.json()["results"][0]["verdict"] == "wrong"
    items = c.post(
        f"/problems/{BPE}/check", json={"answers": {"merges": ["s t", "e st", "o w", "l ow", "w est", "n e"]}}
    )
    assert items.status_code == 200 and items.json()["results"][0]["verdict"] == "correct"
    for odd in ([["l", "o", "w"], 5], [[]], [], {"a": 1}, [["l", 5]]):
        r = c.post(f"/problems/{BPE}/check", json={"answers": {"1.words": odd}})
        assert r.status_code == 422, (odd, r.text)
