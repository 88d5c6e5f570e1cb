"""check grades a step entry by entry as a quiz asks it: a list of labels asked rank by rank item by item,
and a bpe pair table after merge 1 over every adjacent place of the corpus's words (docs/grading.md,
"Points"). Before, a bpe words list with one word of four wrong earned 0 in check and 3/4 in every LMS,
a beam search's kept beams with one of two wrong 0 and 1/2, and a pair table with one count of CS336's
10 wrong 9/10 in check and 15/16 in the quiz (which asks 16 places).

Expected values worked by hand from CS336's corpus (low ×5, lower ×2, widest ×3, newest ×6; ties to the
greater pair): merge 1 is s t (9, tied with e s, greater); the words after it are l o w, l o w e r,
w i d e st, n e w e st; their pairs in first-occurrence order are l o 7, o w 7, w e 8, e r 2, w i 3,
i d 3, d e 3, e st 9, n e 6, e w 6; the distinct words have 2 + 4 + 5 + 5 = 16 adjacent places.
"""

from __future__ import annotations

from typing import Any

import pytest

from attncalc.check import check
from attncalc.mechanisms import solve
from attncalc.parse import load_problem
from attncalc.render.json import to_dict

from ..helpers import ROOT

CS336 = ROOT / "problems" / "bpe-cs336.toml"
PAIRS_2 = [7, 7, 8, 2, 3, 3, 3, 9, 6, 6]
WORDS_1 = ["l o w", "l o w e r", "w i d e st", "n e w e st"]


def _result(path: Any, answers: dict[str, Any], step_id: str) -> Any:
    rep = check(load_problem(path), answers, "a.toml")
    return next(r for r in rep.results if r.id == step_id)


def test_the_hand_worked_cs336_values_are_the_true_ones() -> None:
    d = solve(load_problem(CS336), exact=False)
    assert list(d.step("1.words").labels) == WORDS_1
    assert [int(x) for x in d.step("2.pairs").value] == PAIRS_2


def test_one_word_of_four_wrong_earns_three_quarters() -> None:
    r = _result(CS336, {"1.words": [*WORDS_1[:3], "n e w es t"]}, "1.words")
    assert r.verdict == "wrong" and r.credit == pytest.approx(3 / 4) and r.wrong_entries == [[3]]


def test_one_kept_beam_of_two_wrong_earns_half() -> None:
    path = ROOT / "problems" / "decode-beam.toml"
    d = solve(load_problem(path), exact=False)
    kept = list(d.step("kept_labels").labels)
    assert kept == ["beam 1: cat", "beam 1: dog"]  # (the file's own beams, read from its text view)
    r = _result(path, {"kept_labels": [kept[0], kept[0]]}, "kept_labels")
    assert r.verdict == "wrong" and r.credit == pytest.approx(1 / 2)


def test_an_encoded_word_stays_one_answer() -> None:
    """encode.3 ("lowest"): its tokens are a cut of one word, asked as one choice; a wrong cut earns 0."""
    d = solve(load_problem(CS336), exact=False)
    true = d.step("encode.3").labels
    wrong = ["".join(true[:2]), *true[2:]] if len(true) > 2 else [*true[0], *true[1:]]
    r = _result(CS336, {"encode.3": wrong}, "encode.3")
    assert r.verdict == "wrong" and r.credit == 0


@pytest.mark.parametrize(
    ("written", "credit"),
    [
        ([*PAIRS_2[:9], 5], 15 / 16),  # one count of ten wrong: one place of sixteen
        (PAIRS_2, 1.0),
        ([*PAIRS_2, "?", "?", "?", "?", "?", "?"], 1.0),  # as the page downloads it
        ([*PAIRS_2[:9], "?"], 15 / 16),  # a count left out
    ],
)
def test_a_pair_table_after_merge_1_is_graded_over_its_sixteen_places(written: list[Any], credit: float) -> None:
    r = _result(CS336, {"2.pairs": written}, "2.pairs")
    assert r.credit == pytest.approx(credit), (r.verdict, r.entries, r.right, r.note)


def test_a_typo_student_earns_the_same_in_moodle_as_in_check() -> None:
    """The key but one count of 2.pairs and one word of 3.words: check's total (17 steps: out of 17, less
    1/16 and 1/4 of a point) equals Moodle's, read as its importer grades each question."""
    from ..exports.test_lms_label_slips import _moodle_score

    p = load_problem(CS336)
    d = solve(p)
    answers: dict[str, Any] = {s["id"]: s["shown"] for s in to_dict(d)["steps"]}
    for step in d.steps:  # the labels as the quiz's options write them ("l o w"; an encoding's tokens)
        if isinstance(step.value, str):
            answers[step.id] = list(step.labels) if ", " in step.value else step.value
    answers["2.pairs"] = [*PAIRS_2[:9], 5]
    words = list(d.step("3.words").labels)
    answers["3.words"] = [*words[:3], "n e w e s t"]
    assert words[3] != "n e w e s t"
    rep = check(p, answers, "a.toml")
    assert rep.score == pytest.approx(rep.out_of - 1 / 16 - 1 / 4)
    assert _moodle_score(d, answers) == pytest.approx(rep.score, abs=1e-5)
