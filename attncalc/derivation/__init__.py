"""The derivation: frozen data that every renderer reads and no renderer changes.

Its place in the pipeline (docs/contributing.md, "The layers"):
parse → mechanisms → **derivation** → render | check → reports → cli | serve.

A :class:`Step` records, like micrograd's ``Value``, the operation and the operands that produced
its result, so that a renderer can write the substitution out ("e_2 = 1·0 + 1·2 = 2"). Each step
holds three views of its result:

* ``value``: the true value as float64 (in exact mode, the exact value evaluated);
* ``exact``: the exact sympy forms (object array), or ``None`` where the inputs or the size did
  not allow them;
* ``shown``: what the worked example displays before formatting: the true value, or with
  ``carry_rounded`` the hand chain's value, rounded at every step and carried forward.

Operands stored on a step come from the same chain as ``shown``, so every line of a written-out
substitution is consistent with the numbers next to it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..parse import Problem
from ..views import DerivationViews
from .steps import (
    STEP_TYPES,
    Add,
    Argmax,
    Arrange,
    Combine,
    Concat,
    Cosine,
    Count,
    Divide,
    Formula,
    Gradient,
    Loss,
    Map,
    Mask,
    Norm,
    Pick,
    Product,
    Softmax,
    Stated,
    Step,
    Sum,
    Tokens,
    Update,
    hand_formula,
    shown_label,
    single_tokens,
    tie_note,
)

__all__ = [
    "STEP_TYPES",
    "Add",
    "Argmax",
    "Arrange",
    "Combine",
    "Concat",
    "Cosine",
    "Count",
    "Derivation",
    "Divide",
    "Formula",
    "Gradient",
    "Input",
    "Loss",
    "Map",
    "Mask",
    "Norm",
    "Pick",
    "Product",
    "Softmax",
    "Stated",
    "Step",
    "Sum",
    "Tokens",
    "Update",
    "hand_formula",
    "shown_label",
    "single_tokens",
    "tie_note",
]


@dataclass(frozen=True, eq=False)
class Input:
    """A given quantity, shown before the steps."""

    name: str  # key in the problem file: "query", "W_out"
    symbol: str  # as the maths writes it: "s_t", "W_out"
    value: np.ndarray
    exact: np.ndarray | None
    rows: tuple[str, ...] | None = None
    cols: tuple[str, ...] | None = None
    role: str = ""  # one phrase: "decoder state (query)"
    words: bool = False  # a sentence: ``rows`` holds its tokens (value: their positions), shown as words
    whole: bool = False  # a count (kind accounting): shown with thousands separators, 50,257
    flag: bool = False  # a boolean (moe's renormalize): shown true or false, as the problem file writes it


@dataclass(frozen=True, eq=False, repr=False)
class Derivation(DerivationViews):
    """A solved problem: its inputs, its steps in order, and notes about how it was computed.

    ``d["weights"]`` is one step's true value as plain Python (a float, nested lists of floats, or
    the label of a prediction); ``d.to_markdown()``, ``to_latex()``, ``to_html()``, ``to_text()``
    and ``to_json()`` are the views ``attncalc solve`` writes (see :mod:`attncalc.views`).
    """

    problem: Problem
    inputs: tuple[Input, ...]
    steps: tuple[Step, ...]
    notes: tuple[str, ...]
    decimals: int
    carry_rounded: bool
    exact_requested: bool
    headline: str = ""  # one line: the answer in words ("Prediction: B")

    def step(self, step_id: str) -> Step:
        _step_id(step_id)
        found = self._by_id.get(step_id)
        if found is not None:
            return found
        raise KeyError(f"no step {step_id!r} in this derivation; its steps are: {', '.join(self.step_ids)}")

    @functools.cached_property
    def _by_id(self) -> dict[str, Step]:
        """The steps by id (a sequence of 99,000 steps looked one up among them all for every answer)."""
        out: dict[str, Step] = {}
        for s in self.steps:
            out.setdefault(s.id, s)
        return out

    @property
    def step_ids(self) -> list[str]:
        return [s.id for s in self.steps]

    def __getitem__(self, step_id: str) -> Any:
        """The true value of step ``step_id`` (in exact mode, the exact value evaluated).

        A float for one number (an exact ``int`` for a :class:`Count`), a list of floats for a vector, a
        list of lists for a matrix (a masked score is ``float("-inf")``), a str for a prediction. Rounded values are in
        ``d.step(step_id).shown``; exact forms in ``d.step(step_id).exact``.
        """
        _step_id(step_id)
        for s in self.steps:
            if s.id == step_id:
                if isinstance(s, Count) and s.whole is not None:  # an exact integer, exactly
                    return s.whole
                return s.value if isinstance(s.value, str) else np.asarray(s.value, dtype=float).tolist()
        raise KeyError(f"no step {step_id!r} in this derivation; its steps are: {', '.join(self.step_ids)}")

    def __contains__(self, step_id: object) -> bool:
        """Whether ``step_id`` is a step's id (``"weights" in d``), or one of its steps (``s in d``)."""
        return any(s.id == step_id or s is step_id for s in self.steps)

    def __iter__(self) -> Iterator[Step]:
        """The steps in order, as ``d.steps`` (``for s in d: print(s.id, d[s.id])``); ``list(d)`` called
        ``d[0]``, which is no step id."""
        return iter(self.steps)

    def __repr__(self) -> str:
        p = self.problem
        how = p.kind + (f", {p.score}" if p.score else "")
        ids = self.step_ids
        shown = ", ".join(ids[:8]) + (f", … ({len(ids)} in all)" if len(ids) > 8 else "")
        answer = f"; {self.headline}" if self.headline else ""
        return f"<Derivation {p.title!r} ({how}): steps {shown}{answer}>"

    # IPython prefers a class's own __repr__ to an inherited _repr_pretty_: name it here too
    _repr_pretty_ = DerivationViews._repr_pretty_


def _step_id(step_id: object) -> None:
    """A step id is text: anything else (an array, a huge int) is a KeyError saying so, before any comparison
    or repr of it (numpy's ambiguous truth value, Python's 4,300-digit limit on int to str)."""
    if not isinstance(step_id, str):
        raise KeyError(f"a step id is text (such as 'weights'), got a {type(step_id).__name__}")
