"""Format-neutral overviews of a recurrent derivation: the timeline and the per-step gate tables.

The timeline has one row per time step (encoder, then decoder): the token, the state, and where
there is an output layer the prediction and the loss. A gate table gathers one time step's gates,
one row per gate and one column per entry, eliding the middle columns of a wide state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..derivation import Derivation, Loss, Step
from ..derivation.fmt import elide
from ..parse import RECURRENT_KINDS
from ..parse.types import Recurrent, Seq2Seq

WIDE = 8  # state entries shown in full; wider states keep the first three and the last
GATE_ROWS = (
    ("f", "f  forget"),
    ("i", "i  input"),
    ("c_tilde", "c̃  candidate"),
    ("retained", "f ⊙ c_prev"),
    ("new", "i ⊙ c̃"),
    ("c", "c  cell"),
    ("o", "o  output"),
    ("tanh_c", "tanh(c)"),
    ("r", "r  reset"),
    ("z", "z  update"),
    ("h_tilde", "h̃  candidate"),
    ("h", "h  hidden"),
)


def applies(d: Derivation) -> bool:
    return d.problem.kind in RECURRENT_KINDS


@dataclass(frozen=True)
class Overview:
    """One table of the timeline."""

    title: str
    header: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Block:
    """One time step of one cell: the id prefix ("3.", "encoder.2.", "decoder.1.") and a title."""

    prefix: str
    title: str


class Timeline:
    def __init__(self, d: Derivation) -> None:
        self.d = d
        self.by_id: dict[str, Step] = {s.id: s for s in d.steps}
        self.blocks: list[Block] = []
        self.table_after: dict[str, Block] = {}
        self.section_starts: dict[str, str] = {}
        seen: set[str] = set()
        last_of: dict[str, str] = {}
        for s in d.steps:
            parts = s.id.split(".")
            digits = [k for k, p in enumerate(parts) if p.isdigit()]
            if not digits:
                continue
            prefix = ".".join(parts[: digits[0] + 1]) + "."
            rest = ".".join(parts[digits[0] + 1 :])
            if rest in dict(GATE_ROWS):  # the cell's steps (not Luong's attentional_pre)
                last_of[prefix] = s.id
            if prefix not in seen:
                seen.add(prefix)
                self.blocks.append(Block(prefix, _block_title(prefix)))
        for b in self.blocks:
            if b.prefix in last_of and self._rows_of(b):
                self.table_after[last_of[b.prefix]] = b
        if d.problem.kind == "seq2seq":
            for s in d.steps:
                label = _section(s.id)
                if label not in self.section_starts.values():
                    self.section_starts[s.id] = label

    # -- the timeline ----------------------------------------------------------------
    def tables(self, n: Callable[[Any], str]) -> list[Overview]:
        """The timeline as narrow tables: states per step, then predictions and losses per step."""
        p = self.d.problem
        out = []
        if p.kind == "seq2seq":
            enc = [b for b in self.blocks if _side(b) == "encoder"]
            both = [b for b in enc if self._get(b.prefix + "state") is not None]
            out.append(self._states("Encoder states", both or enc, n, "h_t"))
            s_name = "s_t" if isinstance(p.data, Seq2Seq) and p.data.attention != "luong" else "h_t"
            out.append(self._states("Decoder states", [b for b in self.blocks if _side(b) == "decoder"], n, s_name))
        else:
            out.append(self._states("States", self.blocks, n, "h_t"))
        preds = [b for b in self.blocks if self._get(b.prefix + "prediction") is not None]
        if preds:
            out.append(self._predictions(preds, n))
        return [t for t in out if t.rows]

    def _states(self, title: str, blocks: list[Block], n: Callable[[Any], str], h_name: str) -> Overview:
        has_c = any(self._get(b.prefix + "c") is not None for b in blocks)
        header = ["t", "input", *(["c_t"] if has_c else []), h_name]
        rows = []
        for b in blocks:
            h = self._get(b.prefix + "state") or self._get(b.prefix + "h")
            if h is None:
                continue
            c = self._get(b.prefix + "c")
            cells = [_time(b), self._token(b)]
            if has_c:
                cells.append(self.vec(c.shown, n) if c is not None else "")
            rows.append([*cells, self.vec(h.shown, n)])
        return Overview(title, header, rows)

    def _predictions(self, blocks: list[Block], n: Callable[[Any], str]) -> Overview:
        p = self.d.problem
        attends = any(self._get(b.prefix + "weights") is not None for b in blocks)
        header = ["t", *(["attends most to"] if attends else []), "ŷ", "target", "p(target)", "L_t"]
        rows = []
        for b in blocks:
            row = [_time(b)]
            w = self._get(b.prefix + "weights")
            if attends and w is not None:
                weights = np.asarray(w.shown, dtype=float)
                k = int(np.argmax(weights))
                labels = p.tokens or tuple(f"h_{i + 1}" for i in range(len(weights)))
                row.append(f"{labels[k]} ({n(weights[k])})")
            pred = self._get(b.prefix + "prediction")
            loss = self._get(b.prefix + "loss")
            assert pred is not None
            row.append(str(pred.value))
            if isinstance(loss, Loss):
                row += [loss.label + ("  ✓" if loss.label == pred.value else "  ✗"), n(loss.prob), n(loss.shown)]
            else:
                row += ["", "", ""]
            rows.append(row)
        targets = any(r[-3].endswith(("✓", "✗")) for r in rows) if rows and len(rows[0]) >= 3 else False
        return Overview("Predictions (✓ the target predicted, ✗ not)" if targets else "Predictions", header, rows)

    def _token(self, b: Block) -> str:
        p = self.d.problem
        t = int(b.prefix.rstrip(".").split(".")[-1])
        if _side(b) == "decoder":
            return "(gates given)" if isinstance(p.data, Seq2Seq) and p.data.inputs is None else f"y_{t - 1}"
        if p.tokens is not None and t - 1 < len(p.tokens):
            return p.tokens[t - 1]
        if isinstance(p.data, Recurrent) and p.data.x is None:
            return "(gates given)"
        return f"x_{t}"

    # -- gate tables -----------------------------------------------------------------
    def _rows_of(self, b: Block) -> list[tuple[str, Step]]:
        out = []
        for key, label in GATE_ROWS:
            s = self._get(b.prefix + key)
            if s is not None:
                out.append((label, s))
        return out if len(out) > 1 else []

    def gate_rows(self, b: Block, n: Callable[[Any], str]) -> tuple[list[str], list[list[str]], str]:
        rows = self._rows_of(b)
        width = len(np.asarray(rows[0][1].shown))
        cols = list(elide(list(range(width)), WIDE))
        header = ["", *("…" if j is None else str(j + 1) for j in cols)]
        body = []
        for label, s in rows:
            v = np.asarray(s.shown, dtype=float)
            cells = ["…" if j is None else n(v[j]) for j in cols]
            body.append([label + ("  (given)" if type(s).__name__ == "Stated" else ""), *cells])
        caption = f"{width} entries; the middle is elided" if width > WIDE else ""
        return header, body, caption

    def merged_rows(self, blocks: list[Block], n: Callable[[Any], str]) -> tuple[list[str], list[list[str]], str]:
        """The gate tables of one-unit time steps as one table, a row per time step."""
        labels = [label.split("  ")[0] for label, _ in self._rows_of(blocks[0])]  # "f  forget" -> "f"
        body = []
        for b in blocks:
            token = self._token(b)
            named = token and not token.startswith("(") and token != f"x_{_time(b)}"  # x_3 at step 3 says nothing
            when = _time(b) + (f" ({token})" if named else "")
            body.append([when, *(n(float(np.ravel(np.asarray(s.shown, dtype=float))[0])) for _, s in self._rows_of(b))])
        side = {"encoder": "Encoder steps", "decoder": "Decoder steps"}.get(_side(blocks[0]), "Time steps")
        return ["step", *labels], body, f"{side} {_time(blocks[0])}–{_time(blocks[-1])}: one unit, a row per time step"

    @staticmethod
    def vec(v: Any, n: Callable[[Any], str]) -> str:
        a = np.asarray(v, dtype=float).ravel()
        items = [n(x) for x in a]
        return "[" + ", ".join(x if x is not None else "…" for x in elide(items, WIDE)) + "]"

    def _get(self, sid: str) -> Step | None:
        return self.by_id.get(sid)


TRAINING_IDS = ("sequence_probability", "loss", "grad_W_out", "grad_b_out", "W_out_new", "b_out_new")


def _section(step_id: str) -> str:
    """The part of a seq2seq derivation a step belongs to."""
    if step_id.startswith("encoder."):
        return "Encoder"
    if step_id in TRAINING_IDS or step_id.endswith(".grad_logits"):
        return "Loss, gradient and update"
    return "Decoder"


def _side(b: Block) -> str:
    return b.prefix.split(".")[0] if b.prefix.split(".")[0] in ("encoder", "decoder") else ""


def _time(b: Block) -> str:
    """The time column: 2, or 2 → / 2 ← for the two directions of a bidirectional encoder."""
    parts = b.prefix.rstrip(".").split(".")
    return parts[-1] + {"fwd": " →", "bwd": " ←"}.get(parts[1], "") if len(parts) == 3 else parts[-1]


def _block_title(prefix: str) -> str:
    parts = prefix.rstrip(".").split(".")
    t = parts[-1]
    if parts[0] == "encoder":
        side = {"fwd": " →", "bwd": " ←"}.get(parts[1], "") if len(parts) == 3 else ""
        return f"enc {t}{side}"
    if parts[0] == "decoder":
        return f"dec {t}"
    return f"step {t}"


# -- level of detail -----------------------------------------------------------------------

DETAILS = ("full", "first", "summary")
# a time step's cell steps: the gate table of the step gives their values
CELL_STEPS = {key for key, _ in GATE_ROWS} | {"hx", "rh", "rhx", "xn", "hn", "input", "state", "hidden"}


def block_of(step_id: str) -> str | None:
    """The time step a step belongs to, as its id prefix ("2.", "encoder.fwd.3.", "decoder.1."), or None."""
    parts = step_id.split(".")
    digits = [k for k, p in enumerate(parts) if p.isdigit()]
    return ".".join(parts[: digits[0] + 1]) + "." if digits else None


NUMBERING_NOTE = (
    "Steps are numbered as in the whole derivation: the later time steps, written in brief under their "
    "own headings, fill the gaps in the numbering (--detail full writes every step out)."
)


def check_detail(detail: str) -> None:
    """An unknown level is bad input from the Python API (the command's option is a choice)."""
    if not isinstance(detail, str) or detail not in DETAILS:  # (an array or a huge int: no comparison, no repr)
        from ..errors import ProblemError

        if isinstance(detail, str):
            raise ProblemError("attncalc", "detail", f"unknown level {repr(detail)[:60]}; choose {', '.join(DETAILS)}")
        kind = type(detail).__name__
        raise ProblemError(
            "attncalc",
            "detail",
            f"expected a level as text ({', '.join(DETAILS)}), got {'an' if kind[0] in 'aeiou' else 'a'} {kind}",
        )


def detail_plan(d: Derivation, detail: str, tl: Timeline | None = None) -> dict[str, str]:
    """How each step is shown at a level of detail, for the steps not shown in full: "line" (one
    written-out line: its formula and its value) or "table" (only through its time step's gate table).

    ``first`` writes each step out in full the first time it comes (the first time step of the cell;
    a decoder's attention and output at its first step) and later a line per step; ``summary`` leaves a time step's cell steps to
    its gate table and gives its other steps (attention, output) a line each; ``full`` writes out
    everything. Steps outside time steps (the projected keys, the training update) are always full.
    """
    check_detail(detail)
    if detail == "full" or not applies(d):
        return {}
    plan: dict[str, str] = {}
    seen: set[str] = set()  # the steps already written out in full, by their name within a time step
    for s in d.steps:
        prefix = block_of(s.id)
        if prefix is None:
            continue
        rest = s.id[len(prefix) :]
        if detail == "first" and rest not in seen:
            seen.add(rest)
            continue
        cell = rest in CELL_STEPS or (rest.endswith("_pre") and rest != "attentional_pre")
        plan[s.id] = "table" if detail == "summary" and cell else "line"
    if detail == "summary":  # a time step without a gate table (a bidirectional encoder's joined state) keeps its lines
        tabled = {block_of(sid) for sid in (tl or Timeline(d)).table_after}
        plan = {sid: "line" if how == "table" and block_of(sid) not in tabled else how for sid, how in plan.items()}
    return plan


def block_heading(tl: Timeline, prefix: str, step_id: str = "") -> str:
    """The heading of a time step written in brief: "Time step 2 (cat)", "Encoder step 2 →", "Decoder step 1";
    under the loss and update, "Gradient at decoder step 2" (its decoder step has its own heading above)."""
    b = Block(prefix, _block_title(prefix))
    side = _side(b)
    if tl.d.problem.kind == "seq2seq" and step_id and _section(step_id) == "Loss, gradient and update":
        return f"Gradient at {side or 'time'} step {_time(b)}"
    where = {"encoder": "Encoder step", "decoder": "Decoder step"}.get(side, "Time step")
    token = tl._token(b)
    return f"{where} {_time(b)}" + (f" ({token})" if token and not token.startswith("(") else "")


def step_line(s: Step, value: str, decimals: int) -> str:
    """A step of a later time step in one line. A gate the time step's gate table shows is written
    out for its first entry (the table has the rest): "r_2,1 = σ(0.5) = 0.622"; any other step is its
    formula and its value: "zr_2 = W_r·[h_1; x_2] + b_r = [0, 0.5]"."""
    rest = s.id.rsplit(".", 1)[-1]
    shown = np.asarray(s.shown) if not isinstance(s.shown, str) else None
    if rest in dict(GATE_ROWS) and shown is not None and shown.ndim == 1 and shown.size > 1:
        from ..derivation.fmt import entry_label, fmt
        from . import expand

        written = expand.rhs(s, (0,), decimals)
        if written:
            return f"{entry_label(s.symbol, (0,))} = {written} = {fmt(shown[0], decimals)}, …"
    if "=" in s.formula or s.formula == s.symbol:
        return f"{s.formula} = {value}"
    if s.formula.split("  (")[0].split(" (")[0].strip() == s.symbol:  # "W_q s_0 (one number per row of W_q)"
        return f"{s.symbol} = {value}"
    return f"{s.symbol} = {s.formula} = {value}"


MERGE_AT = 3  # time steps in a row whose one-unit gate tables become one table (summary)


def _steps_by_block(d: Derivation) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {}
    for s in d.steps:
        prefix = block_of(s.id)
        if prefix is not None:
            ids.setdefault(prefix, []).append(s.id)
    return ids


def table_only(ids: dict[str, list[str]], plan: dict[str, str]) -> set[str]:
    """The time steps (prefixes) whose every step is shown only by their gate table (summary): their
    table, captioned with the time step, stands without a heading of its own."""
    return {p for p, members in ids.items() if all(plan.get(i) == "table" for i in members)}


def merged_runs(tl: Timeline, ids: dict[str, list[str]], only: set[str]) -> tuple[dict[str, list[Block]], set[str]]:
    """At summary, runs of MERGE_AT or more table-only time steps of a one-unit cell: one table with a
    row per time step instead of a one-column table each (a 50-step LSTM took 28 pages).
    ({first step id of a run: its blocks}, the ids of their steps)."""

    def mergeable(b: Block) -> bool:
        rows = tl._rows_of(b)
        return b.prefix in only and bool(rows) and np.size(rows[0][1].shown) == 1

    runs: dict[str, list[Block]] = {}
    members: set[str] = set()
    run: list[Block] = []
    for b in [*tl.blocks, None]:
        if b is not None and mergeable(b) and (not run or _side(run[-1]) == _side(b)):
            run.append(b)
            continue
        if len(run) >= MERGE_AT:
            runs[ids[run[0].prefix][0]] = run
            members.update(i for r in run for i in ids[r.prefix])
        run = [b] if b is not None and mergeable(b) else []
    return runs, members


@dataclass(frozen=True)
class Brief:
    """How a derivation's time steps are shown at a level of detail, worked out once for a view."""

    plan: dict[str, str]  # step id -> "line" | "table" (not there: written out in full)
    runs: dict[str, list[Block]]  # first step id -> the one-unit time steps merged into one table
    merged: set[str]  # the ids of the steps in those runs
    table_only: set[str]  # time steps (prefixes) shown by their gate table alone
    timeline: Timeline | None  # None where the derivation has no time steps


def brief_of(d: Derivation, detail: str) -> Brief:
    """The level of detail's plan and what follows from it, on one timeline (building one walks every step)."""
    check_detail(detail)
    tl = Timeline(d) if applies(d) else None
    plan = detail_plan(d, detail, tl)
    if not plan or tl is None:
        return Brief(plan, {}, set(), set(), tl)
    ids = _steps_by_block(d)
    only = table_only(ids, plan)
    runs, merged = merged_runs(tl, ids, only)
    return Brief(plan, runs, merged, only, tl)
