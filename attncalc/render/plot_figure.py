"""What ``attncalc plot`` draws: a step's matrix or vector (or a family of them) as heat-map panels.

This module chooses and labels the numbers (no matplotlib here); :mod:`attncalc.render.plot_draw`
draws them, and :mod:`attncalc.render.plot` is the entry that joins the two.

``--step`` takes a step id (``weights``, ``head.2.scores``) or a catalogue template with ``t`` for
the time step or head (``head.t.weights``, ``decoder.t.weights``, as ``attncalc list`` prints them),
which names every step it matches: heads become one panel each, a vector per time step becomes one
row of a matrix (the decoder's attention weights over all target steps: the alignment figure of
Bahdanau et al.). Without ``--step`` the attention weights are drawn.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

import numpy as np

from .. import kinds
from ..derivation import Derivation, Mask, Step
from ..derivation.fmt import fmt
from ..errors import ProblemError
from ..parse.data import output_layer_of
from ..schema.catalog import template

#: steps of the attention block: queries on rows, keys on columns
_ATTENTION_PARTS = ("scores", "scaled_scores", "biased_scores", "masked_scores", "exponentials", "weights")
MAX_SIDE = 64  # rows and columns of one panel
#: steps drawn on a fixed 0-to-1 colour scale (probabilities), so panels and figures compare
_UNIT_PARTS = ("weights", "probabilities")


@dataclass(frozen=True)
class Panel:
    """One heat map: a matrix of numbers with its row and column labels."""

    title: str  # "Head 1", or "" for a figure of one panel
    values: np.ndarray  # float, rows × columns (−∞ where a score is masked)
    masked: np.ndarray  # bool, rows × columns: True where a mask removed the entry
    text: tuple[tuple[str, ...], ...]  # the number printed in each cell, at the problem's decimals
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    row_axis: str  # what the rows are: "query", "target", "time step", or ""
    col_axis: str  # "key", "source", or ""


@dataclass(frozen=True)
class Figure:
    """Everything a figure shows: the problem's title, what is drawn, and the panels."""

    title: str  # the problem's title
    subtitle: str  # what is drawn and the step id: "Attention weights  [weights]"
    panels: tuple[Panel, ...]
    vmin: float  # the colour scale, shared by the panels
    vmax: float


def figure_of(d: Derivation, step: str | None = None, option: str = "--step") -> Figure:
    """The panels for ``step``: a step id, a template with ``t`` (every head or time step), or None (the weights)."""
    steps = _select(d, step, option)
    spec = (step or template(steps[0].id)) if len(steps) > 1 else steps[0].id
    for s in steps:
        if isinstance(s.value, str):
            raise ProblemError(d.problem.path, option, f"step {s.id!r} is a label ({s.value!r}), not numbers to plot")
        if np.ndim(s.value) == 0:
            raise ProblemError(
                d.problem.path, option, f"step {s.id!r} is a single number; plot a vector or a matrix step"
            )
        if np.ndim(s.value) > 2:
            raise ProblemError(
                d.problem.path, option, f"step {s.id!r} has {np.ndim(s.value)} axes; plot a vector or a matrix"
            )
        rows, cols = (1, np.size(s.value)) if np.ndim(s.value) == 1 else np.shape(s.value)
        if rows > MAX_SIDE or cols > MAX_SIDE:  # a figure of every value, readable: not 256 × 256 cells
            raise ProblemError(
                d.problem.path,
                option,
                f"step {s.id!r} is {rows}×{cols}: a figure shows at most {MAX_SIDE}×{MAX_SIDE} cells",
            )
    last = spec.rsplit(".", 1)[-1]
    # a kind with attention weights (its registry entry names them) draws queries on rows, keys on columns
    attention = kinds.entry(d.problem.kind).plot_step is not None and last in _ATTENTION_PARTS
    if len(steps) > 1 and all(np.ndim(s.value) == 1 for s in steps) and len({np.size(s.value) for s in steps}) == 1:
        panels: tuple[Panel, ...] = (_stacked(d, steps, attention),)
    else:
        panels = tuple(_panel(d, s, attention, titled=len(steps) > 1) for s in steps)
    finite = np.concatenate([p.values[np.isfinite(p.values) & ~p.masked] for p in panels])
    if last in _UNIT_PARTS and finite.size and finite.min() >= 0 and finite.max() <= 1:
        vmin, vmax = 0.0, 1.0
    elif finite.size:
        vmin, vmax = float(finite.min()), float(finite.max())
        if vmin == vmax:
            vmin, vmax = vmin - 0.5, vmax + 0.5
    else:
        vmin, vmax = 0.0, 1.0
    return Figure(_short(d.problem.title, 120), f"{_what(steps)}  [{spec}]", panels, vmin, vmax)


def _select(d: Derivation, step: str | None, option: str) -> list[Step]:
    """The steps ``step`` names, in derivation order; one line naming the problem and the option otherwise."""
    if step is None:
        # the default: the kind's attention weights (a transformer layer's self-attention; --step
        # cross.head.t.weights draws its cross-attention)
        spec = kinds.entry(d.problem.kind).plot_step
        found = _matching(d, spec) if spec is not None else []
        if found:
            return found
        plottable = [s.id for s in d.steps if not isinstance(s.value, str) and 1 <= np.ndim(s.value) <= 2]
        hint = f", e.g. {', '.join(plottable[:3])}" if plottable else ""
        raise ProblemError(
            d.problem.path,
            option,
            f"this {d.problem.kind} problem has no attention weights; name a vector or matrix step{hint}",
        )
    found = _matching(d, step)
    if found:
        return found
    names = list(dict.fromkeys([*d.step_ids, *(template(i) for i in d.step_ids if template(i) != i)]))
    close = difflib.get_close_matches(step, names, n=1, cutoff=0.6)
    if not close:  # "weights" for a seq2seq problem: the template that ends with it
        close = [n for n in names if n.endswith("." + step) and ".t." in n][:1]
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ProblemError(
        d.problem.path, option, f"no step {step!r} in this derivation{hint}; `attncalc solve` shows each step's id"
    )


