"""No LMS choice question gives its answer away, in any kind or format.

A choice question (a label: a prediction, a decoded token, a beam, a bpe merge, word or vocabulary
item, an encoded word) reveals its key when it offers one option only, or only right ones; when its
options are in an order the student can read the key from (the key of "merges, rank k" as the k-th
option, the right option always in the same place); when the LMS is told not to shuffle them; or when
its options list another question's keys in their order (the learned merges in order). Each format is
read as its importer reads it: Moodle's ``multichoice`` answers and ``shuffleanswers``, QTI 2.1's
``simpleChoice`` and the identifiers its response processing matches, QTI 1.2's ``response_label`` and
the ``varequal`` that sets a score.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

from attncalc import kinds
from attncalc.derivation import Argmax
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.reports.lms import shape
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.newquizzes import newquizzes_zips
from attncalc.reports.qti import qti_zip
from attncalc.reports.qti12 import ilias_zip, qti12_zip

SEEDS = (5, 7)
CASES = [
    (k, {"strategy": s} if s else {})
    for k in kinds.with_drawer()
    for s in (("greedy", "sample", "top-k", "top-p", "beam") if k == "decode" else ("",))
]


@dataclass
class Asked:
    title: str  # the question's name as the LMS lists it
    options: list[str]  # in the order written
    right: set[str]
    shuffled: bool


def _local(e: ET.Element) -> str:
    return e.tag.split("}")[-1]


def _moodle(xml: str) -> list[Asked]:
    out = []
    for q in ET.fromstring(xml).findall("question"):
        if q.get("type") != "multichoice":
            continue
        answers = [(a.findtext("text") or "", float(a.get("fraction", "0"))) for a in q.findall("answer")]
        out.append(
            Asked(
                q.findtext("name/text") or "",
                [t for t, _ in answers],
                {t for t, f in answers if f > 0},
                q.findtext("shuffleanswers") in ("true", "1"),
            )
        )
    return out


def _qti(data: bytes) -> list[Asked]:
    z = zipfile.ZipFile(io.BytesIO(data))
    out = []
    for name in z.namelist():
        root = ET.fromstring(z.read(name))
        if _local(root) != "assessmentItem":
            continue
        inter = next((e for e in root.iter() if _local(e) == "choiceInteraction"), None)
        if inter is None:
            continue
        ids = {c.get("identifier"): "".join(c.itertext()) for c in inter.iter() if _local(c) == "simpleChoice"}
        right = set()
        for cond in (e for e in root.iter() if _local(e) == "responseIf"):
            gives = any(_local(s) == "setOutcomeValue" and s.get("identifier") == "SCORE" for s in cond)
            if gives:
                right |= {ids[b.text or ""] for b in cond.iter() if _local(b) == "baseValue" and b.text in ids}
        out.append(Asked(root.get("title", ""), list(ids.values()), right, inter.get("shuffle") == "true"))
    return out


def _qti12(data: bytes) -> list[Asked]:
    z = zipfile.ZipFile(io.BytesIO(data))
    out = []
    for name in z.namelist():
        root = ET.fromstring(z.read(name))
        for item in (e for e in root.iter() if _local(e) == "item"):
            render = next((e for e in item.iter() if _local(e) == "render_choice"), None)
            if render is None:
                continue
            labels = {
                lab.get("ident"): "".join(m.text or "" for m in lab.iter() if _local(m) == "mattext")
                for lab in render
                if _local(lab) == "response_label"
            }
            right = set()
            for cond in (e for e in item.iter() if _local(e) == "respcondition"):
                score = [float(s.text or 0) for s in cond if _local(s) == "setvar"]
                if score and score[-1] > 0:
                    right |= {labels[v.text or ""] for v in cond.iter() if _local(v) == "varequal"}
            out.append(Asked(item.get("title", ""), list(labels.values()), right, render.get("shuffle") == "Yes"))
    return out


WRITERS = {
    "moodle": lambda ds, seed: _moodle(moodle_xml(ds, seed)),
    "qti": lambda ds, seed: _qti(qti_zip(ds, seed)),
    "qti12": lambda ds, seed: _qti12(qti12_zip(ds, seed)),
    "ilias": lambda ds, seed: _qti12(ilias_zip(ds, seed)),
    "newquizzes": lambda ds, seed: [a for z in newquizzes_zips(ds, seed).values() for a in _qti12(z)],
}


def _ranked(asked: list[Asked]) -> dict[str, list[tuple[int, Asked]]]:
    """The questions asked by rank ("Variant 1: Merges [merges] merges, rank 3"), by their step."""
    out: dict[str, list[tuple[int, Asked]]] = {}
    for a in asked:
        m = re.fullmatch(r"(.*), rank ([0-9]+)(?: \(the word .*\))?", a.title, re.S)
        if m:
            out.setdefault(m.group(1), []).append((int(m.group(2)), a))
    return out


def _contains_run(options: list[str], keys: list[str]) -> bool:
    return any(options[i : i + len(keys)] == keys for i in range(len(options) - len(keys) + 1))


@pytest.fixture(scope="module", params=CASES, ids=[f"{k}-{e.get('strategy', '')}".strip("-") for k, e in CASES])
def drawn(request: Any) -> list[Any]:
    kind, extra = request.param
    out = []
    # (a bpe quiz's variants must have pair tables of one size: seed 7 finds no third such variant, a
    # failure generate says in one line, docs/lms.md; seed 8 draws three)
    for s in (5, 8) if kind == "bpe" else SEEDS:
        ds = generate(
            Options(kind=kind, dim=default_dim(kind), seed=s, count=3, one_shape=True, **extra), shape
        ).derivations
        out.append(ds)
        if not any(isinstance(step, Argmax) for d in ds for step in d.steps):
            break  # the kind asks no label: one draw shows it
    return out


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_no_choice_question_gives_its_key_away(drawn: list[Any], fmt: str) -> None:
    for seed, ds in zip(SEEDS, drawn, strict=False):
        if not any(isinstance(s, Argmax) for d in ds for s in d.steps):
            continue  # a kind with no label asks no choice question (every choice is an Argmax step's)
        asked = WRITERS[fmt](ds, seed)
        assert asked, "a label step was asked as no choice question"
        for a in asked:
            assert a.shuffled, f"{a.title}: the LMS is told not to shuffle the options"
            assert len(set(a.options)) >= 2, f"{a.title}: one option only: {a.options}"
            assert set(a.options) - a.right, f"{a.title}: every option is right: {a.options}"
            assert a.right <= set(a.options), a.title
        ranked = _ranked(asked)
        for step, qs in ranked.items():
            qs.sort(key=lambda x: x[0])
            keys = [next(iter(a.right)) for _, a in qs if len(a.right) == 1]
            at_rank = [r - 1 < len(a.options) and a.options[r - 1] in a.right for r, a in qs]
            assert len(qs) < 2 or not all(at_rank), f"{step}: the key of rank r is option r in every rank"
            if len(keys) >= 3 and len(keys) == len(qs):
                for a in asked:  # no question lists this list's keys in their order
                    assert not _contains_run(a.options, keys), f"{a.title} lists the keys of {step} in order"
        # the right option does not sit in one place throughout (over the questions with 3 options or more)
        places = [a.options.index(next(iter(a.right))) for a in asked if len(a.options) >= 3 and len(a.right) == 1]
        if len(places) >= 6:
            most = Counter(places).most_common(1)[0][1]
            assert most <= 0.75 * len(places), (
                f"the key is option {Counter(places).most_common(1)[0][0] + 1} in {most} of {len(places)}"
            )


def test_the_order_is_the_same_for_the_same_set() -> None:
    ds = generate(Options(kind="bpe", dim=default_dim("bpe"), seed=5, count=2)).derivations
    again = generate(Options(kind="bpe", dim=default_dim("bpe"), seed=5, count=2)).derivations
    assert moodle_xml(ds, 5) == moodle_xml(again, 5)
    assert qti12_zip(ds, 5) == qti12_zip(again, 5)


def test_a_shuffle_that_lands_every_key_at_its_rank_is_turned() -> None:
    from attncalc.reports.lms import Choice, _off_rank

    ranked = (Choice("r1", ("a", "b", "c"), ("a",)), Choice("r2", ("a", "b", "c"), ("b",)))
    turned = _off_rank(ranked)
    assert turned[0] == ranked[0] and turned[1].options == ("b", "c", "a") and turned[1].correct == ("b",)
    fine = (Choice("r1", ("a", "b", "c"), ("b",)), Choice("r2", ("a", "b", "c"), ("b",)))
    assert _off_rank(fine) == fine  # rank 1's key is not option 1: left as shuffled
