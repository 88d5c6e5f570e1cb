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
from .test_lms_slip_chain import SEEDS, _chain, _cloze_score, _flat, _moodle_score
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


@pytest.mark.parametrize("carried", [0.0, 0.5, 1.0])
def test_a_slips_chain_earns_the_carried_share_in_check_moodle_cloze_and_qti21(carried: float) -> None:
    d, given = _attention(SEEDS[0], carried)
    answers = _chain(given, "no_scale")  # the scores not divided by √d_k, every later step from them
    # written with their 3 decimals, as the quiz's numbers are typed (a TOML 0.0 would stand for ±0.05)
    written = {
        k: np.vectorize(lambda x: f"{x:.3f}", otypes=[object])(np.asarray(v)).tolist() for k, v in answers.items()
    }
    rep = check(d.problem, written, "a.toml")
    ids = [r.id for r in rep.results]
    at = ids.index("scaled_scores")
    # check: the slip charged once at its share, every later step carried at the carried share
    assert [r.credit for r in rep.results[:at]] == [1.0] * at
    assert rep.results[at].credit == SLIP and rep.results[at].mistake
    later = rep.results[at + 1 :]
    assert later and all(r.verdict == "carried" for r in later), [(r.id, r.verdict) for r in later]
    # each entry on its own: one equal to the key (at 3 decimals) earns it all, the others the carried share
    key = {s["id"]: s["shown"] for s in to_dict(d)["steps"]}
    expected = float(at) + SLIP
    for r in later:
        mine, truth = np.ravel(answers[r.id]), np.ravel(np.asarray(key[r.id], dtype=float))
        right = int(np.sum(np.abs(mine - truth) < 5e-4))
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
    allowance = other_slip_allowance(d, answers, key, unweighted, flipped, carried - SLIP)
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