def _matching(d: Derivation, spec: str) -> list[Step]:
    """The step with id ``spec``, or every step whose template is ``spec`` (with ``t`` for the number)."""
    if spec in d:
        return [d.step(spec)]
    if "t" not in spec.split("."):
        return []
    return [s for s in d.steps if template(s.id) == spec and s.id != spec]


def _what(steps: list[Step]) -> str:
    """What the figure shows, from the first step's title without its head ("Head 1: scores" -> "Scores",
    "Cross-attention · Head 1: weights" -> "Cross-attention · weights")."""
    title = re.sub(r"Head \d+: ", "", steps[0].title)
    return title[:1].upper() + title[1:]


def _number(s: Step) -> int:
    """The head's or time step's number in a step id: 2 for "decoder.2.weights"."""
    return next(int(p) for p in s.id.split(".") if p.isdigit())


def _panel(d: Derivation, s: Step, attention: bool, titled: bool) -> Panel:
    values = _shown(s)
    vector = values.shape[0] == 1 and np.ndim(s.value) == 1
    rows = (s.symbol,) if vector else _labels(s.rows, values.shape[0])
    cols = _labels(s.rows if vector else s.cols, values.shape[1])
    masked = _masked(d, s, values)
    title = ""
    if titled:
        title = f"Head {_number(s)}" if re.match(r"(\w+\.)?head\.\d+\.", s.id) else s.id
    row_axis = "query" if attention and not vector else ""
    return Panel(
        title, values, masked, _text(values, masked, d.decimals), rows, cols, row_axis, "key" if attention else ""
    )


def _stacked(d: Derivation, steps: list[Step], attention: bool) -> Panel:
    """Vectors of one template over time steps as the rows of one matrix, in time order (the backward
    encoder's steps too)."""
    steps = sorted(steps, key=_number)
    values = np.vstack([_shown(s) for s in steps])
    masked = np.vstack([_masked(d, s, _shown(s)) for s in steps])
    group = steps[0].id.split(".")[0]
    labels = [_time_label(d, group, _number(s)) for s in steps]
    rows = tuple(label or f"t={_number(s)}" for label, s in zip(labels, steps, strict=True))
    if group == "decoder":
        row_axis = "target" if all(labels) else "decoder step"
    else:
        row_axis = "source" if group == "encoder" and all(labels) else "time step"  # a recurrent cell: 1.h, 2.h
    cols = _labels(steps[0].rows, values.shape[1])
    col_axis = "source" if attention and group == "decoder" else ""
    return Panel("", values, masked, _text(values, masked, d.decimals), rows, cols, row_axis, col_axis)


def _time_label(d: Derivation, group: str, t: int) -> str:
    """A decoder step's target word, an encoder's (or a recurrent cell's) step its token; "" when the problem names none."""
    p = d.problem
    out = output_layer_of(p)
    if group == "decoder" and out is not None and out.targets and out.vocab and t <= len(out.targets):
        return out.vocab[out.targets[t - 1]]
    if (group == "encoder" or group.isdigit()) and p.tokens and t <= len(p.tokens):  # a source or input token
        return p.tokens[t - 1]
    return ""


def _shown(s: Step) -> np.ndarray:
    """The step's values as displayed (the hand chain's with carry_rounded), as one row for a vector."""
    shown = s.shown if s.shown is not None else s.value
    return np.atleast_2d(np.asarray(shown, dtype=float))


def _labels(given: tuple[str, ...] | None, n: int) -> tuple[str, ...]:
    labels = tuple(given) if given is not None and len(given) == n else tuple(str(k + 1) for k in range(n))
    return tuple(_short(x) for x in labels)


def _short(text: str, limit: int = 24) -> str:
    """A label or title a figure can hold: a 50,000-character token made an image of gigabytes."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _masked(d: Derivation, s: Step, values: np.ndarray) -> np.ndarray:
    """Entries a mask removed: −∞ scores, and from the mask on to the weights of the same head the
    entries the mask disallowed (their exponentials and weights are 0 by the mask, not by chance)."""
    out = np.isneginf(values)
    group = s.id.rsplit(".", 1)[0] + "." if "." in s.id else ""
    index = {x.id: k for k, x in enumerate(d.steps)}
    at = index[s.id]
    last = index.get(group + "weights", -1)  # no weights in this group: only the −∞ entries
    for k, x in enumerate(d.steps):
        same_group = x.id.startswith(group) and "." not in x.id[len(group) :]
        if isinstance(x, Mask) and same_group and k <= at <= last:
            allowed = np.atleast_2d(np.asarray(x.allowed, dtype=bool))
            if allowed.shape == values.shape:
                out = out | ~allowed
    return out


def _text(values: np.ndarray, masked: np.ndarray, decimals: int) -> tuple[tuple[str, ...], ...]:
    """Each cell's number as the sheets write it ("0.155", "−0.5"); "masked" where a mask removed it."""
    return tuple(
        tuple(
            ("−∞" if np.isneginf(x) else "masked") if m else fmt(x, decimals, minus="−")
            for x, m in zip(row, mrow, strict=True)
        )
        for row, mrow in zip(values, masked, strict=True)
    )
