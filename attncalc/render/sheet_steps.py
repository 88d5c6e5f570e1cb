"""The blocks of one step of a solution, one ``_step_<TypeName>`` method per step type (a test holds
the builder to it): the written-out lines, the value, the exact forms. A mixin of the sheet builder
(:mod:`attncalc.render.sheet`), which decides what is shown where; here is how a step is written."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import (
    Add,
    Argmax,
    Arrange,
    Combine,
    Concat,
    Cosine,
    Count,
    Derivation,
    Divide,
    Formula,
    Gradient,
    Input,
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
    shown_label,
    tie_note,
)
from ..derivation.fmt import elide, entry_indices, entry_label, flat_rows, fmt, fmt_given, inline, position_labels
from ..kinds import entry_namer
from . import counts, expand
from .blocks import Block, Exact, MathLines, Matrix, Para, Table, exact_label
from .exact import exact_groups

MATRIX_LIMIT = 12  # rows/columns of a matrix shown before the middle is elided


class StepBlocks:
    """What the builder provides: the derivation, its decimals, where blocks go, the entry limit."""

    d: Derivation
    dec: int
    out: list[Block]
    entry_limit: int
    reveal: bool
    _result_at: int | None

    def add(self, block: Block) -> None:
        self.out.append(block)

    def n(self, x: Any) -> str:
        return fmt(x, self.dec)

    def _input(self, inp: Input) -> Block:
        if inp.words and inp.rows is not None:  # a sentence: its words, not their positions
            return Para(f"{inp.symbol} ({len(inp.rows)} tokens): {' '.join(inp.rows)}")
        v = np.asarray(inp.value)
        if v.ndim == 0 and inp.whole:  # a count: V = 50,257
            return MathLines(((f"{inp.symbol} = {int(v):,}", ""),))
        if v.ndim == 0 and inp.flag:  # a boolean: renormalize = true, as the problem file writes it
            return MathLines(((f"{inp.symbol} = {'true' if float(v) else 'false'}", ""),))
        if v.ndim == 1 and inp.rows is not None and len(inp.rows) == len(v) <= 12:
            # labelled entries (logits over a vocabulary): each value under its label, as the text view
            return self._matrix(inp.symbol, v.reshape(1, -1), ("",), inp.rows, given=True)
        return self._matrix(inp.symbol, v, inp.rows, inp.cols, given=True)

    def _matrix(
        self,
        lhs: str,
        v: np.ndarray,
        rows: tuple[str, ...] | None = None,
        cols: tuple[str, ...] | None = None,
        shade: bool = False,
        given: bool = False,
    ) -> Block:
        """A value as a vector or a table; a ``given`` keeps its short decimals whole (fmt_given)."""
        v = np.asarray(v, dtype=float)

        def n(x: Any) -> str:
            return fmt_given(x, self.dec) if given else self.n(x)

        if v.ndim == 0:
            return MathLines(((f"{lhs} = {n(v)}", ""),))
        if v.ndim == 1:
            vec: tuple[str, ...] = tuple(x if x is not None else "…" for x in elide([n(x) for x in v], MATRIX_LIMIT))
            return Matrix(lhs, (vec,), rows, None, None, vector=True)
        r_idx = list(elide(list(range(v.shape[0])), MATRIX_LIMIT))
        c_idx = list(elide(list(range(v.shape[1])), MATRIX_LIMIT))
        rl = position_labels(rows, v.shape[0])
        cl = position_labels(cols, v.shape[1])
        cells = tuple(tuple("⋮" if i is None else ("…" if j is None else n(v[i, j])) for j in c_idx) for i in r_idx)
        sh = None
        if shade:
            sh = tuple(tuple(0.0 if i is None or j is None else float(v[i, j]) for j in c_idx) for i in r_idx)
        return Matrix(
            lhs,
            cells,
            tuple("⋮" if i is None else rl[i] for i in r_idx),
            tuple("…" if j is None else cl[j] for j in c_idx),
            sh,
        )

    def _result(self, s: Step) -> None:
        self._result_at = len(self.out)
        shown, rows = flat_rows(np.asarray(s.shown), s.rows)
        self.add(self._matrix(s.symbol, shown, rows, s.cols, shade=s.id == "weights"))

    def _inline_value(self, s: Step) -> str:
        if isinstance(s, Count):  # a whole number with thousands separators (bytes in GiB too)
            more = counts.gib_text(s, self.dec)
            return counts.whole_text(s) + (f" ({more.removeprefix('= ')})" if more else "")
        return inline(s.shown, self.n, MATRIX_LIMIT)

    def _label(self, s: Step, idx: tuple[int, ...]) -> tuple[str, str]:
        named = entry_namer(self.d.problem)
        if named is not None:  # entries named by the kind: a similarity's by its vectors, cat·chat, ‖cat‖
            return named(s.id, idx), ""
        label = entry_label(s.symbol, idx)
        token = s.rows[idx[0]] if len(idx) == 1 and s.rows is not None else ""
        return label, token

    def _written(self, s: Step) -> None:
        shown = np.asarray(s.shown)
        lines: list[tuple[str, str]] = []
        for idx in elide(entry_indices(shown.shape), self.entry_limit):
            if idx is None:
                lines.append(("⋮", f"{int(np.prod(shown.shape)) - 4} more entries, computed the same way"))
                continue
            label, token = self._label(s, idx)
            if isinstance(s, Map) and np.isneginf(s.arg[idx]):
                if s.fn in ("exp", "shift_exp"):
                    lines.append((f"{label} = {expand.rhs(s, idx, self.dec)} = 0", f"masked {token}".strip()))
                else:
                    lines.append((f"{label} = −∞", "masked"))
                continue
            remark = "; ".join(x for x in (token, expand.aside(s, idx, float(shown[idx]), self.dec)) if x)
            rhs, value = expand.rhs(s, idx, self.dec), self.n(shown[idx])
            lines.append((f"{label} = {value}" if rhs == value else f"{label} = {rhs} = {value}", remark))
        self.add(MathLines(tuple(lines)))
        if shown.ndim or entry_namer(self.d.problem) is None:  # a named entry's one number is its own line
            self._result(s)

    def _exact(self, s: Step) -> None:
        name = (lambda idx: self._label(s, idx)[0]) if entry_namer(self.d.problem) is not None else None
        groups, more = exact_groups(s.exact, s.symbol, self.dec, name)
        if groups:
            items = [
                (" = ".join(labels[:3]) + (" = …" if len(labels) > 3 else ""), _readable(expr))
                for labels, expr in groups
            ]
            self.add(Exact(tuple(items), more, exact_label(self.d.carry_rounded)))

    def _attention_table(self) -> None:
        d = self.d
        ids = [i for i in ("scores", "scaled_scores", "exponentials", "weights") if i in d.step_ids]
        heads = {"scores": "e_i", "scaled_scores": "e'_i", "exponentials": "exp(e_i)", "weights": "α_i"}
        w = np.asarray(d.step("weights").shown, dtype=float)
        labels = position_labels(d.problem.tokens, len(w), "h_")
        rows = []
        idx = list(elide(list(range(len(w))), 32))
        for i in idx:
            if i is None:
                rows.append(("⋮",) + ("",) * (len(ids) + 1))
                continue
            rows.append((str(i + 1), labels[i], *(self.n(np.asarray(d.step(x).shown)[i]) for x in ids)))
        shade = tuple(0.0 if i is None else float(w[i]) for i in idx)
        self.add(
            Table(("i", "token", *(heads[x] for x in ids)), tuple(rows), shade, "Attention over the encoder states")
        )

    # -- step types ----------------------------------------------------------------
    def _step_Product(self, s: Product) -> None:
        if s.note and "identity" in s.note:
            self._result(s)
            return
        self._written(s)

    def _step_Map(self, s: Map) -> None:
        if s.fn == "divide" and s.param_text.startswith("√"):
            self.add(MathLines(((f"{s.param_text} = {self.n(s.param)}", ""),)))
        if np.asarray(s.shown).ndim == 0:  # one number: one line
            remark = expand.aside(s, (), float(s.shown), self.dec)
            self.add(MathLines(((f"{s.symbol} = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}", remark),)))
            return
        self._written(s)

    def _step_Sum(self, s: Sum) -> None:
        if np.asarray(s.arg).ndim == 1:
            remark = expand.aside(s, (), float(s.shown), self.dec)
            self.add(MathLines(((f"{s.symbol} = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}", remark),)))
            return
        self._written(s)

    def _step_Divide(self, s: Divide) -> None:
        self._written(s)

    def _step_Add(self, s: Add) -> None:
        self._written(s)

    def _step_Concat(self, s: Concat) -> None:
        parts = [f"{name} = [{', '.join(self.n(x) for x in p)}]" for name, p in zip(s.part_names, s.parts, strict=True)]
        self.add(MathLines(tuple((x, "") for x in parts)))
        self._result(s)

    def _step_Mask(self, s: Mask) -> None:
        blocked = [
            entry_label("S'", (int(i), int(j))) for i, j in zip(*np.nonzero(~np.asarray(s.allowed)), strict=True)
        ]
        shown = [x if x is not None else "…" for x in elide(blocked, 12)]
        self.add(MathLines(((", ".join(shown) + " = −∞", "masked") if blocked else ("", "nothing is masked"),)))
        self._result(s)

    def _step_Softmax(self, s: Softmax) -> None:
        labels = position_labels(s.rows, len(s.arg))
        shift = f" − {self.n(s.shift)}" if s.shift else ""
        lines = []
        for i in elide(list(range(len(s.arg))), self.entry_limit):
            if i is None:
                lines.append(("⋮", ""))
                continue
            remark = "; ".join(x for x in (labels[i], expand.softmax_exp_aside(s, i, self.dec)) if x)
            lines.append((f"exp({self.n(s.arg[i])}{shift}) = {self.n(s.exps[i])}", remark))
        lines.append((f"Σ = {expand.sum_text([self.n(x) for x in s.exps])} = {self.n(s.total)}", ""))
        for i in elide(list(range(len(s.arg))), self.entry_limit):
            if i is None:
                lines.append(("⋮", ""))
                continue
            remark = "; ".join(x for x in (labels[i], expand.aside(s, (i,), float(s.shown[i]), self.dec)) if x)
            lines.append(
                (f"{entry_label(s.symbol, (i,))} = {expand.rhs(s, (i,), self.dec)} = {self.n(s.shown[i])}", remark)
            )
        self.add(MathLines(tuple(lines)))

    def _step_Argmax(self, s: Argmax) -> None:
        probs = np.asarray(s.probs, dtype=float)
        best = int(np.argmax(probs))
        tied = s.tied()
        rows = tuple(
            (lab, self.n(p), "largest" if i == best or lab in tied else "")
            for i, (lab, p) in enumerate(zip(s.labels, probs, strict=True))
        )
        self.add(Table(("entry", "p", ""), rows, tuple(float(p) for p in probs)))
        self.add(MathLines(((f"ŷ = {shown_label(s)}", tie_note(s).strip()),)))

    def _step_Pick(self, s: Pick) -> None:
        probs = np.asarray(s.probs, dtype=float)
        chosen = shown_label(s).split(", ")
        cum = s.cumulative
        rows = tuple(
            (
                lab,
                self.n(p),
                *((self.n(cum[i]),) if cum is not None else ()),
                "chosen" if lab in chosen and s.u is not None else "",
            )
            for i, (lab, p) in enumerate(zip(s.labels, probs, strict=True))
        )
        header = ("entry", "p" if s.u is not None else "score", *(("running sum",) if cum is not None else ()), "")
        self.add(Table(header, rows))
        if s.u is not None:
            self.add(MathLines(((f"u = {self.n(s.u)}", f"the first running sum above u picks {shown_label(s)}"),)))
        else:
            self.add(MathLines(((f"kept: {shown_label(s)}", ""),)))

    def _step_Loss(self, s: Loss) -> None:
        self.add(
            MathLines(
                ((f"{s.symbol} = −ln p_{s.target + 1} = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}", s.label),)
            )
        )

    def _step_Gradient(self, s: Gradient) -> None:
        self._written(s)

    def _step_Combine(self, s: Combine) -> None:
        if s.scalar_product:
            remark = expand.aside(s, (), float(s.shown), self.dec)
            self.add(MathLines(((f"{s.symbol} = {expand.rhs(s, (), self.dec)} = {self.n(s.shown)}", remark),)))
            return
        self._written(s)

    def _step_Arrange(self, s: Arrange) -> None:
        if s.source and s.source not in s.formula:
            self.add(Para(s.source, "explain"))
        self._result(s)

    def _step_Formula(self, s: Formula) -> None:
        self._written(s)

    def _step_Count(self, s: Count) -> None:
        self.add(MathLines(((counts.line(s), s.unit),)))
        self._result_at = len(self.out)
        more = counts.gib_text(s, self.dec)
        if more:  # mathematics, so that the symbol is set with its subscript (M_params) in every view
            self.add(MathLines(((f"{s.symbol} {more}", ""),)))

    def _step_Stated(self, s: Stated) -> None:
        self._result(s)

    def _step_Step(self, s: Step) -> None:  # a plain step: its formula and value
        self._result(s)

    def _step_Update(self, s: Update) -> None:
        saved, self.dec = self.dec, expand.update_decimals(s, self.dec) if not self.d.carry_rounded else self.dec
        try:
            if self.dec != saved:
                self.add(Para(f"Shown to {self.dec} decimals so that the change is visible.", "explain"))
            self._written(s)
        finally:
            self.dec = saved

    def _step_Norm(self, s: Norm) -> None:
        self._written(s)

    def _step_Cosine(self, s: Cosine) -> None:
        self._written(s)

    def _step_Tokens(self, s: Tokens) -> None:
        if s.table:
            self.add(Table(s.heads, s.table))
        self.add(Para(f"{s.symbol} = {shown_label(s)}", "result"))

    def _similarity_table(self) -> None:
        from . import simtable

        if not simtable.applies(self.d):
            return
        heads, rows, title = simtable.table(self.d, self.n)
        self.add(Table(heads, tuple(rows), None, title))


SHEET_EXACT_CHARS = 600  # an exact form longer than this (printed as text) is named, not typeset


def _readable(expr: Any) -> Any:
    """The form itself, or, past SHEET_EXACT_CHARS, what it is: typeset it would fill several lines
    or shrink to a hairline (the text view cuts such forms too; JSON keeps them whole)."""
    from .exact import exact_text

    form = exact_text(expr)
    if len(form) <= SHEET_EXACT_CHARS:
        return expr
    return f"a form of {len(form)} characters, too long to typeset (attncalc solve -f json gives it whole)"
