"""``[grading] carried`` (``generate --carried-share``): what a step that follows from a slip made earlier
earns, in ``check`` and in every quiz alike.

A course may not want follow-through in a quiz: a choice question lists the labels of a slip's chain at
the carried share, so with full marks anyone who picks one earns them (docs/lms.md, "A slip at a choice").
With the carried share at 0 (or 0.5) check gives every carried step that share, and so must Moodle, Cloze
and QTI 2.1, entry by entry; QTI 1.2 gives full marks or none, so there a carried value earns none.

The students are built here, not by attncalc: the attention hand chain with the scores not divided by
√d_k (tests/exports/test_lms_slip_chain.py) and a bpe student who breaks the first tie that matters the
other way, every later merge worked from there (tests/exports/test_lms_label_slips.py, a BPE written from
Sennrich et al.). Each quiz is read as its importer grades it (the scorers of those tests).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.homework.generate import Options, generate
from attncalc.parse import load_problem
from attncalc.render.json import to_dict
from attncalc.reports.qti import qti_zip
from attncalc.reports.qti12 import qti12_zip

from ..helpers import ROOT
from .test_lms_label_slips import _bpe, _entries, other_slip_allowance
from .test_lms_label_slips import _cloze_score as bpe_cloze
from .test_lms_label_slips import _moodle_score as bpe_moodle
from .test_lms_slip_chain import SEEDS, _chain, _cloze_score, _flat, _moodle_score, _seeds
from .test_qti import Package, by_step, score
from .test_qti12 import NS, assessment, canvas_numerical, step_of

SLIP = 0.5


def _attention(seed: int, carried: float) -> Any:
    res = generate(
        Options(kind="attention", score="scaled-dot", dim=4, seed=seed, count=1, slip_share=SLIP, carried_share=carried)
    )
    d = res.derivations[0]
    assert (d.problem.grading.slip, d.problem.grading.carried) == (SLIP, carried)
    return d, res.problems[0]["given"]


# the carried share at most the slip share: a value the chain shares with the key's last digits (NEAR) or
# with another slip made here earns the lesser share, as check gives either student, so the totals are equal
# for every seed; at 1 such a value keeps the slip share (documented), so seed 1 alone, which has none
CASES = [(seed, c, slip) for seed in _seeds(8) for c in (0.0, 0.5) for slip in ("no_scale", "no_sum")]
CASES += [(SEEDS[0], 1.0, "no_scale")]


@pytest.mark.parametrize(("seed", "carried", "slip"), CASES)
def test_a_slips_chain_earns_the_carried_share_in_check_moodle_cloze_and_qti21(
    seed: int, carried: float, slip: str
) -> None:
    d, given = _attention(seed, carried)
    answers = _chain(given, slip)  # the scores not divided by √d_k (or the weights by their sum), then on
    # written with their 3 decimals, as the quiz's numbers are typed (a TOML 0.0 would stand for ±0.05)
    written = {
        k: np.vectorize(lambda x: f"{x:.3f}", otypes=[object])(np.asarray(v)).tolist() for k, v in answers.items()
    }
    rep = check(d.problem, written, "a.toml")
    ids = [r.id for r in rep.results]
    at = ids.index("scaled_scores" if slip == "no_scale" else "weights")
    # check: the slip charged once at its share, every later step carried at the carried share
    assert [r.credit for r in rep.results[:at]] == [1.0] * at
    assert rep.results[at].credit == SLIP and rep.results[at].mistake
    later = rep.results[at + 1 :]
    assert later and all(r.verdict == "carried" for r in later), [(r.id, r.verdict) for r in later]
    # each entry on its own: one right earns it all, the others the carried share
    key = {s["id"]: s["shown"] for s in to_dict(d)["steps"]}
    expected = float(at) + SLIP
    for r in later:
        mine, truth = np.ravel(answers[r.id]), np.ravel(np.asarray(key[r.id], dtype=float))
        # right: the key, or a unit of its last decimal off (the hand chain from the rounded key: Σ weights
        # of 0.999, check's and the quiz's accepted values alike); no slip's entry lies that near here
        right = int(np.sum(np.abs(mine - truth) < 1.5e-3))
        assert r.credit == pytest.approx((right + carried * (mine.size - right)) / mine.size), (r.id, mine, truth)
        expected += (right + carried * (mine.size - right)) / mine.size
    assert rep.score == pytest.approx(expected)  # one point a step
    assert _moodle_score(d, answers) == pytest.approx(rep.score, abs=1e-5)
    assert _cloze_score(d, answers) == pytest.approx(rep.score, abs=1e-5)
    pkg = Package(qti_zip([d], seed=0))
    steps = by_step(pkg, pkg.sections[0])
    flat = _flat(answers)
    total = sum(score(it, {"RESPONSE": x}) for sid, its in steps.items() for it, x in zip(its, flat[sid], strict=True))
    assert total == pytest.approx(rep.score, abs=1e-5)


@pytest.mark.parametrize("carried", [0.0, 0.5])
def test_a_bpe_chains_labels_earn_the_carried_share_in_moodle_and_cloze(carried: float) -> None:
    """The bpe student of test_lms_label_slips (the first tie that matters broken the other way): every
    later merge, word and token of the student's own chain is carried in check at the carried share, and
    Moodle and Cloze give the chain's labels that share (the counts of the chain that another slip also
    gives from the true merges keep the slip share, the documented difference worked out entry by entry)."""
    from attncalc.reports.moodle import moodle_xml

    from .test_lms import moodle_questions

    for seed in (5, 6):
        res = generate(Options(kind="bpe", seed=seed, count=3, slip_share=SLIP, carried_share=carried))
        found = [(k, p) for k, p in enumerate(res.problems) if _bpe(p, True)[1] is not None]
        if found:
            break
    k, problem = found[0]
    d = res.derivations[k]
    answers, flipped, unweighted = _bpe(problem, True)
    key, _, _ = _bpe(problem, False)
    rep = check(d.problem, answers, "a.toml")
    charged = [r for r in rep.results if r.verdict != "correct"]
    assert charged[0].id == f"{flipped}.merge" and charged[0].credit == SLIP
    assert len(charged) > 3 and all(r.verdict == "carried" for r in charged[1:]), [(r.id, r.verdict) for r in charged]
    quiz = moodle_questions(moodle_xml([d], seed=0))
    # each item (a word, a merge, a token, a count) on its own, as each is its own question: one equal to
    # the key's earns it all, the others the carried share
    for r in charged[1:]:
        n = len(quiz[r.id])
        mine, truth = _entries(answers, r.id, n), _entries(key, r.id, n)
        right = sum(m == t for m, t in zip(mine, truth, strict=True))
        assert r.credit == pytest.approx((right + carried * (n - right)) / n), (r.id, mine, truth)
    assert any(0 < r.credit < 1 for r in charged[1:] if r.id.endswith(".words"))  # a word kept, others carried
    # (a count another slip also gives keeps the slip share where that is the lesser: at 1, not here)
    allowance = other_slip_allowance(d, answers, key, unweighted, flipped, max(0.0, carried - SLIP))
    assert bpe_moodle(d, answers) == pytest.approx(rep.score - allowance, abs=1e-5)
    assert bpe_cloze(d, answers) == pytest.approx(rep.score - allowance, abs=1e-5)
    assert rep.score < rep.out_of - (1 - SLIP)  # the carried steps cost something (else this tests nothing)


def test_canvas_gives_a_carried_value_none_where_the_carried_share_is_below_1(tmp_path: Path) -> None:
    """decoder-dot with the weights not divided by their sum: the context worked from the exponentials
    [e, e², e²] is [e + e², 3e²] = [10.107, 22.167] (tests/exports/test_qti12.py). With full marks for a
    carried step Canvas accepts it; with `carried = 0.5` QTI 1.2 cannot give half, and gives none."""
    import dataclasses

    from attncalc.mechanisms import solve

    p = load_problem(ROOT / "problems" / "decoder-dot.toml")
    for share, accepted in ((1.0, True), (0.5, False), (0.0, False)):
        d = solve(dataclasses.replace(p, grading=dataclasses.replace(p.grading, carried=share)))
        items = [it for it in assessment(qti12_zip([d], 1)).iter(f"{NS}item") if step_of(it) == "context"]
        assert [canvas_numerical(it, x) for it, x in zip(items, [10.107, 22.167], strict=True)] == [accepted] * 2
        assert all(canvas_numerical(it, x) for it, x in zip(items, [0.578, 1.267], strict=True))  # the key


@pytest.mark.parametrize(
    ("fmt", "share", "said"),
    [
        ("moodle", "0.55", "--carried-share 0.55 is not one of Moodle's answer grades"),
        ("qti12", "0.5", "--format qti12 gives full marks or none, so a step carried from a slip earns 0"),
        ("newquizzes", "0.25", "--format newquizzes gives full marks or none"),
    ],
)
def test_generate_warns_where_a_format_cannot_give_the_carried_share(
    cli: Any, tmp_path: Path, fmt: str, share: str, said: str
) -> None:
    out = tmp_path / fmt
    args = ("generate", "--kind", "attention", "--out", str(out), "--count", "1", "--seed", "5", "--format", fmt)
    result = cli(*args, "--carried-share", share)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("attncalc: warning:")]
    assert len(warnings) == 1 and said in warnings[0], result.stderr
    assert f"carried = {float(share)}" in (out / "variant-01.toml").read_text()


@pytest.mark.parametrize(("fmt", "share"), [("moodle", "0.5"), ("moodle-cloze", "0"), ("qti", "0.3"), ("qti12", "0")])
def test_no_warning_where_the_format_gives_the_carried_share(cli: Any, tmp_path: Path, fmt: str, share: str) -> None:
    args = ("generate", "--kind", "attention", "--out", str(tmp_path / "o"), "--count", "1", "--seed", "5")
    result = cli(*args, "--format", fmt, "--carried-share", share)
    assert result.exit_code == 0, result.output
    assert "attncalc: warning:" not in result.stderr, result.stderr


@pytest.mark.parametrize("share", ["1.5", "-0.1", "nan"])
def test_a_carried_share_outside_0_to_1_is_refused(cli: Any, tmp_path: Path, share: str) -> None:
    args = ("generate", "--kind", "attention", "--out", str(tmp_path / "o"), "--count", "1")
    result = cli(*args, "--carried-share", share)
    assert result.exit_code == 2 and "--carried-share" in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize(("share", "carried"), [(0.0, True), (0.25, True), (0.5, False), (1.0, False)])
def test_a_chain_value_near_the_key_earns_the_lesser_share(share: float, carried: bool) -> None:
    """The eighth TA tryout's attention student (the 1/√d_k slip, --carried-share 0): a later value of the
    chain, 0.061, lies a unit from the key 0.060, so the quiz listed it at the slip share (0.5), where check
    gives the carried step 0: 3.17 in the quiz against 3.00. It now earns the lesser of the two shares."""
    from attncalc.reports.lms_numbers import _found

    slips = [("no_scale", "the 1/√d_k scale was left out", np.array([0.061]), np.array([True]))]
    (found,) = _found(slips, 0, ["0.060"], 3, 0.0005, share, SLIP)
    assert (found.value, found.carried) == ("0.061", carried)


@pytest.mark.parametrize("carried", [1.0, 0.5])
def test_a_beam_students_own_kept_labels_earn_the_carried_share_in_the_quiz(carried: float) -> None:
    """The ninth TA tryout: a beam student who multiplies the beam score by the log-probability (check's
    beam_multiplied) and ranks their own candidates right had their kept labels carried in check (2.5 of
    3) and at 0 in every quiz (1.5): a list of labels asked rank by rank now lists its chain's labels too.
    The student is built here from the variant's givens: candidates s_b · log p, kept the beam_width
    largest, ties to the earlier beam, then the earlier token (the order the question states)."""
    res = generate(Options(kind="decode", strategy="beam", seed=2026, count=1, slip_share=SLIP, carried_share=carried))
    d, g = res.derivations[0], res.problems[0]["given"]
    scores, logp = np.asarray(g["beam_scores"], dtype=float), np.asarray(g["beams"], dtype=float)
    cand = np.round(scores[:, None] * logp, 3)  # the slip: multiplied, not added
    order = sorted(np.ndindex(cand.shape), key=lambda bv: (-cand[bv], bv))[: int(g["beam_width"])]
    answers = {
        "candidates": [[f"{x:.3f}" for x in row] for row in cand],
        "kept_beams": [f"{cand[bv]:.3f}" for bv in order],
        "kept_labels": [f"beam {b + 1}: {g['vocab'][v]}" for b, v in order],
    }
    truth = [
        f"beam {b + 1}: {g['vocab'][v]}"
        for b, v in sorted(np.ndindex(logp.shape), key=lambda bv: (-(scores[bv[0]] + logp[bv]), bv))[
            : int(g["beam_width"])
        ]
    ]
    assert answers["kept_labels"] != truth  # the slip changes the labels (else this tests nothing)
    rep = check(d.problem, answers, "a.toml")
    assert rep.score == pytest.approx(SLIP + 2 * carried)  # three steps: the slip, then two carried
    flat = {**answers, "candidates": [x for row in answers["candidates"] for x in row]}  # one entry a question
    assert bpe_moodle(d, flat) == pytest.approx(rep.score, abs=1e-5)
    assert bpe_cloze(d, flat) == pytest.approx(rep.score, abs=1e-5)
