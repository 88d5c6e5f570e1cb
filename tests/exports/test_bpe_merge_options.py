"""A bpe merge question's options do not tell which pair the merge before it chose.

Merge r + 1's options are pairs of the corpus after merge r: offered merge r + 1's candidates alone,
the only token of merge r's candidates they hold is merge r's key ("e st" holds "st": merge 1 was
"s t"), so in a quiz that gives a student one whole variant (moodle-cloze, qti, newquizzes) merge r + 1
answered merge r. Now they also hold pairs the corpus would have had, had merge r been one of its other
candidates ("es t" had it been "e s"): each such pair is a pair of adjacent tokens of the corpus as
that merge would leave it (worked out here from the words before merge r), or two tokens of the words
before merge r or made by one of merge r's candidates, every candidate alike (offered where the key would
otherwise be the greatest or least option).
"""

from __future__ import annotations

from typing import Any

import pytest

from attncalc.homework.generate import Options, default_dim, generate
from attncalc.reports.lms import Choice, questions

SEEDS = (5, 12, 13, *range(100, 120))


def _apply(seg: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    """The pair merged left to right without overlap (Sennrich et al.)."""
    out: list[str] = []
    i = 0
    while i < len(seg):
        if i + 1 < len(seg) and (seg[i], seg[i + 1]) == pair:
            out.append(seg[i] + seg[i + 1])
            i += 2
        else:
            out.append(seg[i])
            i += 1
    return tuple(out)


def _pairs(segs: list[tuple[str, ...]]) -> set[tuple[str, str]]:
    return {(s[i], s[i + 1]) for s in segs for i in range(len(s) - 1)}


def _split(label: str) -> tuple[str, str]:
    a, b = label.split(" ", 1)
    return a, b


@pytest.fixture(scope="module")
def drawn() -> list[Any]:
    out = []
    for seed in SEEDS:
        out += generate(Options(kind="bpe", dim=default_dim("bpe"), seed=seed, count=1)).derivations
    return out


def _merge_questions(d: Any) -> dict[int, Choice]:
    out = {}
    for q in questions(d, 1):
        if q.step_id.endswith(".merge"):
            (choice,) = q.asked
            assert isinstance(choice, Choice)
            out[int(q.step_id.split(".")[0])] = choice
    return out


def _words_before(d: Any, r: int) -> list[tuple[str, ...]]:
    """The words before merge r: the corpus's symbols (merge 1), else as merge r - 1 left them."""
    if r == 1:
        return [tuple(w.split(" ")) for w in _first_words(d)]
    return [tuple(x.split(" ")) for x in d.step(f"{r - 1}.words").labels]


def _first_words(d: Any) -> list[str]:
    """The words before merge 1: merge 1's words with merge 1 undone (each token of it split back)."""
    a, b = _split(str(d.step("1.merge").value))
    out = []
    for label in d.step("1.words").labels:
        tokens: list[str] = []
        for t in label.split(" "):
            tokens += [a, b] if t == a + b else [t]
        out.append(" ".join(tokens))
    return out


def test_merge_options_do_not_single_out_the_previous_key(drawn: list[Any]) -> None:
    asked = singled = 0
    for d in drawn:
        choices = _merge_questions(d)
        for r in sorted(choices):
            if r + 1 not in choices:
                continue
            candidates = [_split(x) for x in d.step(f"{r}.merge").labels]
            key = _split(str(d.step(f"{r}.merge").value))
            if len(candidates) < 2:
                continue
            asked += 1
            held = {t for o in choices[r + 1].options for t in _split(o)}
            others = {"".join(c) for c in candidates if c != key}
            if "".join(key) in held and not others & held:
                singled += 1
    print(f"merge r + 1's options single out merge r's key in {singled} of {asked} questions")
    assert asked >= 20
    assert singled <= 0.25 * asked


def test_every_added_pair_is_a_pair_of_the_corpus_another_merge_would_leave(drawn: list[Any]) -> None:
    for d in drawn:
        choices = _merge_questions(d)
        for r in sorted(choices):
            if r + 1 not in choices:
                continue
            before = _words_before(d, r)
            after = [_apply(s, _split(str(d.step(f"{r}.merge").value))) for s in before]
            plausible = _pairs(after)  # merge r + 1's candidates and every pair it counted
            for c in d.step(f"{r}.merge").labels:
                plausible |= _pairs([_apply(s, _split(c)) for s in before])
            # or two tokens of the words before merge r or made by one of its candidates, each alike (a pair of
            # greater or lesser symbols than the key's, offered so the key is not the greatest or least option)
            known = {t for s in before for t in s} | {"".join(_split(c)) for c in d.step(f"{r}.merge").labels}
            plausible |= {(a, b) for a in known for b in known if a != b}
            # or a named slip's merge (the other tie rule made once, its chain's merges after it): what a
            # student with that slip writes, listed at the slip share or carried (lms_label_slips)
            slipped = {o for o, _, _ in choices[r + 1].slips}
            for option in choices[r + 1].options:
                assert _split(option) in plausible or option in slipped, (r + 1, option)
            assert set(choices[r + 1].correct) <= set(choices[r + 1].options)
