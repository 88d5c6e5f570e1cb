"""The step types of a derivation (see :mod:`attncalc.derivation`): each records the operation and the
operands that produced its result, for the renderers to write the substitution out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .elementwise import elementwise


@dataclass(frozen=True, eq=False)
class Step:
    """One step of a worked derivation."""

    id: str
    title: str
    formula: str  # plain text, e.g. "e_i = s · h_i"
    latex: str  # the same formula in LaTeX ("": typeset from ``formula`` by the renderers)
    symbol: str  # the name of one entry, used when expanding: "e", "alpha", "c"
    value: Any  # float64 array (a str for a prediction)
    exact: Any = None  # object array of sympy expressions, or None
    shown: Any = None  # float64 array (or str) as displayed, before formatting
    rows: tuple[str, ...] | None = None  # labels of the first axis (tokens, vocabulary)
    cols: tuple[str, ...] | None = None  # labels of the second axis
    explain: str = ""  # one sentence: what this step does and why
    note: str = ""  # a remark that applies to this problem (e.g. why the maximum was subtracted)
    intro: str = ""  # said before the step, where a part of the derivation begins (where the decoder starts)
    # a value of three axes (moe's expert outputs: token × choice × column; the views show its first two
    # axes as rows and ``cols`` labels its third): the labels of its second axis ("choice 1"), and of
    # each (first, second) pair ("expert 3": the expert token i chose r-th)
    mid: tuple[str, ...] | None = None
    cells: tuple[tuple[str, ...], ...] | None = None
    # how the answer is laid out where its shape is not one number and the formula does not say it
    # (quantization's ranges per group: a list of [min, max] pairs, row by row): said where it is asked
    layout: str = ""
    # at least this many significant digits for its values where the decimals would show fewer (a small
    # loss: 0.00994, not 0.010 at 3 decimals; fmt.significant_places); 0: the derivation's decimals
    significant: int = 0
    # the constants the formula names that are neither a given nor an earlier step's symbol, each defined
    # ("K = 12 bytes a parameter (...)", "Ψ = N"), so that an item asking this step alone can be answered
    defines: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class Product(Step):
    """result = left @ right (+ bias): dot products, matrix products and weighted sums.

    ``first`` says which operand is written first in each term ("q_k·h_ik" puts the right one
    first) so the expansion reads as the textbooks write it.
    """

    left: np.ndarray = field(default_factory=lambda: np.zeros(0))
    right: np.ndarray = field(default_factory=lambda: np.zeros(0))
    bias: np.ndarray | None = None
    first: str = "left"

    def pairs(self, idx: tuple[int, ...]) -> list[tuple[float, float]]:
        """The (written-first, written-second) factors summed for one entry of the result."""
        L, R = self.left, self.right
        if L.ndim == 1:
            col = R[:, idx[0]] if R.ndim == 2 else R
            terms = list(zip(L.tolist(), col.tolist(), strict=True))
        else:
            row = L[idx[0]]
            col = R[:, idx[1]] if R.ndim == 2 else R
            terms = list(zip(row.tolist(), col.tolist(), strict=True))
        if self.first == "right":
            terms = [(b, a) for a, b in terms]
        return terms

    def bias_at(self, idx: tuple[int, ...]) -> float | None:
        if self.bias is None:
            return None
        return float(self.bias[idx[-1]] if self.bias.ndim == 1 else self.bias[idx])


@dataclass(frozen=True, eq=False)
class Map(Step):
    """result = f(arg) entry by entry.

    ``fn`` is exp, tanh, sigmoid, relu, divide (by ``param``), scale (times ``param``) or
    shift_exp (exp of arg minus the row maximum in ``param``).
    """

    fn: str = "exp"
    arg: np.ndarray = field(default_factory=lambda: np.zeros(0))
    param: np.ndarray | None = None  # scale factor, or the per-row maximum subtracted
    param_text: str = ""  # how the parameter is written, e.g. "1/√2"

    def __post_init__(self) -> None:
        elementwise(self.fn)  # an unknown function fails here, where the mechanism builds the step


@dataclass(frozen=True, eq=False)
class Sum(Step):
    """result = the sum of ``arg`` (row by row for a matrix)."""

    arg: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass(frozen=True, eq=False)
class Divide(Step):
    """result = num / den, with den one number (or one per row)."""

    num: np.ndarray = field(default_factory=lambda: np.zeros(0))
    den: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass(frozen=True, eq=False)
class Add(Step):
    """result = the sum of ``parts`` entry by entry (broadcast along rows); a part whose sign is −1
    is subtracted (a difference a − b is written "2 − (−1)", not "2 + 1")."""

    parts: tuple[np.ndarray, ...] = ()
    part_names: tuple[str, ...] = ()
    signs: tuple[int, ...] = ()  # +1 or −1 per part; empty: every part added


@dataclass(frozen=True, eq=False)
class Concat(Step):
    """result = the parts, stacked one after the other."""

    parts: tuple[np.ndarray, ...] = ()
    part_names: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class Mask(Step):
    """result = arg where ``allowed``, −∞ elsewhere."""

    arg: np.ndarray = field(default_factory=lambda: np.zeros(0))
    allowed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


@dataclass(frozen=True, eq=False)
class Softmax(Step):
    """result = softmax(arg), with the exponentials and their sum written inline."""

    arg: np.ndarray = field(default_factory=lambda: np.zeros(0))
    exps: np.ndarray = field(default_factory=lambda: np.zeros(0))
    total: float = 0.0
    shift: float = 0.0  # the maximum subtracted before exponentiating (0 when not)


@dataclass(frozen=True, eq=False)
class Argmax(Step):
    """result = the label of the largest probability."""

    probs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    labels: tuple[str, ...] = ()

    def tied(self, tol: float = 1e-12) -> tuple[str, ...]:
        """The labels whose probability is the largest to within tol (one label when nothing ties)."""
        p = np.asarray(self.probs, dtype=float).ravel()
        if p.size == 0 or len(self.labels) != p.size:
            return (str(self.value),)
        top = float(np.max(p))
        return tuple(lab for lab, x in zip(self.labels, p, strict=True) if top - float(x) <= tol * max(1.0, top))


@dataclass(frozen=True, eq=False)
class Pick(Argmax):
    """result = a label chosen otherwise than by the largest probability: a draw ``u`` from a
    distribution (the first label, in vocabulary order, whose running sum ``cumulative`` exceeds u),
    or the candidates a beam search keeps (``labels`` with their scores in ``probs``, u None)."""

    cumulative: np.ndarray | None = None
    u: float | None = None
    what: str = "Chosen"  # how the headline names the result
    # the order among entries tied in score, as every view that asks the step states it ("" if none):
    # check accepts that order only, so the question must say it
    ties: str = ""

    def tied(self, tol: float = 1e-12) -> tuple[str, ...]:
        return (str(self.value),)


def shown_label(s: Step) -> str:
    """The label a view shows: the hand chain's (``solve --carry``: its rounded numbers may choose another
    token than the true ones, and the view shows the choice its own numbers make), else the value."""
    return s.shown if isinstance(s.shown, str) else str(s.value)


def tie_note(s: Argmax) -> str:
    """ " (a tie: B, C are equally likely; argmax takes the first)" when the largest probabilities tie, else ""."""
    tied = s.tied()
    if len(tied) < 2:
        return ""
    return f" (a tie: {', '.join(tied)} are equally likely; argmax takes the first)"


@dataclass(frozen=True, eq=False)
class Loss(Step):
    """result = −ln p[target]."""

    prob: float = 0.0
    target: int = 0
    label: str = ""


@dataclass(frozen=True, eq=False)
class Gradient(Step):
    """result = (p − y) / T."""

    probs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    onehot: np.ndarray = field(default_factory=lambda: np.zeros(0))
    temperature: float = 1.0


@dataclass(frozen=True, eq=False)
class Combine(Step):
    """result = Σ_k Π_j factor_kj, entry by entry: the gated updates of recurrent cells.

    ``terms`` holds, per term, its factors (arrays of the result's shape, or scalars); a factor
    whose flag in ``complement`` is set enters as (1 − factor), as the GRU's update gate does.
    "c = f⊙c_prev + i⊙c̃" is two terms of two factors; a product of probabilities is one term.
    """

    terms: tuple[tuple[np.ndarray, ...], ...] = ()
    complement: tuple[tuple[bool, ...], ...] = ()
    scalar_product: bool = False  # one term whose factors are the entries of a vector (a product of numbers)


@dataclass(frozen=True, eq=False)
class Stated(Step):
    """A value stated by the problem (a gate given as numbers), shown in its place in the sequence."""


@dataclass(frozen=True, eq=False)
class Update(Step):
    """One optimiser step on a parameter: SGD (θ − lr·g) or Adam's first step.

    For Adam (t = 1, m_0 = v_0 = 0): m = (1 − β1) g, v = (1 − β2) g², m̂ = m / (1 − β1),
    v̂ = v / (1 − β2), θ' = θ − lr · m̂ / (√v̂ + ε). Without ``param`` (θ unknown) the step is the
    change Δθ = −lr·g or −lr · m̂ / (√v̂ + ε). AdamW (``decay``, lr·λ·θ): θ' = θ − lr·λ·θ − lr · m̂ / (√v̂ + ε).
    """

    param: np.ndarray | None = None
    grad: np.ndarray = field(default_factory=lambda: np.zeros(0))
    optimizer: str = "sgd"
    lr: float = 0.1
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    m_hat: np.ndarray | None = None
    v_hat: np.ndarray | None = None
    decay: np.ndarray | None = None  # AdamW: lr·λ·θ, taken off θ before the Adam step


@dataclass(frozen=True, eq=False)
class Norm(Step):
    """result = √(Σ_k x_k²) of each vector in ``arg`` (shape: the result's shape plus one axis).

    Lengths ‖a_i‖ and distances ‖a_i − b_j‖ (``arg`` then holds the differences).
    """

    arg: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass(frozen=True, eq=False)
class Cosine(Step):
    """result = num / (den_a · den_b) entry by entry: a dot product over the product of two lengths."""

    num: np.ndarray = field(default_factory=lambda: np.zeros(0))
    den_a: np.ndarray = field(default_factory=lambda: np.zeros(0))
    den_b: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass(frozen=True, eq=False)
class Arrange(Step):
    """result = entries of earlier results put in place, nothing computed: a head's block of columns
    of Q, the cached rows followed by the new ones, the heads' outputs side by side. ``source`` says
    where each part comes from, in words ("columns 3–4 of K (key head 2)"). ``ranked``: the order is
    the answerer's judgement (probabilities sorted, the best beams kept), so the step is not a mere copy
    (``check`` gives a copy step ``[grading] copies`` points, 0 by default)."""

    source: str = ""
    ranked: bool = False


@dataclass(frozen=True, eq=False)
class Formula(Step):
    """result = a closed formula of exact numbers per entry, written out in ``written`` (nested tuples
    of strings in the result's shape, with no rounded number in them): "2 / 10000^(2/4)"."""

    written: Any = ()  # nested tuples of strings; a single string for a one-number result
    # the lines write rounded numbers as shown ("0.646·0.5 + 0.354·(-1)"): the views read each line as the
    # arithmetic it shows and say "as written: …" where that gives another last digit
    hand: bool = False


def hand_formula(**fields: Any) -> Formula:
    """A :class:`Formula` whose lines write rounded numbers (``hand``: the views say "as written")."""
    return Formula(hand=True, **fields)


def single_tokens(items: tuple[str, ...]) -> bool:
    """Whether a list's items are single tokens (a word encoded, the new tokens), not words or pairs
    of several: then a space separates its items as a comma does."""
    return len(items) > 1 and all(" " not in item for item in items)


@dataclass(frozen=True, eq=False)
class Tokens(Pick):
    """result = tokens or strings, not numbers: a merge chosen by its count, words cut into tokens, a
    list of merges (kind bpe). ``table`` holds the rows shown before the result, ``heads`` their two
    column headings; ``value`` is the result as text, a list's items joined with ", " (``labels``
    holds the items, or the candidates a choice was made from, with their counts in ``probs``)."""

    table: tuple[tuple[str, str], ...] = ()
    heads: tuple[str, str] = ("", "")


@dataclass(frozen=True, eq=False)
class Count(Step):
    """result = a whole number computed exactly (a parameter count, FLOPs, bytes): ``whole`` is the exact
    Python int (``value`` its float), ``written`` the formula with the numbers put in ("2 · 1,024 · 768"),
    and ``unit`` what it counts; bytes are also written in GiB (an exact fraction of 2^30 and its decimal).
    The views write the number with thousands separators; JSON gives it as an exact integer."""

    whole: int | None = None  # None only in a run of check's that put a student's non-whole answer in
    written: str = ""
    unit: str = ""  # "parameters", "FLOPs", "bytes"


STEP_TYPES: tuple[type[Step], ...] = (
    Step,  # a plain step: its formula and its value (a kind's step that no class below writes out)
    Product,
    Map,
    Sum,
    Divide,
    Add,
    Concat,
    Mask,
    Softmax,
    Argmax,
    Pick,
    Loss,
    Gradient,
    Combine,
    Stated,
    Update,
    Norm,
    Cosine,
    Arrange,
    Formula,
    Tokens,
    Count,
)
