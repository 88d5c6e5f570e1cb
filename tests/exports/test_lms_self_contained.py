"""Every LMS item can be answered from the item alone, and no item prints its own answer.

Moodle and Canvas classic draw a random variant per question slot, so the ``weights`` item may be the
only one of its variant a student sees: it must say what ``e`` (and ``e′``) and ``Z`` are, as formulas,
never as values. And a step whose formula is its value (accounting's ``N_pos = 0`` for RoPE, ``N_head = 0``
for a tied head) is asked in words: no item shows ``= <its key>``.

The symbols are read from the formulas here, independently of the exporter: a step's symbol on the
right of a formula (``e`` in ``exp(e_i)``, with or without a running index) names that step, unless a
given has that symbol.
"""

from __future__ import annotations

import html
import itertools
import re
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pytest

from attncalc import kinds
from attncalc.derivation import Derivation, Step
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.reports.lms import questions
from attncalc.reports.lms_numbers import Number
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.qti import qti_zip
from attncalc.reports.qti12 import qti12_zip

from .test_lms_givens import _qti12_texts, _qti_texts

CASES = [
    *[(k, {}) for k in kinds.with_drawer() if k != "decode"],
    *[("decode", {"strategy": s}) for s in ("greedy", "sample", "top-k", "top-p", "beam")],
    ("attention", {"score": "scaled-dot", "head": True}),
    ("accounting", {"count": 2}),
]
IDS = [f"{k}-{'-'.join(str(v) for v in e.values())}" for k, e in CASES]
NAME = re.compile(r"[^\W\d_][\w'′\u0300-\u036f]*")


def _plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def _right(formula: str) -> str:
    return formula.split("=", 1)[1] if "=" in formula else formula


def _uses(formula: str, symbol: str) -> bool:
    """The symbol on the right of the formula, alone or with a running index (e in exp(e_i), S' in S'_ij)."""
    pattern = rf"(?<![\w'′]){re.escape(symbol)}(?:_[a-z](?:,?[a-z])?)?(?![\w'′\u0300-\u036f])"
    return re.search(pattern, _right(formula)) is not None


def _needed(d: Derivation, at: int) -> list[Step]:
    """The earlier steps the formula of step ``at`` uses, and those they use, back to the givens: per
    symbol the step of that symbol before the one that uses it in the same part (head.1's A for
    head.1.grad_V), else the latest."""
    given = {i.symbol for i in d.inputs}
    out: list[Step] = []
    todo = [at]
    while todo:
        k = todo.pop()
        step = d.steps[k]
        for symbol in {s.symbol for s in d.steps[:k]}:
            if (
                symbol == step.symbol
                or symbol in given
                or not NAME.fullmatch(symbol)
                or not _uses(step.formula, symbol)
            ):
                continue
            same = [i for i in range(k) if d.steps[i].symbol == symbol]
            j = max(same, key=lambda i: (_common(d.steps[i].id, step.id), i))
            if d.steps[j] not in out:
                out.append(d.steps[j])
                todo.append(j)
    return out


def _common(a: str, b: str) -> int:
    """How many leading dotted parts two step ids share."""
    pairs = zip(a.split("."), b.split("."), strict=False)
    return sum(1 for _ in itertools.takewhile(lambda p: p[0] == p[1], pairs))


def _defined(text: str, d: Derivation, step: Step) -> bool:
    """The item states what the step is: the formula of a step of its symbol, or its title in words."""
    same = [s for s in d.steps if s.symbol == step.symbol]
    return any(s.formula in text for s in same) or step.title.lower() in text.lower()


def _moodle_items(d: Derivation) -> dict[str, list[str]]:
    """Per step id, the plain text of each of its Moodle questions."""
    out: dict[str, list[str]] = {}
    for q in ET.fromstring(moodle_xml([d], seed=3)).findall("question"):
        if q.get("type") == "category":
            continue
        name = q.find("name/text").text or ""
        sid = re.search(r"\[([^\]]+)\]", name.split(":", 1)[1]).group(1)  # type: ignore[union-attr]
        out.setdefault(sid, []).append(_plain(q.find("questiontext/text").text or ""))
    return out


def _draw(kind: str, extra: dict[str, Any]) -> list[Derivation]:
    extra = dict(extra)
    count = extra.pop("count", 1)
    return generate(Options(kind=kind, dim=default_dim(kind), seed=5, count=count, **extra)).derivations


