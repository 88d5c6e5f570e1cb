"""The problems a simulated student works (tests/student_sim.py): drawn with each kind's own
homework drawer, run with the kind's own mechanism on an :class:`attncalc.derivation.arith.Chain`, and the
way a student writes numbers down.

Nothing here reads ``check``'s verdict logic (attncalc/check*.py, attncalc/check/points.py): the step
order, the values, which steps depend on which, and the slips a computation consults are found by
running the mechanism itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from attncalc.api import generate, problem_of
from attncalc.derivation import Stated
from attncalc.derivation.arith import Chain, MistakeNotApplicable, SlipProbe
from attncalc.kinds import KINDS
from attncalc.kinds.mistakes import every_mistake
from attncalc.mechanisms import MECHANISMS

# small problems per kind, the drawers' own options, cycled through by the drawn problems
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "attention": [{"tokens": 3, "head": True}, {"score": "scaled-dot", "values": "decimal"}, {"score": "additive"}],
    "self-attention": [{"tokens": 3}, {"tokens": 3, "mask": "causal", "score": "scaled-dot"}],
    "softmax": [{"tokens": 3}, {"tokens": 3, "label_smoothing": 0.1}, {"tokens": 3, "optimizer": "adamw"}],
    "sequence": [{"tokens": 3}],
    "rnn": [{"tokens": 2}, {"tokens": 2, "head": True}],
    "lstm": [{"tokens": 2}, {"tokens": 2, "layout": "pytorch"}],
    "gru": [{"tokens": 2}, {"tokens": 2, "layout": "pytorch"}],
    "seq2seq": [{"tokens": 2, "steps": 1}, {"tokens": 2, "steps": 2, "attention": "bahdanau"}],
    "similarity": [{"tokens": 3}],
    "multi-head": [{"tokens": 2}, {"tokens": 3, "mask": "causal"}, {"tokens": 2, "positions": "rope"}],
    "positional-encoding": [{"tokens": 3}, {"tokens": 3, "positions": "rope"}],
    "transformer-layer": [{"tokens": 2}, {"tokens": 2, "normalization": "rms", "activation": "swiglu", "norm": "pre"}],
    "bleu": [{}],
    "decode": [{}, {"strategy": "greedy"}, {"strategy": "top-k"}, {"strategy": "beam"}],
    "bpe": [{}],
    "lr-schedule": [{}],
    "accounting": [{}],
    "attention-backward": [{"tokens": 2}],
    "online-softmax": [{}],
    "quantization": [{}, {"tokens": 2, "dim": 6}],
    "contrastive": [{"tokens": 3}, {"tokens": 2, "dim": 3, "values": "decimal"}],
    "dpo": [{}, {"tokens": 1}, {"tokens": 4}],
    "speculative": [{}, {"tokens": 1, "dim": 3}, {"tokens": 4, "dim": 5}],
    "grpo": [{}, {"tokens": 2}, {"tokens": 5}],
    "moe": [{"tokens": 3}, {"tokens": 4, "top_k": 1}, {"tokens": 3, "top_k": 2, "dim": 3}],
}


def kinds() -> list[str]:
    """Every kind of the registry (a kind without a drawer would show up in the report as such)."""
    return list(KINDS)


# ------------------------------------------------------------------------------ the problem's runs


def run(
    problem: Any,
    mode: str,
    decimals: int,
    overrides: dict[str, np.ndarray] | None = None,
    mistake: Any = None,
    arg: int | None = None,
) -> dict[str, Any] | None:
    """Every step's value (an array, or a label) from one run of the kind's mechanism, or None
    when the run cannot be made (a slip that does not apply, numbers the mechanism refuses)."""
    chain = Chain(mode, decimals, overrides=overrides, mistake=mistake, mistake_arg=arg)
    try:
        with np.errstate(all="ignore"):
            steps = MECHANISMS[problem.kind].run(problem, chain)
    except (MistakeNotApplicable, ValueError, IndexError, ZeroDivisionError, FloatingPointError):
        return None
    out: dict[str, Any] = {}
    for s in steps:
        if isinstance(s, Stated):
            continue
        out[s.id] = s.value if isinstance(s.value, str) else np.array(s.value, dtype=float)
    return out


@dataclass
class Case:
    """One drawn problem and what every student of it shares."""

    kind: str
    seed: int
    options: dict[str, Any]
    raw: dict[str, Any]
    problem: Any
    decimals: int
    truth: dict[str, Any]  # float run
    hand: dict[str, Any]  # hand chain at the decimals asked
    order: list[str]
    slips: list[str]  # the slips the computation consults
    _desc: dict[str, frozenset[str]] = field(default_factory=dict)

    def is_label(self, step: str) -> bool:
        return isinstance(self.truth[step], str)

    def descendants(self, step: str) -> frozenset[str]:
        """The later steps whose value moves when this step's does (moves up, down and against the
        entries' order, so that an argmax or a sort notices), everything recomputed after it."""
        if step not in self._desc:
            self._desc[step] = self.moved_with(step, {})
        return self._desc[step]

    def moved_with(self, step: str, answers: dict[str, Any]) -> frozenset[str]:
        """The later steps whose value, recomputed from ``answers`` (written values, as overrides),
        moves when this step's value does: with the student's answers, what a step rests on
        directly; with none, everything below it."""
        later = self.order[self.order.index(step) + 1 :]
        over = {k: v for k, v in ((k, read(a)) for k, a in answers.items()) if not isinstance(v, str)}
        true = over.get(step, self.truth[step])
        if isinstance(true, str):
            return frozenset(later)  # a label cannot be moved: everything later, to be safe
        base = run_computed(self.problem, self.decimals, over)
        out: set[str] = set()
        n = true.size
        up, down = np.arange(1, n + 1), np.arange(n, 0, -1)
        # small moves up and down and against the order, and large ones (a comparison with a
        # threshold, the draw u against a running sum, notices only those)
        for ramp, size in ((up, 0.0731), (-up, 0.0731), (down, 0.0731), (up, 7.31), (-up, 7.31)):
            r = np.asarray(ramp, dtype=float).reshape(true.shape)
            with np.errstate(invalid="ignore"):
                moved = np.where(np.isneginf(true), true, true + (0.291 + size * r) * (1.0 + np.abs(true)))
            got = run_computed(self.problem, self.decimals, {**over, step: moved})
            if got is None or base is None:
                out.update(later)
                continue
            out.update(k for k in later if not same(got.get(k), base.get(k)))
        return frozenset(out)


