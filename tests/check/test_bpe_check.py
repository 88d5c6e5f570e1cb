"""Kind bpe under `attncalc check`: each named slip (pair counts not weighted by the word counts, pairs
counted across words, the other tie rule, a word cut greedily by length) is named from an answer built
with it by hand here, and not named for a typo or another wrong answer; a slip named at a merge is
carried on to the words re-segmented after it. Every expected value is counted here by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from attncalc.check import check
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS

CS336 = PROBLEMS / "bpe-cs336.toml"
# CS336's first pair table, by hand: l o, o w (low 5 + lower 2), w e (lower 2 + newest 6), e r, w i, i d,
# d e, e s, s t (widest 3 + newest 6), n e, e w (newest 6)
TRUE_PAIRS = [7, 7, 8, 2, 3, 3, 3, 9, 9, 6, 6]
# each distinct word once: l o (low, lower), o w, w e (lower, newest), e r, w i, i d, d e, e s, s t (widest,
# newest), n e, e w
UNWEIGHTED = [2, 2, 2, 1, 1, 1, 1, 2, 2, 1, 1]


def _one(problem: Any, answers: dict[str, Any]) -> Any:
    return check(problem, answers, "a.toml").results


def _cs336() -> Any:
    return load_problem(CS336)


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        (UNWEIGHTED, "bpe_unweighted"),
        (TRUE_PAIRS, None),  # right
        ([7, 7, 8, 2, 3, 3, 3, 9, 9, 6, 5], None),  # a typo in the true table
        ([2, 2, 2, 1, 1, 1, 1, 2, 2, 1, 2], None),  # the slip's table with a typo
    ],
)
def test_pair_counts_not_weighted(answer: list[int], named: str | None) -> None:
    r = _one(_cs336(), {"1.pairs": answer})[0]
    assert r.mistake == named, r.note
    assert r.verdict == ("correct" if answer == TRUE_PAIRS else "wrong")
    if named:
        assert "not weighted by how often the word occurs" in r.note


ACROSS = {"kind": "bpe", "given": {"corpus": "ab ba ab ab", "merges": 1}}


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        # a b: ab ×3; b a: ba ×1, and across words b|a in "ab ab" once more (a|b of "ba ab" is a b? no: "ba" ends
        # in a, "ab" starts with a: a a, not a row; "ab ba": b b, not a row): [3, 2]
        ([3, 2], "bpe_across_words"),
        ([3, 1], None),
        ([3, 3], None),
        ([4, 1], None),
    ],
)
def test_pairs_counted_across_words(answer: list[int], named: str | None) -> None:
    r = _one(parse_problem(ACROSS, "a.toml"), {"1.pairs": answer})[0]
    assert r.mistake == named, r.note
    if named:
        assert "across words" in r.note


@pytest.mark.parametrize(
    ("tie", "answer", "named"),
    [
        ("greater", "e s", "bpe_tie_other"),  # e s and s t tie at 9: e s occurs first
        ("greater", "o w", None),  # 7: not a tied pair (w e would be: the largest count unweighted)
        ("greater", "s t", None),  # right
        ("first", "s t", "bpe_tie_other"),  # s t is the greater of the two
        ("first", "e r", None),
    ],
)
def test_the_other_tie_rule(tie: str, answer: str, named: str | None) -> None:
    raw = {"kind": "bpe", "given": {"words": {"low": 5, "lower": 2, "widest": 3, "newest": 6}, "merges": 2, "tie": tie}}
    r = _one(parse_problem(raw, "a.toml"), {"1.merge": answer})[0]
    assert r.mistake == named, r.note
    right = {"greater": "s t", "first": "e s"}[tie]
    assert r.verdict == ("correct" if answer == right else "wrong")
    if named:
        assert "tie was broken the other way" in r.note


def test_a_named_tie_slip_is_carried_to_the_words() -> None:
    """After e s (the other rule), the words are l o w, l o w e r, w i d es t, n e w es t: carried."""
    res = _one(_cs336(), {"1.merge": "e s", "1.words": ["l o w", "l o w e r", "w i d es t", "n e w es t"]})
    assert [r.verdict for r in res] == ["wrong", "carried"]
    assert res[0].mistake == "bpe_tie_other" and res[1].mistake is None
    # the same words with one cut wrong: not carried
    res = _one(_cs336(), {"1.merge": "e s", "1.words": ["l o w", "l o w e r", "w i d es t", "n e w e s t"]})
    assert res[1].verdict == "wrong"


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        (["ne", "st"], "bpe_greedy_longest"),  # nest: the longest known token from the left is ne, then st
        (["n", "est"], None),  # right: s t, then e st; n e never meets
        (["ne", "s", "t"], None),
        (["nest"], None),
    ],
)
def test_encoding_greedily_by_length(answer: list[str], named: str | None) -> None:
    r = _one(_cs336(), {"encode.2": answer})[0]
    assert r.mistake == named, r.note
    assert r.verdict == ("correct" if answer == ["n", "est"] else "wrong")


def test_an_answer_as_one_string_of_tokens() -> None:
    """A list answer joined with ", " is the same answer: the merge list as one string is graded too."""
    res = _one(
        _cs336(), {"merges": "s t, e st, o w, l ow, w est, n e", "vocab": ["st", "est", "ow", "low", "west", "ne"]}
    )
    assert [r.verdict for r in res] == ["correct", "correct"]


def test_a_merge_from_unweighted_counts_is_named_there() -> None:
    """Unweighted, l o, o w, w e, e s, s t all count 2 (each distinct word once), and the greatest is w e."""
    r = _one(_cs336(), {"1.merge": "w e"})[0]
    assert r.mistake == "bpe_unweighted", r.note


# ----------------------------------------------------------------- generate
def test_generate_makes_variants_check_accepts_each_with_a_tie_that_matters() -> None:
    """Every variant's key is all correct under check; learning with the other tie rule gives other
    merges (by the reference of test_bpe.py, written from Sennrich et al.'s Algorithm 1); every word to
    encode is changed by some merge; and the same seed draws the same variants."""
    import collections

    import attncalc

    from ..kinds.test_bpe import encode_ref, reference

    variants = attncalc.generate(kind="bpe", count=6, seed=11)
    assert [v.problem for v in variants] == [v.problem for v in attncalc.generate(kind="bpe", count=6, seed=11)]
    for v in variants:
        g = v.problem["given"]
        counts = dict(collections.Counter(g["corpus"].split()))
        mine = reference(counts, g["merges"], g["tie"])["merge"]
        other = reference(counts, g["merges"], "first" if g["tie"] == "greater" else "greater")["merge"]
        assert len(mine) == g["merges"] and mine != other, g
        assert v.derivation["merges"] == ", ".join(" ".join(m) for m in mine)
        for i, w in enumerate(g["encode"], 1):
            assert len(encode_ref(w, mine)) < len(w), (w, mine)
            assert v.derivation.step(f"encode.{i}").labels == tuple(encode_ref(w, mine))
        report = check(parse_problem(v.problem, "v.toml"), v.key, "key.toml")
        assert report.all_correct, [r.note for r in report.results if r.verdict != "correct"]


def test_a_merge_right_for_the_answerers_own_counts_is_carried() -> None:
    """w e counted 10 instead of 8 (a typo): its largest count makes w e the merge, right for those counts."""
    wrong = [7, 7, 10, 2, 3, 3, 3, 9, 9, 6, 6]
    res = _one(
        _cs336(), {"1.pairs": wrong, "1.merge": "w e", "1.words": ["l o w", "l o we r", "w i d e s t", "n e we s t"]}
    )
    assert [r.verdict for r in res] == ["wrong", "carried", "carried"], [r.note for r in res]
    assert res[0].mistake is None


def test_a_wrong_merge_with_no_slip_says_what_the_step_gives() -> None:
    """Right counts, then w e (8, not the largest): no slip fits the answerer's own counts; the note
    says the merge and why (the tie of e s and s t at 9, broken to the greater)."""
    res = _one(_cs336(), {"1.pairs": TRUE_PAIRS, "1.merge": "w e"})
    r = res[1]
    assert r.verdict == "wrong" and r.mistake is None, r.note
    assert r.note.startswith("Merge 1: the chosen pair: s t, not w e.") and "both have 9" in r.note
    assert "beam" not in r.note and "probabilit" not in r.note


def test_tokens_are_read_whatever_the_spacing() -> None:
    """What a student types in a field: spaces around the tokens, two spaces, no space after a comma.
    CS336's first merge is s t (9: widest 3 + newest 6, the lexicographically greater of the ties), and
    after it the words are l o w, l o w e r, w i d e st, n e w e st (counted by hand above)."""
    answers = {"1.merge": "  s   t ", "1.words": "l o w,l o w e r ,  w i d e  st,n e w e st "}
    assert [r.verdict for r in _one(_cs336(), answers)] == ["correct", "correct"]
    wrong = _one(_cs336(), {"1.merge": "st", "1.words": "l o w, l o w e r, w i d est, n e w e st"})
    assert [r.verdict for r in wrong] == ["wrong", "wrong"]  # the tokens themselves still count


def test_a_list_of_single_tokens_may_be_written_with_spaces() -> None:
    """CS336 encodes newest as ne west and the new tokens are st, est, ow, low, west, ne (counted by
    hand above): in such lists a space separates tokens as a comma does (the words step writes
    newest's tokens "ne west"); in a list of words or pairs it does not."""
    res = _one(
        _cs336(), {"encode.1": "ne west", "vocab": "st est ow low west ne", "merges": "s t e st o w l ow w est n e"}
    )
    assert {r.id: r.verdict for r in res} == {"encode.1": "correct", "vocab": "correct", "merges": "wrong"}


def test_a_comma_token_is_not_taken_for_a_separator() -> None:
    """A corpus whose words hold a comma: "a,b" is the tokens a , b; its spaces are read as written."""
    from attncalc.check.answers import tokens_as_written

    assert tokens_as_written("a  , b", ("a , b",)) == "a , b"
    assert tokens_as_written("l o w,n e w", ("l o w", "n e w")) == "l o w, n e w"
    raw = {"kind": "bpe", "given": {"words": {"a,b": 3, "ab": 2}, "merges": 1}, "settings": {"decimals": 0}}
    problem = parse_problem(raw, "p.toml")
    # pairs: a , (3), , b (3), a b (2): the tie goes to the lexicographically greater, ("a", ",") as
    # "a" > "," (0x61 > 0x2C); the words become "a," "b" and "a" "b", written "a, b, a b"
    res = _one(problem, {"1.merge": " a  , ", "1.words": "a,  b, a  b"})
    assert [r.verdict for r in res] == ["correct", "correct"], [r.note for r in res]
    res = _one(problem, {"1.words": "a,b, a b"})  # "a,b" is one token here, not two items
    assert [r.verdict for r in res] == ["wrong"]


@pytest.mark.parametrize("n", [1, 9, 17])
def test_a_pair_table_of_another_length_is_measured_against_the_page_not_the_pairs(
    cli: Any, tmp_path: Path, n: int
) -> None:
    """Merge 2's table in CS336 has 10 true pairs (after s t); the page asks 16 places (the corpus's
    adjacent places). A list of another length is refused against the 16, never saying 10 (which would
    give merge 1 away)."""
    f = tmp_path / "a.toml"
    f.write_text('"2.pairs" = [' + ", ".join(["1"] * n) + "]\n", encoding="utf-8")
    r = cli("check", str(PROBLEMS / "bpe-cs336.toml"), str(f))
    assert r.exit_code == 2 and "a list of 16 entries (the page's size)" in r.stderr and f"got {n}" in r.stderr
    assert "10" not in r.stderr.split("2.pairs:", 1)[1]