@pytest.mark.parametrize(("kind", "extra"), CASES, ids=IDS)
def test_every_symbol_an_item_uses_is_defined_in_it(kind: str, extra: dict[str, Any]) -> None:
    for d in _draw(kind, extra):
        items = _moodle_items(d)
        qti = [_plain(t) for t in _qti_texts(qti_zip([d], seed=3))]
        qti12 = [_plain(t) for t in _qti12_texts(qti12_zip([d], seed=3))]
        index = {s.id: k for k, s in enumerate(d.steps)}
        for q in questions(d, 1):
            needed = _needed(d, index[q.step_id])
            assert items[q.step_id], q.step_id
            for fmt, texts in (
                ("moodle", items[q.step_id]),
                ("qti", [t for t in qti if f"[{q.step_id}]" in t]),
                ("qti12", [t for t in qti12 if f"[{q.step_id}]" in t]),
            ):
                assert texts, (fmt, q.step_id)
                for text in texts:
                    missing = [s.id for s in needed if not _defined(text, d, s)]
                    assert not missing, (fmt, q.step_id, missing, text[-600:])


def test_the_scaled_weights_item_says_what_e_prime_and_z_are() -> None:
    """The tryout's case: attention --head --score scaled-dot, the weights item in Moodle."""
    (d, *_) = _draw("attention", {"score": "scaled-dot", "head": True})
    text = _moodle_items(d)["weights"][0]
    assert "e'_i = e_i / √d_k" in text and "e_i = s · h_i" in text and "Z = Σ_j exp(e'_j)" in text, text
    logits = _moodle_items(d)["logits"][0]
    assert "u = s + c" in logits and "c = Σ_i α_i h_i" in logits, logits


def _states_value(step: Step) -> bool:
    """A formula whose right side is a number equal to the step's value (N_pos = 0)."""
    if "=" not in step.formula or isinstance(step.value, str):
        return False
    right = step.formula.split("=", 1)[1].strip()
    if not re.fullmatch(r"-?\d+(\.\d+)?", right):
        return False
    value = np.ravel(np.asarray(step.value, dtype=float))
    return value.size == 1 and float(right) == float(value[0])


@pytest.mark.parametrize(("kind", "extra"), CASES, ids=IDS)
def test_no_item_shows_its_own_answer_as_a_formula(kind: str, extra: dict[str, Any]) -> None:
    for d in _draw(kind, extra):
        items = _moodle_items(d)
        told = [s for s in d.steps if _states_value(s)]  # a formula that is its value, cited nowhere
        for q in questions(d, 1):
            asked = [e for e in q.asked if isinstance(e, Number)]
            for text, e in zip(items[q.step_id], q.asked, strict=True):
                text = text[text.index("Compute") :]  # what is asked (a given may say its size: c = 5 tokens)
                if isinstance(e, Number):  # "N_pos = 0": the step's own name, then its key
                    names = {q.step.symbol, q.step.formula.split("=", 1)[0].strip()}
                    for name in names:
                        own = rf"(?<![\w'′]){re.escape(name)}\s*=\s*{re.escape(e.key)}(?=[.,;](\s|$)|$)"  # (not "BP = 1 if c > r")
                        assert not re.search(own, text), (q.step_id, e.key, text[-400:])
                for s in told:
                    assert s.formula not in text, (q.step_id, s.formula)
            assert asked or q.asked


def test_accounting_asks_a_zero_in_words() -> None:
    """RoPE's position table and a tied head: 0 parameters, asked as what they are, never as ``= 0``."""
    ds = _draw("accounting", {"count": 3})
    zero = [(d, s) for d in ds for s in d.steps if s.id in ("positions", "lm_head") and _states_value(s)]
    assert zero  # the draw holds such a step (else the test tests nothing)
    for d, s in zero:
        text = _moodle_items(d)[s.id][0]
        assert f"{s.title.lower()}" in text.lower() and f"{s.symbol} = 0" not in text, text[-300:]