def run_computed(problem: Any, decimals: int, overrides: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """Every step as the float chain computes it from the overrides (what each step itself gives,
    before its own override replaces it), and the labels."""
    chain = Chain("float", decimals, overrides=overrides or None)
    try:
        with np.errstate(all="ignore"):
            steps = MECHANISMS[problem.kind].run(problem, chain)
    except (MistakeNotApplicable, ValueError, IndexError, ZeroDivisionError, FloatingPointError):
        return None
    out: dict[str, Any] = {k: np.array(v, dtype=float) for k, v in chain.computed.items()}
    out.update({s.id: s.value for s in steps if isinstance(s.value, str)})
    return out


def same(a: Any, b: Any, tol: float = 1e-9) -> bool:
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return bool(a == b)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.all((a == b) | (np.abs(a - b) <= tol * (1 + np.abs(b)))))


def written_differs(a: Any, b: Any, decimals: int, units: float = 1.5) -> bool:
    """Whether a differs from b by more than ``units`` of the last decimal somewhere."""
    if isinstance(a, str) or isinstance(b, str):
        return bool(a != b)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return True
    both_inf = np.isneginf(a) & np.isneginf(b)
    with np.errstate(invalid="ignore"):
        far = ~both_inf & ~(np.abs(a - b) <= units * 10.0**-decimals * (1 + 1e-9))
    return bool(far.any())


def draw_cases(kind: str, seed: int, count: int) -> list[Case]:
    """``count`` problems of the kind from its drawer, cycling through OPTIONS (fixed seeds)."""
    cases: list[Case] = []
    sets = OPTIONS.get(kind, [{}])
    for i in range(count):
        opts = sets[i % len(sets)]
        s = seed * 1000 + i
        variant = generate(kind=kind, seed=s, count=1, **opts)[0]
        problem = problem_of(variant.problem)
        dec = problem.settings.decimals
        probe = SlipProbe()
        truth = run(problem, "float", dec, mistake=probe)
        hand = run(problem, "hand", dec)
        assert truth is not None and hand is not None, f"{kind} seed {s}: the truth run failed"
        slips = [m for m in every_mistake() if m in probe.seen]
        cases.append(Case(kind, s, opts, variant.problem, problem, dec, truth, hand, list(truth), slips))
    return cases


# ------------------------------------------------------------------------------ writing numbers


def write(x: np.ndarray | str, decimals: int, how: str) -> Any:
    """An answer as the student writes it: strings at the decimals asked (nested as the value)."""
    if isinstance(x, str):
        return x
    arr = np.asarray(x, dtype=float)

    def one(v: float) -> str:
        if np.isneginf(v):
            return "-inf"
        if how == "calculator":  # a calculator's display: the binary value to the nearest
            s = f"{v:.{decimals}f}"
        else:  # rounded half up from the unrounded value, as taught
            s = str(Decimal(repr(float(v))).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))
        return s[1:] if s.startswith("-") and float(s) == 0 else s

    if arr.ndim == 0:
        return one(float(arr))
    return np.vectorize(one, otypes=[object])(arr).tolist()


def read(written: Any) -> np.ndarray | str:
    if isinstance(written, str) and not _number(written):
        return written
    return np.array(np.vectorize(float, otypes=[float])(np.array(written, dtype=object)), dtype=float)


def _number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True
