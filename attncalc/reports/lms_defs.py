"""What an LMS item states of the steps before it, so that it can be answered on its own.

Moodle and Canvas classic draw a random variant per question slot, so an item may be the only one of its
variant a student sees: an item asking ``α_i = exp(e_i) / Z`` must say what ``e`` and ``Z`` are. An item's
ask is its own formula followed by ``where ...``: the formulas (never the values) of the earlier steps whose
symbols its formula uses, and of the steps those use, back to the givens. A step's formula that states its
own value (``N_pos = 0``: the rule gives 0) is said in words instead, in its own item and wherever it is
cited, so no item prints an answer.
"""

from __future__ import annotations

import re

import numpy as np

from ..derivation import Derivation, Step
from ..derivation.fmt import lower_first

# a name as the formulas write one: a letter, then letters, digits, primes, combining marks and subscripts
# (e_i, S'_ij, W_Q, zc̃_1, dS'); a transpose mark is not part of it
_NAME = re.compile(r"[^\W\d_][\w'′\u0300-\u036f]*")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+")  # a step named by its id (r1 = x + self.output)
# a running index (e_i, S'_ij, c_n, ρ_i,t, p_ie), not a number (h_1) nor a name (W_Q, N_emb, N_d, r_w)
_INDEX = re.compile(r"_[ijkntre](?:,?[ijkntre])?(?![\w'])")
_NUMBER = re.compile(r"^[−-]?\d+(?:\.\d+)?$")


def _names(text: str) -> list[str]:
    return [m.group().rstrip("ᵀ") for m in _NAME.finditer(text)]


def _bare(name: str) -> str:
    """A name without its running index: e_i → e, S'_ij → S', h_1 stays h_1."""
    return _INDEX.sub("", name)


def rhs(formula: str) -> str:
    """What a formula computes from: the text after its first ``=`` (all of it when there is none)."""
    return formula.split("=", 1)[1] if "=" in formula else formula


def states_own_value(step: Step) -> bool:
    """The formula is its value: ``N_pos = 0`` (its right side a number equal to the step's value)."""
    if "=" not in step.formula or isinstance(step.value, str):
        return False
    right = step.formula.split("=", 1)[1].strip().replace("−", "-").replace(",", "")
    if not _NUMBER.match(right):
        return False
    with np.errstate(all="ignore"):
        values = np.ravel(np.asarray(step.value, dtype=float))
    return values.size == 1 and abs(float(values[0]) - float(right)) < 1e-9


def in_words(step: Step) -> str:
    """A step whose formula would state its value, said as what it asks."""
    lhs = step.formula.split("=", 1)[0].strip() or step.symbol
    return f"{lhs}, the {lower_first(step.title)} as the stated settings give it"


def asked_formula(step: Step) -> str:
    """The formula an item shows for its own step: the step's formula, or in words where it is its value."""
    return in_words(step) if states_own_value(step) else step.formula


def statement(step: Step) -> str | None:
    """How an item cites an earlier step: its formula (``e_i = s · h_i``), in words where the formula is its
    value; None where the formula only repeats its symbol (``exp(e_i)``: the names inside are followed)."""
    if states_own_value(step):
        return in_words(step)
    named = _NAME.fullmatch(step.symbol) is not None and step.formula.strip() != step.symbol
    if "=" in step.formula:
        lhs = {_bare(n) for n in _names(step.formula.split("=", 1)[0])}
        # "relu(a) = max(a, 0)" cited for h: "h = relu(a) = max(a, 0)"
        if named and _bare(step.symbol) not in lhs and _SENTENCE.fullmatch(step.formula.split("=", 1)[1].strip()):
            return f"{step.symbol}: {step.formula}"  # bpe's "merges: merge r = the pair chosen at merge r"
        return f"{step.symbol} = {step.formula}" if named and _bare(step.symbol) not in lhs else step.formula
    if named and _SENTENCE.fullmatch(step.formula.strip()):  # bpe's words: "the pair becomes one token ..."
        return f"{step.symbol}: {step.formula}"
    return f"{step.symbol} = {step.formula}" if named else None


# a formula that is a sentence in words (no symbol, operator or digit): cited as "words: ...", never
# "words = the pair becomes ...", which reads as an equation defining the symbol by a sentence
_SENTENCE = re.compile(r"[^\W\d_]+(?: [^\W\d_]+){3,}")


def _shared(a: str, b: str) -> int:
    """How many leading parts of two step ids agree (head.1.weights, head.1.scores: 2)."""
    n = 0
    for x, y in zip(a.split("."), b.split("."), strict=False):
        if x != y:
            break
        n += 1
    return n


def cited(d: Derivation, at: int) -> list[int]:
    """The earlier steps (indices into ``d.steps``) the formula of step ``at`` names, by symbol or by id;
    of several steps of one symbol, the one of the same part (head, time step, layer), else the latest."""
    steps = d.steps
    step = steps[at]
    given = {_bare(i.symbol) for i in d.inputs} | {i.symbol for i in d.inputs}
    # the step's own constants' definitions name steps too (Ψ = N)
    text = " ".join([rhs(step.formula), *(rhs(x) for x in step.defines)])
    bare = _INDEX.sub("", text)
    names = {_bare(n) for n in _names(text)}
    out: list[int] = []
    by_symbol: dict[str, list[int]] = {}
    for j in range(at):
        by_symbol.setdefault(steps[j].symbol, []).append(j)
    for symbol, idx in by_symbol.items():
        if symbol == step.symbol or symbol in given:
            continue
        if _NAME.fullmatch(symbol):
            hit = _bare(symbol) in names or symbol in names
        else:  # exp(e), ‖a‖, β r_w: the symbol as written, running indices aside
            sym = _INDEX.sub("", symbol)
            hit = bool(sym) and re.search(rf"(?<![\w']){re.escape(sym)}(?![\w'])", bare) is not None
        if hit:
            out.append(max(idx, key=lambda j: (_shared(steps[j].id, step.id), j)))
    for ref in _DOTTED.findall(text):
        found = next((j for j in range(at - 1, -1, -1) if steps[j].id == ref), None)
        if found is not None and found not in out:
            out.append(found)
    return sorted(out)


def where(d: Derivation, at: int) -> list[str]:
    """The formulas an item for step ``at`` states after its own, nearest first, each once: the constants
    its formula names (:attr:`Step.defines`), then every earlier step its formula uses, and every step those
    use, back to the givens (with their own constants)."""
    seen: set[int] = set()
    todo = list(reversed(cited(d, at)))
    order: list[int] = []
    while todo:
        j = todo.pop()
        if j in seen:
            continue
        seen.add(j)
        order.append(j)
        todo.extend(reversed(cited(d, j)))
    own = asked_formula(d.steps[at])
    out: list[str] = list(d.steps[at].defines)  # its own constants first (K = 12 bytes a parameter ...)
    for j in sorted(order, reverse=True):
        s = statement(d.steps[j])
        for x in [*([s] if s is not None else []), *d.steps[j].defines]:
            if x not in out and x != own:
                out.append(x)
    return out


def ask(d: Derivation, at: int) -> str:
    """An item's formula with what it needs: ``α_i = exp(e_i) / Z, where Z = Σ_j exp(e_j) and e_i = s · h_i``."""
    own = asked_formula(d.steps[at])
    defs = where(d, at)
    if not defs:
        return own
    listed = defs[0] if len(defs) == 1 else "; ".join(defs[:-1]) + "; and " + defs[-1]
    return f"{own}, where {listed}"