# a symbol of a formula: a letter (Latin or Greek), its subscript and primes (K, Ψ, N_d, π_ref, p'); not a
# function's name (exp(, max() nor part of a longer word
_SYMBOL = re.compile(r"(?<![\w'′])([A-Za-z\u0391-\u03c9])((?:_[\w,()−-]+)?)(['′]*)(?![\w\u0300-\u036f(])")
# names the scan still finds undefined in some kind's items, left for a follow-up: a summation's or a
# formula's running index, prose notation (π(y_w | x)), or a count the item says in words (G outputs).
# A name outside this list (a new kind's constant, or accounting's K and Ψ again) fails the test.
_KNOWN_UNDEFINED = {
    "softmax": {"B", "y_i"},
    "sequence": {"T"},
    "seq2seq": {"b_h", "b_r", "b_z", "e_1,j", "e_2,j", "p_1(B", "p_2(B", "p_t"},
    "transformer-layer": {"x"},
    "bleu": {"g", "n", "r"},
    "bpe": {"a", "b", "w"},
    "attention-backward": {"O", "c", "r"},
    "quantization": {"w"},
    "dpo": {"n", "x", "y_l", "y_w", "π_ref(y_l", "π_ref(y_w"},
    "grpo": {"o_i", "π", "π_old", "π_ref"},
    "speculative": {"i"},
    "moe": {"e", "n", "r"},
    "decode": {"i", "u"},
}


def _undefined(text: str, formula: str, known: set[str]) -> list[str]:
    """The symbols on the right of ``formula`` that are neither ``known`` (a given, an earlier step's symbol),
    an entry of a known matrix (q_i of Q), a sum (Σ_j), nor defined in ``text`` (``K = ...``, ``V: ...``)."""
    out = []
    for m in _SYMBOL.finditer(_right(formula)):
        letter, sub, primes = m.group(1), m.group(2).rstrip(",)²"), m.group(3)
        name, base = letter + sub + primes, letter + primes
        if letter == "Σ" or (letter.islower() and sub and letter.upper() in known):
            continue
        if {name, base, letter + sub} & known:
            continue
        said = rf"(?<![\w'′])(?:{re.escape(name)}|{re.escape(base)}(?:_\w+)?)\s*[=:]"
        if not re.search(said, text):
            out.append(name)
    return out


@pytest.mark.parametrize(("kind", "extra"), CASES, ids=IDS)
def test_every_constant_an_item_formula_names_is_a_given_a_step_or_defined(kind: str, extra: dict[str, Any]) -> None:
    """Accounting's per-device memory used P, G, K and Ψ, defined only in its feedback."""
    for d in _draw(kind, extra):
        items = _moodle_items(d)
        given = {i.symbol for i in d.inputs}
        index = {s.id: k for k, s in enumerate(d.steps)}
        for q in questions(d, 1):
            known = given | {s.symbol for s in d.steps[: index[q.step_id] + 1]}
            missing = set(_undefined(items[q.step_id][0], q.formula, known))
            assert missing <= _KNOWN_UNDEFINED.get(kind, set()), (
                q.step_id,
                missing - _KNOWN_UNDEFINED.get(kind, set()),
            )


def _problem_items(name: str) -> tuple[Derivation, dict[str, list[str]]]:
    from ..helpers import solve_file

    d = solve_file(name)
    return d, _moodle_items(d)


@pytest.mark.parametrize("name", ["accounting-chinchilla.toml", "accounting-llama2-70b.toml"])
def test_the_per_device_memory_item_defines_its_constants(name: str) -> None:
    """ZeRO (Rajbhandari et al. 2020, section 3.1): mixed-precision Adam keeps 2 bytes of fp16/bf16 weights and
    2 of gradients a parameter (P, G) and K = 12 of optimizer state (fp32 copy 4, two moments 4 + 4); Ψ is the
    parameter count. Both problem files train in bf16 mixed precision."""
    d, items = _problem_items(name)
    text = items["memory.per_device"][0]
    assert "Ψ = N" in text and "P = G = 2 bytes" in text and "K = 12 bytes" in text, text[-500:]
    for q in questions(d, 1):
        known = {i.symbol for i in d.inputs} | {s.symbol for s in d.steps}
        assert not _undefined(items[q.step_id][0], q.formula, known), (q.step_id, items[q.step_id][0][-300:])


def test_a_step_said_in_words_is_not_cited_as_an_equation() -> None:
    """bpe's items read "where words = the pair becomes one token wherever it occurs inside a word", an
    equation that defines a symbol by a sentence (the eighth TA tryout); a step said in words is cited
    "words: the pair becomes ..."."""
    asked = 0
    for d in generate(Options(kind="bpe", dim=default_dim("bpe"), seed=3, count=2)).derivations:
        for q in questions(d, 1):
            asked += "where words: the pair becomes one token" in q.ask or "; words: the pair becomes" in q.ask
            assert "words = the pair becomes" not in q.ask, q.ask
            assert "merges = merge r = " not in q.ask, q.ask  # (cited "merges: merge r = the pair ...")
    assert asked > 0
